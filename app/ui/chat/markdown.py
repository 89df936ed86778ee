"""Markdown to a QTextDocument that never loads anything, with a small cache."""

from __future__ import annotations

import html
from collections import OrderedDict
from functools import lru_cache
from typing import Any

from PySide6.QtCore import QByteArray, QUrl
from PySide6.QtGui import QFont, QPalette, QTextDocument


@lru_cache(maxsize=1)
def _parser() -> Any:
    # Imported on first use: start-up does not need a Markdown parser.
    from markdown_it import MarkdownIt

    # "js-default" keeps raw HTML off: agent text cannot inject tags.
    parser = MarkdownIt("js-default")
    # Images become their alt text: QTextDocument's image handler falls back to
    # reading the file named by the URL itself when a resource comes back empty.
    parser.add_render_rule("image", _image_as_text)
    return parser


def _image_as_text(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    alt = "".join(child.content for child in tokens[idx].children or [])
    return html.escape(f"[image: {alt}]" if alt else "[image]")


def markdown_html(text: str) -> str:
    """Render agent Markdown to HTML; raw HTML in the text stays literal."""
    return _html_cache.get(text)


def prepare_markdown_html(text: str) -> bool:
    """Render ``text`` ahead of its first paint; False once the cache is full.

    A full cache is left as it is: what it holds is nearer the screen.
    """
    return _html_cache.warm(text)


HTML_CACHE_CHARS = 16 * 1024 * 1024
"""How much Markdown and HTML text the cache keeps, in characters."""


class _HtmlCache:
    """Rendered HTML by Markdown text: parsing costs more than laying out.

    Far larger than the document cache, since a string is cheap to keep and a
    row scrolled back into view then skips the parser. Bounded by characters,
    not entries, so a conversation of short answers fits whole while a few
    huge ones cannot take the memory of thousands.
    """

    def __init__(self, capacity: int = HTML_CACHE_CHARS) -> None:
        self._capacity = capacity
        self._chars = 0
        self._html: OrderedDict[str, str] = OrderedDict()

    def get(self, text: str) -> str:
        html_text = self._html.get(text)
        if html_text is None:
            html_text = str(_parser().render(text))
            self._keep(text, html_text)
        else:
            self._html.move_to_end(text)
        return html_text

    def warm(self, text: str) -> bool:
        if text in self._html:
            return True
        html_text = str(_parser().render(text))
        if self._chars + len(text) + len(html_text) > self._capacity:
            return False
        self._keep(text, html_text)
        return True

    def _keep(self, text: str, html_text: str) -> None:
        size = len(text) + len(html_text)
        if size > self._capacity:
            return
        self._html[text] = html_text
        self._chars += size
        while self._chars > self._capacity:
            dropped, dropped_html = self._html.popitem(last=False)
            self._chars -= len(dropped) + len(dropped_html)


_html_cache = _HtmlCache()


class SafeTextDocument(QTextDocument):
    """A text document whose resources (images, style sheets) always load empty.

    ``<img src="/etc/passwd">`` in agent Markdown becomes an image element;
    Qt would read that file through ``loadResource``. Refused URLs are kept so
    tests (and curious users) can see what was asked for.
    """

    def __init__(self) -> None:
        super().__init__()
        self.refused_urls: list[str] = []

    def loadResource(self, type: int, name: QUrl | str) -> QByteArray:
        self.refused_urls.append(name.toString() if isinstance(name, QUrl) else name)
        # Empty bytes: the document gets nothing for any URL.
        return QByteArray()


def _style_sheet(palette: QPalette) -> str:
    code_bg = palette.color(QPalette.ColorRole.AlternateBase).name()
    link = palette.color(QPalette.ColorRole.Link).name()
    return _style_sheet_for(code_bg, link)


@lru_cache(maxsize=8)
def _style_sheet_for(code_bg: str, link: str) -> str:
    return (
        f"a {{ color: {link}; }}"
        f"code, pre {{ background-color: {code_bg}; font-family: monospace; }}"
        "h1 { font-size: x-large; } h2 { font-size: large; } h3 { font-size: medium; }"
        "p, ul, ol { margin-top: 2px; margin-bottom: 6px; }"
    )


def make_document(
    text: str, width: float, font: QFont, palette: QPalette
) -> SafeTextDocument:
    """A laid-out document for ``text`` at ``width`` pixels."""
    document = SafeTextDocument()
    document.setDefaultFont(font)
    document.setDocumentMargin(0)
    document.setDefaultStyleSheet(_style_sheet(palette))
    document.setHtml(markdown_html(text))
    document.setTextWidth(width)
    return document


def make_plain_document(text: str, width: float, font: QFont) -> SafeTextDocument:
    """A laid-out document of plain ``text`` (a user's message) at ``width``."""
    document = SafeTextDocument()
    document.setDefaultFont(font)
    document.setDocumentMargin(0)
    document.setPlainText(text)
    document.setTextWidth(width)
    return document


class DocumentCache:
    """Documents for the rows on and near the screen: a least-recently-used map.

    A screen shows a handful of answers; the capacity keeps a few screens of
    them either side, so scrolling back and forth lays nothing out again. A
    ``plain`` cache holds plain-text documents (user messages), which are
    laid out like answers so they can be selected the same way.
    """

    def __init__(self, capacity: int = 96, *, plain: bool = False) -> None:
        self._plain = plain
        self._capacity = capacity
        self._documents: OrderedDict[tuple[str, int, str], SafeTextDocument] = (
            OrderedDict()
        )

    def get(
        self, text: str, width: int, font: QFont, palette: QPalette
    ) -> SafeTextDocument:
        key = (text, width, font.key() + palette.color(QPalette.ColorRole.Link).name())
        document = self._documents.get(key)
        if document is None:
            if self._plain:
                document = make_plain_document(text, width, font)
            else:
                document = make_document(text, width, font, palette)
            self._documents[key] = document
            while len(self._documents) > self._capacity:
                self._documents.popitem(last=False)
        else:
            self._documents.move_to_end(key)
        return document

    def clear(self) -> None:
        self._documents.clear()

    def __len__(self) -> int:
        return len(self._documents)

    def documents(self) -> list[SafeTextDocument]:
        return list(self._documents.values())
