; HTML, as pygments' HtmlLexer colours it. The text of <script> and <style>
; is read by the JavaScript and CSS grammars (``inject`` in syntax_tree.py),
; as pygments hands it to its JavaScript and CSS lexers.

(doctype) @Comment.Preproc
(comment) @Comment.Multiline
(entity) @Name.Entity

(tag_name) @Name.Tag
(erroneous_end_tag_name) @Name.Tag
(attribute_name) @Name.Attribute
(attribute "=" @Operator)
(quoted_attribute_value) @Literal.String
(attribute_value) @Literal.String

(start_tag ["<" ">"] @Punctuation)
(self_closing_tag ["<" "/>"] @Punctuation)
(end_tag ["</" ">"] @Punctuation)
(erroneous_end_tag ["</" ">"] @Punctuation)
