; YAML, in the token types of pygments' YamlLexer.

(comment) @Comment.Single
(block_mapping_pair key: (flow_node) @Name.Tag)
(flow_pair key: (flow_node) @Name.Tag)
(flow_sequence (flow_node (plain_scalar) @Name.Variable))
[(single_quote_scalar) (double_quote_scalar)] @Literal.String
(block_scalar) @Name.Constant
(anchor) @Name.Label
(alias) @Name.Variable
(tag) @Keyword.Type
["---" "..."] @Name.Namespace
