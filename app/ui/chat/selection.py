"""Text selected with the mouse in the chat: from one (row, position) to another.

The chat paints its rows, so there are no text widgets to select in. A
selection is two ends, each a row and a character position in that row's
laid-out document (``QTextDocument``), from hit-testing the row under the
pointer. It may span several messages; rows between its ends are selected
whole, and rows that hold no text (cards, tool calls) are skipped when the
text is copied. Painting asks ``span`` for one row: a comparison, no layout.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QTextCursor, QTextDocument

End = tuple[int, int]
"""(row, character position in that row's document)."""

DocumentFor = Callable[[int], QTextDocument | None]
"""The laid-out document of a text row, or ``None`` for a row without text."""


class TextSelection:
    """The two ends of the selection, ``anchor`` where the drag started."""

    def __init__(self) -> None:
        self.anchor: End | None = None
        self.cursor: End | None = None

    def clear(self) -> None:
        self.anchor = self.cursor = None

    def start(self, end: End) -> None:
        self.anchor = self.cursor = end

    def select(self, anchor: End, cursor: End) -> None:
        self.anchor, self.cursor = anchor, cursor

    def extend(self, end: End) -> None:
        if self.anchor is not None:
            self.cursor = end

    def is_empty(self) -> bool:
        return self.anchor is None or self.cursor is None or self.anchor == self.cursor

    def ordered(self) -> tuple[End, End] | None:
        if self.anchor is None or self.cursor is None or self.is_empty():
            return None
        return min(self.anchor, self.cursor), max(self.anchor, self.cursor)

    def rows(self) -> range:
        ends = self.ordered()
        return range(ends[0][0], ends[1][0] + 1) if ends else range(0)

    def span(self, row: int, length: int) -> tuple[int, int] | None:
        """The selected positions of ``row`` (whose text has ``length``)."""
        ends = self.ordered()
        if ends is None:
            return None
        (first_row, first), (last_row, last) = ends
        if not first_row <= row <= last_row:
            return None
        start = first if row == first_row else 0
        stop = last if row == last_row else length
        return (start, stop) if stop > start else None

    # -- rows that move --------------------------------------------------------

    def rows_inserted(self, start: int, count: int) -> None:
        """Rows were inserted at ``start``: ends at or after it move down."""
        if self.anchor is not None and self.anchor[0] >= start:
            self.anchor = (self.anchor[0] + count, self.anchor[1])
        if self.cursor is not None and self.cursor[0] >= start:
            self.cursor = (self.cursor[0] + count, self.cursor[1])

    def rows_removed(self, start: int, end: int) -> None:
        """Rows ``start..end`` went: a selection touching them is dropped."""
        rows = self.rows()
        if not rows:
            self.clear()
            return
        if start <= rows[-1] and end >= rows[0]:
            self.clear()
            return
        if rows[0] > end:
            shift = end - start + 1
            assert self.anchor is not None and self.cursor is not None
            self.anchor = (self.anchor[0] - shift, self.anchor[1])
            self.cursor = (self.cursor[0] - shift, self.cursor[1])


def selected_text(selection: TextSelection, document_for: DocumentFor) -> str:
    """The plain text of the selection; messages are separated by a blank line."""
    parts: list[str] = []
    for row in selection.rows():
        document = document_for(row)
        if document is None:
            continue
        span = selection.span(row, document.characterCount() - 1)
        if span is None:
            continue
        cursor = QTextCursor(document)
        cursor.setPosition(span[0])
        cursor.setPosition(span[1], QTextCursor.MoveMode.KeepAnchor)
        # Rendered answers end in a stray space or line end; nobody selects those.
        text = cursor.selection().toPlainText().rstrip()
        if text:
            parts.append(text)
    return "\n\n".join(parts)


def word_at(document: QTextDocument, position: int) -> tuple[int, int]:
    """The word around ``position`` (a double click), as (start, end)."""
    cursor = QTextCursor(document)
    cursor.setPosition(position)
    cursor.select(QTextCursor.SelectionType.WordUnderCursor)
    if not cursor.hasSelection():
        return position, position
    return cursor.selectionStart(), cursor.selectionEnd()


def paragraph_at(document: QTextDocument, position: int) -> tuple[int, int]:
    """The paragraph around ``position`` (a triple click), as (start, end)."""
    block = document.findBlock(position)
    return block.position(), block.position() + max(0, block.length() - 1)
