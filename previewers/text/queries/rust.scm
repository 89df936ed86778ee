; Rust, in the token types of pygments' RustLexer, which reads words: the
; prelude's names and the primitive types get their colour wherever they
; stand. What pygments reads after ":" and "->" (a type's name) is the
; grammar's "typed_colons" rule.

; A doc comment is one token, its marker too.
(inner_doc_comment_marker) @Literal.String.Doc
(inner_doc_comment_marker "!" @Literal.String.Doc)
(outer_doc_comment_marker) @Literal.String.Doc
(line_comment (inner_doc_comment_marker)) @Literal.String.Doc
(line_comment (outer_doc_comment_marker)) @Literal.String.Doc
(block_comment (inner_doc_comment_marker)) @Literal.String.Doc
(block_comment (outer_doc_comment_marker)) @Literal.String.Doc
(line_comment) @Comment.Single
(block_comment) @Comment.Multiline

(attribute_item) @Comment.Preproc
(inner_attribute_item) @Comment.Preproc

[
  "as" "async" "await" "const" "dyn" "else" "extern" "for" "if" "impl"
  "in" "loop" "match" "move" "pub" "ref" "return" "static" "trait" "unsafe"
  "use" "where" "while" "mod" "fn" "struct" "enum" "type" "union" "break"
  "continue" "default"
] @Keyword
(mutable_specifier) @Keyword
(crate) @Keyword
(super) @Keyword
["let"] @Keyword.Declaration
"yield" @Keyword.Reserved
(boolean_literal) @Keyword.Constant
(self) @Name.Builtin.Pseudo
((identifier) @Name.Builtin.Pseudo (#eq? @Name.Builtin.Pseudo "self"))
((type_identifier) @Name.Builtin.Pseudo (#eq? @Name.Builtin.Pseudo "Self"))
((identifier) @Name.Builtin.Pseudo (#eq? @Name.Builtin.Pseudo "Self"))

(mod_item name: (identifier) @Name.Namespace)
(function_item name: (identifier) @Name.Function)
(function_signature_item name: (identifier) @Name.Function)
(struct_item name: (type_identifier) @Name.Class)
(enum_item name: (type_identifier) @Name.Class)
(union_item name: (type_identifier) @Name.Class)
(type_item name: (type_identifier) @Name.Class)

(primitive_type) @Keyword.Type
([(identifier) (type_identifier)] @Keyword.Type
 (#any-of? @Keyword.Type
  "u8" "u16" "u32" "u64" "u128" "i8" "i16" "i32" "i64" "i128" "usize" "isize"
  "f32" "f64" "char" "str" "bool"))
([(identifier) (type_identifier)] @Name.Builtin
 (#any-of? @Name.Builtin
  "Copy" "Send" "Sized" "Sync" "Unpin" "Drop" "Fn" "FnMut" "FnOnce" "drop"
  "Box" "ToOwned" "Clone" "PartialEq" "PartialOrd" "Eq" "Ord" "AsRef" "AsMut"
  "Into" "From" "Default" "Iterator" "Extend" "IntoIterator"
  "DoubleEndedIterator" "ExactSizeIterator" "Option" "Some" "None" "Result"
  "Ok" "Err" "String" "ToString" "Vec"))
; The prelude's macros, with their "!", in code and in a macro's tokens.
(macro_invocation
  macro: (identifier) @Name.Function.Magic
  (#any-of? @Name.Function.Magic
   "asm" "assert" "assert_eq" "assert_ne" "cfg" "column" "compile_error"
   "concat" "concat_idents" "dbg" "debug_assert" "debug_assert_eq"
   "debug_assert_ne" "env" "eprint" "eprintln" "file" "format" "format_args"
   "format_args_nl" "global_asm" "include" "include_bytes" "include_str"
   "line" "llvm_asm" "log_syntax" "macro_rules" "matches" "module_path"
   "option_env" "panic" "print" "println" "stringify" "thread_local" "todo"
   "trace_macros" "unimplemented" "unreachable" "vec" "write" "writeln"))
(macro_invocation
  macro: (identifier) @_macro
  "!" @Name.Function.Magic
  (#any-of? @_macro
   "asm" "assert" "assert_eq" "assert_ne" "cfg" "column" "compile_error"
   "concat" "concat_idents" "dbg" "debug_assert" "debug_assert_eq"
   "debug_assert_ne" "env" "eprint" "eprintln" "file" "format" "format_args"
   "format_args_nl" "global_asm" "include" "include_bytes" "include_str"
   "line" "llvm_asm" "log_syntax" "macro_rules" "matches" "module_path"
   "option_env" "panic" "print" "println" "stringify" "thread_local" "todo"
   "trace_macros" "unimplemented" "unreachable" "vec" "write" "writeln"))
(token_tree
  (identifier) @Name.Function.Magic
  .
  "!"
  (#any-of? @Name.Function.Magic
   "asm" "assert" "assert_eq" "assert_ne" "cfg" "column" "compile_error"
   "concat" "concat_idents" "dbg" "debug_assert" "debug_assert_eq"
   "debug_assert_ne" "env" "eprint" "eprintln" "file" "format" "format_args"
   "format_args_nl" "global_asm" "include" "include_bytes" "include_str"
   "line" "llvm_asm" "log_syntax" "macro_rules" "matches" "module_path"
   "option_env" "panic" "print" "println" "stringify" "thread_local" "todo"
   "trace_macros" "unimplemented" "unreachable" "vec" "write" "writeln"))
(token_tree
  (identifier) @_macro
  .
  "!" @Name.Function.Magic
  (#any-of? @_macro
   "asm" "assert" "assert_eq" "assert_ne" "cfg" "column" "compile_error"
   "concat" "concat_idents" "dbg" "debug_assert" "debug_assert_eq"
   "debug_assert_ne" "env" "eprint" "eprintln" "file" "format" "format_args"
   "format_args_nl" "global_asm" "include" "include_bytes" "include_str"
   "line" "llvm_asm" "log_syntax" "macro_rules" "matches" "module_path"
   "option_env" "panic" "print" "println" "stringify" "thread_local" "todo"
   "trace_macros" "unimplemented" "unreachable" "vec" "write" "writeln"))
; A macro's tokens are words to the grammar, keywords to pygments.
((token_tree (identifier) @Keyword)
 (#any-of? @Keyword
  "as" "async" "await" "const" "crate" "dyn" "else" "extern" "for" "if"
  "impl" "in" "loop" "match" "move" "mut" "pub" "ref" "return" "static"
  "super" "trait" "unsafe" "use" "where" "while" "mod" "fn" "struct" "enum"
  "type" "union" "break" "continue"))
((token_tree (identifier) @Keyword.Declaration)
 (#eq? @Keyword.Declaration "let"))
(token_tree "fn" . (identifier) @Name.Function)
; A repetition's "$(" is one token, as a metavariable is.
(token_repetition_pattern "$" @Comment.Preproc . "(" @Comment.Preproc)
(token_repetition "$" @Comment.Preproc . "(" @Comment.Preproc)
(macro_definition "macro_rules!" @Name.Function.Magic)
(metavariable) @Comment.Preproc

(lifetime "'" @Operator)
((lifetime (identifier) @Name.Builtin) (#any-of? @Name.Builtin "static" "_"))
(lifetime (identifier) @Name.Attribute)
(label "'" @Operator)
(label (identifier) @Name.Label)

(char_literal) @Literal.String.Char
(string_literal) @Literal.String
(raw_string_literal) @Literal.String
(escape_sequence) @Literal.String.Escape
(integer_literal) @Literal.Number.Integer
(float_literal) @Literal.Number.Float

["::"] @Punctuation
[":" "->"] @Punctuation
[".." "..="] @Operator
["{" "}" "(" ")" "[" "]" "," "." ";"] @Punctuation
[
  "+" "-" "*" "/" "%" "&" "|" "<" ">" "^" "!" "@" "=" "?" "==" "!=" "<="
  ">=" "&&" "||" "+=" "-=" "*=" "/=" "%=" "&=" "|=" "^=" "<<" ">>" "<<="
  ">>=" "=>"
] @Operator
"#" @Punctuation
