; Bash, in the token types of pygments' BashLexer, which reads words: a
; keyword or a builtin's name gets its colour wherever it stands. Other
; words are plain text for pygments (this grammar's "rest" is none).

(comment) @Comment.Single

; Strings: a double-quoted string is one token unless it expands something.
(string) @Literal.String.Double
(raw_string) @Literal.String.Single
(ansi_c_string) @Literal.String.Single
(translated_string) @Literal.String.Double
(heredoc_redirect) @Literal.String
(heredoc_body) @Literal.String
(heredoc_start) @Literal.String
(heredoc_end) @Literal.String

(simple_expansion) @Name.Variable
(expansion "${" @Literal.String.Interpol)
(expansion "}" @Literal.String.Interpol)
(expansion (variable_name) @Name.Variable)
(expansion ":-" @Keyword)
(expansion) @Punctuation
(command_substitution "$(" @Keyword)
(command_substitution ")" @Keyword)
(command_substitution "`" @Literal.String.Backtick)
(command_substitution) @Text
(arithmetic_expansion "$((" @Keyword)
(arithmetic_expansion "))" @Keyword)
(arithmetic_expansion (variable_name) @Name.Variable)
(arithmetic_expansion) @Text

(variable_assignment name: (variable_name) @Name.Variable)
(variable_assignment ["=" "+="] @Operator)

((word) @Keyword
 (#any-of? @Keyword
  "if" "fi" "else" "while" "in" "do" "done" "for" "then" "return" "function"
  "case" "select" "break" "continue" "until" "esac" "elif"))
[
  "if" "fi" "else" "while" "in" "do" "done" "for" "then" "function" "case"
  "select" "until" "esac" "elif"
] @Keyword

((word) @Name.Builtin
 (#any-of? @Name.Builtin
  "alias" "bg" "bind" "builtin" "caller" "cd" "command" "compgen" "complete"
  "declare" "dirs" "disown" "echo" "enable" "eval" "exec" "exit" "export"
  "false" "fc" "fg" "getopts" "hash" "help" "history" "jobs" "kill" "let"
  "local" "logout" "popd" "printf" "pushd" "pwd" "read" "readonly" "set"
  "shift" "shopt" "source" "suspend" "test" "time" "times" "trap" "true" "type"
  "typeset" "ulimit" "umask" "unalias" "unset" "wait"))
["local" "export" "declare" "readonly" "typeset" "unset" "unsetenv"] @Name.Builtin

((word) @Literal.Number (#match? @Literal.Number "^[0-9]+$"))
(number) @Literal.Number
(file_descriptor) @Literal.Number

["[" "]" "[[" "]]" "{" "}" "(" ")" "((" "))" "=" "<<<" "&&" "||"] @Operator
[";" "&" "|" ";;"] @Punctuation
