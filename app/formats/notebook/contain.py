"""An HTML output written back balanced, so that it ends where its box ends.

The page holds each HTML output as it is, and the sandbox decides what its
scripts may do. What the page must not let an output do is swallow or undo
what follows it: an unclosed comment or attribute hides every later cell, a
stray ``</div>`` closes the page's own boxes, ``<plaintext>`` turns the rest of
the page into text, and a ``<body>`` tag's attributes land on the page's body.
So the output is parsed and written again: every attribute quoted and
escaped, text escaped, comments dropped, end tags kept only for elements the
output opened, the document-level tags left out, and whatever is still open
closed at its end. Script and style bodies are kept as they were.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

# Elements that have no end tag.
_VOID = frozenset(
    {
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "param", "source", "track", "wbr",
    }
)  # fmt: skip
# Tags that belong to the page, not to an output inside it; their content is kept.
_DOCUMENT = frozenset({"html", "head", "body"})
# Tags after which a browser reads everything as text, to the end of the page.
_DROPPED = frozenset({"plaintext"})
_MAX_DEPTH = 512
_SCRIPT_OPENINGS = re.compile(r"<(!--|/?script)", re.IGNORECASE)


class _Rewriter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.open: list[str] = []
        self._raw: str | None = None  # inside <script> or <style>

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], end: str) -> str:
        written = "".join(
            f' {name}="{html.escape(value or "", quote=True)}"'
            for name, value in attrs
            if name and all(char not in name for char in "\"'<>/=`")
        )
        return f"<{tag}{written}{end}>"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DOCUMENT or tag in _DROPPED:
            return
        if tag in _VOID:
            self.parts.append(self._tag(tag, attrs, ""))
            return
        if len(self.open) >= _MAX_DEPTH:
            return
        self.parts.append(self._tag(tag, attrs, ""))
        self.open.append(tag)
        if tag in self.CDATA_CONTENT_ELEMENTS:
            self._raw = tag

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DOCUMENT or tag in _DROPPED:
            return
        if tag in _VOID:
            self.parts.append(self._tag(tag, attrs, ""))
            return
        if "svg" in self.open or "math" in self.open or tag in ("svg", "math"):
            self.parts.append(self._tag(tag, attrs, " /"))  # whole in SVG, MathML
        else:
            # A browser reads <div/> as an opening <div>: written closed.
            self.parts.append(self._tag(tag, attrs, "") + f"</{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.open:
            return  # not opened by the output: a stray end tag
        while self.open:
            closed = self.open.pop()
            self.parts.append(f"</{closed}>")
            if closed == tag:
                break
        self._raw = None

    def handle_data(self, data: str) -> None:
        foreign = "svg" in self.open or "math" in self.open
        if self._raw is None or foreign:
            # Inside SVG or MathML a browser reads a style's or script's text
            # as markup, whose references it decodes: escaped is exact there.
            self.parts.append(html.escape(data, quote=False))
        elif self._raw == "script":
            # "<!--" then "<script" would make a browser read past the script's
            # end tag; escaped, a script reads both the same in its strings.
            self.parts.append(_SCRIPT_OPENINGS.sub(r"<\\\1", data))
        else:
            self.parts.append(data)  # the parser ended it at its own end tag

    def finish(self) -> str:
        self.close()
        self.parts.extend(f"</{tag}>" for tag in reversed(self.open))
        return "".join(self.parts)


def contain_html(text: str) -> str:
    """``text`` written back so that it cannot reach past its own end."""
    rewriter = _Rewriter()
    try:
        rewriter.feed(text)
        return rewriter.finish()
    except AssertionError:
        # WORKAROUND(CPython's _markupbase asserts on broken marked sections
        # such as "<![ x"): the output is shown as the text it is.
        return f"<pre>{html.escape(text)}</pre>"
