; TypeScript, in the token types of pygments' TypeScriptLexer: JavaScript's
; words plus its own (typescript.scm repeats javascript.scm, where the node
; names allow; the grammars are separate). pygments' rule "word: word",
; which makes the second word a type wherever it stands, is applied after
; the query (``typed_colons`` in syntax_tree.py).

; "@name" is one declaration keyword for pygments.
(decorator "@" @Keyword.Declaration)
(decorator (identifier) @Keyword.Declaration)
(decorator (call_expression function: (identifier) @Keyword.Declaration))
(decorator (member_expression object: (identifier) @Keyword.Declaration))
(decorator (call_expression function: (member_expression object: (identifier) @Keyword.Declaration)))

([
  (identifier) (property_identifier) (shorthand_property_identifier)
  (shorthand_property_identifier_pattern) (type_identifier) (predefined_type)
] @Keyword.Type
 (#any-of? @Keyword.Type "string" "boolean" "number"))

([
  (identifier) (property_identifier) (shorthand_property_identifier)
  (shorthand_property_identifier_pattern) (type_identifier)
] @Keyword
 (#any-of? @Keyword
  "abstract" "implements" "private" "protected" "public" "readonly" "enum"
  "interface" "override" "declare" "type"))
[
  "abstract" "implements" "private" "protected" "public" "readonly" "enum"
  "interface" "override" "declare" "type" "module" "keyof" "namespace"
] @Keyword


(comment) @Comment.Single
(hash_bang_line) @Comment.Hashbang

(template_string) @Literal.String.Backtick
(template_substitution "${" @Literal.String.Interpol)
(template_substitution "}" @Literal.String.Interpol)
(template_substitution) @Name
(string) @Literal.String.Double
(regex "/" @Literal.String.Regex)
(regex) @Literal.String.Regex
(number) @Literal.Number.Float

([
  (identifier) (property_identifier) (shorthand_property_identifier)
  (shorthand_property_identifier_pattern) (statement_identifier) (type_identifier)
  (predefined_type)
] @Operator.Word
 (#any-of? @Operator.Word "typeof" "instanceof" "in" "void" "delete" "new"))

([
  (identifier) (property_identifier) (shorthand_property_identifier)
  (shorthand_property_identifier_pattern) (statement_identifier) (type_identifier)
  (predefined_type)
] @Keyword
 (#any-of? @Keyword
  "constructor" "from" "as" "for" "while" "do" "break" "return" "continue"
  "switch" "case" "default" "if" "else" "throw" "try" "catch" "finally" "yield"
  "await" "async" "this" "of" "static" "export" "import" "debugger" "extends"
  "super" "var" "let" "const" "with" "function" "class" "abstract" "boolean"
  "byte" "char" "double" "enum" "final" "float" "goto" "implements" "int"
  "interface" "long" "native" "package" "private" "protected" "public" "short"
  "synchronized" "throws" "transient" "volatile" "true" "false" "null" "NaN"
  "Infinity" "undefined"))

([
  (identifier) (property_identifier) (shorthand_property_identifier)
  (shorthand_property_identifier_pattern) (type_identifier)
] @Name.Builtin
 (#any-of? @Name.Builtin
  "Array" "Boolean" "Date" "BigInt" "Function" "Math" "ArrayBuffer" "Number"
  "Object" "RegExp" "String" "Promise" "Proxy" "decodeURI" "decodeURIComponent"
  "encodeURI" "encodeURIComponent" "eval" "isFinite" "isNaN" "parseFloat"
  "parseInt" "DataView" "document" "window" "globalThis" "global" "arguments"
  "Symbol" "Intl" "WeakSet" "WeakMap" "Set" "Map" "Reflect" "JSON" "Atomics"
  "Int8Array" "Int16Array" "Int32Array" "BigInt64Array" "Float32Array"
  "Float64Array" "Uint8ClampedArray" "Uint8Array" "Uint16Array" "Uint32Array"
  "BigUint64Array"))

([
  (identifier) (property_identifier) (shorthand_property_identifier)
  (shorthand_property_identifier_pattern) (type_identifier)
] @Name.Exception
 (#match? @Name.Exception "^(Eval|Internal|Range|Reference|Syntax|Type|URI)?Error$"))

["typeof" "instanceof" "in" "void" "delete" "new"] @Operator.Word

[
  "as" "async" "await" "break" "case" "catch" "class" "const" "continue"
  "debugger" "default" "do" "else" "export" "extends" "finally" "for" "from"
  "function" "get" "if" "import" "let" "of" "return" "set" "static" "switch"
  "target" "throw" "try" "var" "while" "with" "yield"
  (this) (super) (true) (false) (null) (undefined)
] @Keyword

[
  "++" "--" "~" "??" "??=" "?" ":" "<<" ">>" ">>>" "==" "===" "!=" "!==" "="
  "!" "**" "||" "&&" "-" "<" ">" "+" "*" "%" "&" "|" "^" "/" "<<=" ">>="
  ">>>=" "<=" ">=" "**=" "||=" "&&=" "-=" "+=" "*=" "%=" "&=" "|=" "^=" "/=" "?."
] @Operator
