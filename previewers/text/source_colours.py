"""Another family's source view in the text preview's view and colours.

A page's or a document's Source toggle shows the same line numbers and the
same colours as "Show source" on its card: a ``CodeTextView`` whose
highlighter (a tree-sitter grammar, else a pygments lexer) reads the whole
text once on a worker before it colours the lines on screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QPlainTextEdit, QWidget

from previewers.text.jobs import highlighter_for_name
from previewers.text.paged_view import TokenFormats
from previewers.text.view import CodeTextView

if TYPE_CHECKING:
    from previewers.highlight import Highlighter


class ColouredSource:
    """Source text in a ``CodeTextView``, coloured for the file's name."""

    def __init__(self, name: str, dark: bool, parent: QWidget | None) -> None:
        self._view = CodeTextView(parent)
        self._name = name
        self._dark = dark

    @property
    def widget(self) -> QPlainTextEdit:
        return self._view

    def colouring(self) -> Callable[[Callable[[], bool]], object] | None:
        """The pass over the text shown now, to run on a worker."""
        lines = self._view.toPlainText().split("\n")
        name = self._name

        def colour(cancelled: Callable[[], bool]) -> object:
            highlighter = highlighter_for_name(name)
            if highlighter is None:
                return None
            return highlighter, highlighter.scan(lines, cancelled)

        return colour

    def adopt(self, found: object) -> None:
        """Colour the view with what ``colouring`` found (on the GUI thread)."""
        if not isinstance(found, tuple):
            return  # no highlighter for the name: the text stays plain
        highlighter: Highlighter = found[0]
        scan = found[1]
        if scan.too_slow:
            return  # too slow for the whole text: plain, as the text preview is
        highlighter.adopt(scan)
        self._view.set_highlighter(highlighter, TokenFormats(self._dark))
        self._view.rehighlight_visible()
