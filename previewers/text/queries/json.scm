; JSON, in the token types of pygments' JsonLexer.

(pair key: (string) @Name.Tag)
(string) @Literal.String.Double
(number) @Literal.Number.Integer
[(null) (true) (false)] @Keyword.Constant
(comment) @Comment.Single
