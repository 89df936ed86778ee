; Markdown's inline text, as pygments' MarkdownLexer colours it.

; pygments' emphasis "eats" what lies in it: code, a link.
(strong_emphasis (code_span) @Generic.Strong)
(strong_emphasis (inline_link [(link_text) (link_destination)] @Generic.Strong))
(emphasis (code_span) @Generic.Emph)
(emphasis (inline_link [(link_text) (link_destination)] @Generic.Emph))

(code_span) @Literal.String.Backtick
(emphasis (strong_emphasis) @Generic.EmphStrong)
(strong_emphasis) @Generic.Strong
(emphasis) @Generic.Emph
(strikethrough) @Generic.Deleted

; Links and images: the text a tag, where it goes an attribute; the
; brackets are plain.
; A badge, an image in a link: pygments' link rule stops at the image's
; end, so the link's destination is plain.
(inline_link (link_text (image)) (link_destination) @Text)
; Nor does it read a link whose text begins with code: the code comes first.
(inline_link (link_text . (code_span)) (link_destination) @Text)
(inline_link (link_text) @Name.Tag)
(inline_link (link_destination) @Name.Attribute)
(image (image_description) @Name.Tag)
(image (link_destination) @Name.Attribute)
(full_reference_link (link_text) @Name.Tag)
(full_reference_link (link_label ["[" "]"] @Text))
(full_reference_link (link_label) @Name.Label)
