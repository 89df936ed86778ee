; Markdown's blocks, as pygments' MarkdownLexer colours them. The text of
; paragraphs and table cells is read by the inline grammar
; (markdown_inline.scm), a fenced block's code by its language's grammar
; (``inject`` in syntax_grammars.py).

; A heading's whole line, level one apart from the rest.
(atx_heading (atx_h1_marker)) @Generic.Heading
(atx_heading) @Generic.Subheading
(setext_heading (setext_h1_underline)) @Generic.Heading
(setext_heading) @Generic.Subheading

; pygments knows "-", "*" and "1." as list markers, not "+" or "1)".
[
  (list_marker_minus)
  (list_marker_star)
  (list_marker_dot)
  (task_list_marker_checked)
  (task_list_marker_unchecked)
] @Keyword

; A quote: its marker, then its text emphasised.
(block_quote_marker) @Keyword
(block_quote (paragraph (inline (block_continuation) @Keyword)))
(block_quote (paragraph) @Generic.Emph)

; Fences. A fence whose language another grammar reads is left to it
; (``Text`` is no colour); pygments' "text" is plain too; other languages
; are a string, as pygments has code it finds no lexer for; a fence
; without a language is all backticks.
(fenced_code_block_delimiter) @Literal.String.Backtick
(info_string (language) @Literal.String.Backtick)
(fenced_code_block
  (info_string (language) @_lang)
  (code_fence_content) @Text
  (#any-of? @_lang "text" WORDS:FENCE_NAMES))
(fenced_code_block (info_string) (code_fence_content) @Literal.String)
(code_fence_content) @Literal.String.Backtick

; "[label]: destination".
(link_reference_definition (link_label) @Name.Label)
(link_reference_definition (link_label ["[" "]"] @Text))
(link_reference_definition (link_destination) @Name.Attribute)
(link_reference_definition (link_title) @Name.Attribute)
