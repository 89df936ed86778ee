; Python, in the token types of pygments' PythonLexer.
; Earlier patterns win for the same node; a smaller node wins over its parent.

(comment) @Comment.Single

; Docstrings: pygments takes any triple-quoted string that starts a line.
((expression_statement (string) @Literal.String.Doc)
 (#match? @Literal.String.Doc "^[rRuUbB]{0,2}(\"\"\"|''')"))
; It is one token: no escapes are read inside.
((expression_statement
  (string (string_start) @_quote (string_content (escape_sequence) @Literal.String.Doc)))
 (#match? @_quote "^[rRuUbB]{0,2}(\"\"\"|''')$"))

; f-strings: pygments reads no %-formatting in them (plain strings get the
; grammar's "refine" patterns); Literal.String looks as Literal.String.Double.
((string (string_start) @_start) @Literal.String
 (#match? @_start "[fFtT]"))
; Raw strings: pygments still reads "\\" and "\'" as escapes in them; Single
; looks as Double and takes the grammar's raw-string "refine" patterns.
((string (string_start) @_start) @Literal.String.Single
 (#match? @_start "^([bB]?[rR]|[rR][bB])"))
(string) @Literal.String.Double
(line_continuation) @Text
(escape_sequence) @Literal.String.Escape
(interpolation "{" @Literal.String.Interpol)
(interpolation "}" @Literal.String.Interpol)
(type_conversion) @Literal.String.Interpol
(format_specifier ":" @Literal.String.Interpol)
(format_specifier) @Literal.String.Double
(interpolation) @Name

(integer) @Literal.Number.Integer
(float) @Literal.Number.Float

[(none) (true) (false)] @Keyword.Constant

["import" "from"] @Keyword.Namespace
(import_statement "," @Operator)
(dotted_name "." @Name.Namespace)
(import_prefix) @Name.Namespace
(import_statement name: (dotted_name) @Name.Namespace)
(import_statement name: (aliased_import name: (dotted_name) @Name.Namespace))
(import_statement name: (aliased_import alias: (identifier) @Name.Namespace))
(import_from_statement module_name: (dotted_name) @Name.Namespace)
(import_from_statement module_name: (relative_import) @Name.Namespace)
(future_import_statement "__future__" @Name.Namespace)
; pygments reads "raise X from y" as an import: y is a module name for it.
(raise_statement "from" . (identifier) @Name.Namespace)

(decorator "@" @Name.Decorator)
(decorator (identifier) @Name.Decorator)
(decorator (attribute object: (identifier) @Name.Decorator))
(decorator (call function: (identifier) @Name.Decorator))
(decorator (call function: (attribute object: (identifier) @Name.Decorator)))

["in" "not" "is" "and" "or" "not in" "is not"] @Operator.Word

[
  "as" "assert" "async" "await" "break" "class" "continue" "def" "del" "elif"
  "else" "except" "finally" "for" "global" "if" "lambda" "nonlocal"
  "pass" "raise" "return" "try" "while" "with" "yield" "match" "case" "print"
  "exec" "type"
] @Keyword

[
  "-" "-=" "!=" "*" "**" "**=" "*=" "/" "//" "//=" "/=" "&" "&=" "%" "%="
  "^" "^=" "+" "->" "+=" "<" "<<" "<<=" "<=" "<>" "=" ":=" "==" ">" ">="
  ">>" ">>=" "|" "|=" "~" "@=" "." "@"
] @Operator
(ellipsis) @Operator


(class_definition name: (identifier) @Name.Class)

; Magic methods are magic after a dot too; everything else after a dot is a name.
((identifier) @Name.Function.Magic
 (#any-of? @Name.Function.Magic
  "__abs__" "__add__" "__aenter__" "__aexit__" "__aiter__" "__and__" "__anext__"
  "__await__" "__bool__" "__bytes__" "__call__" "__complex__" "__contains__"
  "__del__" "__delattr__" "__delete__" "__delitem__" "__dir__" "__divmod__"
  "__enter__" "__eq__" "__exit__" "__float__" "__floordiv__" "__format__" "__ge__"
  "__get__" "__getattr__" "__getattribute__" "__getitem__" "__gt__" "__hash__"
  "__iadd__" "__iand__" "__ifloordiv__" "__ilshift__" "__imatmul__" "__imod__"
  "__imul__" "__index__" "__init__" "__instancecheck__" "__int__" "__invert__"
  "__ior__" "__ipow__" "__irshift__" "__isub__" "__iter__" "__itruediv__"
  "__ixor__" "__le__" "__len__" "__length_hint__" "__lshift__" "__lt__"
  "__matmul__" "__missing__" "__mod__" "__mul__" "__ne__" "__neg__" "__new__"
  "__next__" "__or__" "__pos__" "__pow__" "__prepare__" "__radd__" "__rand__"
  "__rdivmod__" "__repr__" "__reversed__" "__rfloordiv__" "__rlshift__"
  "__rmatmul__" "__rmod__" "__rmul__" "__ror__" "__round__" "__rpow__"
  "__rrshift__" "__rshift__" "__rsub__" "__rtruediv__" "__rxor__" "__set__"
  "__setattr__" "__setitem__" "__str__" "__sub__" "__subclasscheck__"
  "__truediv__" "__xor__"))
((identifier) @Name.Variable.Magic
 (#any-of? @Name.Variable.Magic
  "__annotations__" "__bases__" "__class__" "__closure__" "__code__"
  "__defaults__" "__dict__" "__doc__" "__file__" "__func__" "__globals__"
  "__kwdefaults__" "__module__" "__mro__" "__name__" "__objclass__"
  "__qualname__" "__self__" "__slots__" "__weakref__"))

(function_definition name: (identifier) @Name.Function)
(attribute attribute: (identifier) @Name)

((identifier) @Name.Builtin
 (#any-of? @Name.Builtin
  "__import__" "abs" "aiter" "all" "any" "bin" "bool" "bytearray" "breakpoint"
  "bytes" "callable" "chr" "classmethod" "compile" "complex" "delattr" "dict"
  "dir" "divmod" "enumerate" "eval" "filter" "float" "format" "frozendict"
  "frozenset" "getattr" "globals" "hasattr" "hash" "hex" "id" "input" "int"
  "isinstance" "issubclass" "iter" "len" "list" "locals" "map" "max"
  "memoryview" "min" "next" "object" "oct" "open" "ord" "pow" "print"
  "property" "range" "repr" "reversed" "round" "sentinel" "set" "setattr"
  "slice" "sorted" "staticmethod" "str" "sum" "super" "tuple" "type" "vars"
  "zip"))
((identifier) @Name.Builtin.Pseudo
 (#any-of? @Name.Builtin.Pseudo "self" "Ellipsis" "NotImplemented" "cls"))
((identifier) @Name.Exception
 (#any-of? @Name.Exception
  "ArithmeticError" "AssertionError" "AttributeError" "BaseException"
  "BufferError" "BytesWarning" "DeprecationWarning" "EOFError"
  "EnvironmentError" "Exception" "FloatingPointError" "FutureWarning"
  "GeneratorExit" "IOError" "ImportError" "ImportWarning" "IndentationError"
  "IndexError" "KeyError" "KeyboardInterrupt" "LookupError" "MemoryError"
  "NameError" "NotImplementedError" "OSError" "OverflowError"
  "PendingDeprecationWarning" "ReferenceError" "ResourceWarning" "RuntimeError"
  "RuntimeWarning" "StopIteration" "SyntaxError" "SyntaxWarning" "SystemError"
  "SystemExit" "TabError" "TypeError" "UnboundLocalError" "UnicodeDecodeError"
  "UnicodeEncodeError" "UnicodeError" "UnicodeTranslateError" "UnicodeWarning"
  "UserWarning" "ValueError" "VMSError" "Warning" "WindowsError"
  "ZeroDivisionError" "BlockingIOError" "ChildProcessError" "ConnectionError"
  "BrokenPipeError" "ConnectionAbortedError" "ConnectionRefusedError"
  "ConnectionResetError" "FileExistsError" "FileNotFoundError"
  "InterruptedError" "IsADirectoryError" "NotADirectoryError"
  "PermissionError" "ProcessLookupError" "TimeoutError" "StopAsyncIteration"
  "ModuleNotFoundError" "RecursionError" "EncodingWarning"))
