; CSS, in the token types of pygments' CssLexer. Its word lists are its own:
; "WORDS:" and the name of a list of ``pygments.lexers.css`` stand for its words.

(comment) @Comment

; Selectors.
(pseudo_class_selector ":" @Punctuation)
(pseudo_class_selector (class_name) @Name.Decorator)
(pseudo_class_selector (arguments ["(" ")"] @Operator))
(pseudo_element_selector "::" @Punctuation)
(pseudo_element_selector (tag_name) @Name.Decorator)
(class_selector "." @Punctuation)
(class_name) @Name.Class
(id_selector "#" @Punctuation)
(id_name) @Name.Namespace
(tag_name) @Name.Tag
(universal_selector) @Operator
(attribute_selector ["[" "]"] @Operator)
(attribute_name) @Name.Tag
(nesting_selector) @Operator
[">" "~" "+" "=" "~=" "^=" "|=" "*=" "$="] @Operator
(selectors "," @Operator)

; At-rules: "@" and the name, the rest as selectors are read.
(at_keyword) @Keyword
["@media" "@import" "@charset" "@namespace" "@supports" "@keyframes"] @Keyword
(keyword_query) @Name.Tag
(feature_name) @Name.Tag
(keyframes_name) @Name.Tag
(to) @Name.Tag
(from) @Name.Tag

; Declarations. A vendor's prefix is split off by the grammar's line rule.
; url(...) is read whole: what is between the brackets is a string.
((call_expression
  (function_name) @Name.Builtin
  (arguments (_) @Literal.String.Other))
 (#eq? @Name.Builtin "url"))
((property_name) @Keyword.Pseudo (#match? @Keyword.Pseudo "^(-ms-|mso-|-moz-|-o-|-xv-|-atsc-|-wap-|-khtml-|-webkit-|prince-|-ah-|-hp-|-ro-|-rim-|-tc-)"))
((property_name) @Keyword (#any-of? @Keyword WORDS:_css_properties))
((property_name) @Name.Variable (#match? @Name.Variable "^-"))
(property_name) @Name
(declaration ":" @Punctuation)
(block ["{" "}" ";"] @Punctuation)
(declaration ";" @Punctuation)

; A custom property read back: var(--x).
((plain_value) @Name.Variable (#match? @Name.Variable "^--"))
((plain_value) @Name.Builtin.Pseudo (#match? @Name.Builtin.Pseudo "^(-ms-|mso-|-moz-|-o-|-xv-|-atsc-|-wap-|-khtml-|-webkit-|prince-|-ah-|-hp-|-ro-|-rim-|-tc-)"))
((plain_value) @Keyword.Constant
 (#any-of? @Keyword.Constant
  WORDS:_keyword_values WORDS:_other_keyword_values WORDS:_color_keywords))
((plain_value) @Keyword (#any-of? @Keyword WORDS:_css_properties))
(plain_value) @Name
(important) @Comment.Preproc
(color_value) @Literal.Number.Hex
(integer_value) @Literal.Number.Integer
(float_value) @Literal.Number.Float
(unit) @Keyword.Type
(string_value) @Literal.String.Double
((string_value) @Literal.String.Single (#match? @Literal.String.Single "^'"))

((function_name) @Name.Builtin
 (#any-of? @Name.Builtin WORDS:_functional_notation_keyword_values))
(function_name) @Name.Function
(arguments ["(" ")" ","] @Punctuation)
(parenthesized_value ["(" ")"] @Punctuation)
(binary_expression ["+" "-" "*" "/"] @Operator)
