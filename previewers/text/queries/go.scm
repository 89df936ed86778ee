; Go, in the token types of pygments' GoLexer, which reads words: a type's or
; a builtin's name gets its colour wherever it stands; other names are plain.

((comment) @Comment.Multiline (#match? @Comment.Multiline "^/[*]"))
(comment) @Comment.Single

["import" "package"] @Keyword.Namespace
["var" "func" "struct" "type" "interface" "const"] @Keyword.Declaration
[
  "break" "default" "select" "case" "defer" "go" "else" "goto" "switch"
  "fallthrough" "if" "range" "continue" "for" "return"
] @Keyword
[(true) (false) (iota) (nil)] @Keyword.Constant

; A builtin function only where "(" follows at once.
((call_expression
  function: (identifier) @Name.Builtin
  arguments: (argument_list) @_open)
 (#any-of? @Name.Builtin
  "print" "println" "panic" "recover" "close" "complex" "real" "imag" "len"
  "cap" "append" "copy" "delete" "new" "make" "min" "max" "clear"))

["map" "chan"] @Keyword.Type
([(type_identifier) (identifier) (field_identifier) (package_identifier)]
 @Keyword.Type
 (#any-of? @Keyword.Type
  "uint" "uint8" "uint16" "uint32" "uint64" "int" "int8" "int16" "int32"
  "int64" "float32" "float64" "complex64" "complex128" "byte" "rune" "string"
  "bool" "error" "uintptr" "any" "comparable"))

(imaginary_literal) @Literal.Number
(float_literal) @Literal.Number.Float
(int_literal) @Literal.Number.Integer
(rune_literal) @Literal.String.Char
; A string is one token: pygments reads no escapes in it.
(raw_string_literal) @Literal.String
(interpreted_string_literal) @Literal.String

[
  "<<=" ">>=" "<<" ">>" "<=" ">=" "&^=" "&^" "+=" "-=" "*=" "/=" "%=" "&="
  "|=" "^=" "&&" "||" "<-" "++" "--" "==" "!=" ":=" "+" "-" "*" "/" "%" "&"
  "!" "=" "<" ">" "|" "^"
] @Operator
["..." "(" ")" "[" "]" "{" "}" "." "," ";" ":" "~"] @Punctuation
