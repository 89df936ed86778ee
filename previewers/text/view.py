"""The code and text view for files up to 2 MiB: gutter, visible-window highlighting.

A read-only ``QPlainTextEdit`` holds the whole text (selection, copy, wrapping
and cursor movement come with it). Highlighting does not use
``QSyntaxHighlighter``, which lexes every block as soon as text is set: only
the blocks on screen get formats, set on their layouts the way that class does
it, when they first scroll into view. Find matches are found once per needle
in the Python text and only the visible ones are painted.
"""

from __future__ import annotations

import bisect
import re
import time

from PySide6.QtCore import QRect, QSize, Qt, Signal, Slot
from PySide6.QtGui import (
    QColor,
    QFont,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QWidget,
)

from previewers.highlight import Highlighter
from previewers.text.paged_view import TokenFormats

MATCH_LIMIT = 100_000
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def normalise_text(text: str) -> str:
    """Line ends as LF (CRLF, and lone CR of old Mac files), NUL as U+FFFD."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")


def find_matches(text: str, needle: str) -> list[tuple[int, int]]:
    """(start, length) of case-insensitive matches, in QTextDocument positions.

    A document counts UTF-16 units, so characters beyond U+FFFF count twice.
    """
    if not needle:
        return []
    pattern = re.compile(re.escape(needle), re.IGNORECASE)
    astral = _ASTRAL.search(text) is not None
    found: list[tuple[int, int]] = []
    seen, extra = 0, 0
    for match in pattern.finditer(text):
        start, end = match.span()
        if astral:
            extra += len(_ASTRAL.findall(text, seen, start))
            seen = start
            inner = len(_ASTRAL.findall(text, start, end))
            found.append((start + extra, end - start + inner))
        else:
            found.append((start, end - start))
        if len(found) >= MATCH_LIMIT:
            break
    return found


class LineNumberGutterWidget(QWidget):
    """The line numbers beside a ``CodeTextView``; it paints, the view places it."""

    def __init__(self, view: CodeTextView) -> None:
        super().__init__(view)
        self._view = view

    def sizeHint(self) -> QSize:
        return QSize(self._view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self._view.paint_gutter(self, event)


class CodeTextView(QPlainTextEdit):
    """Read-only text with line numbers, on-demand highlighting and find matches.

    Signals:
        highlighted(int): blocks got formats; how many.
    """

    highlighted = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.gutter = LineNumberGutterWidget(self)
        self.highlighter: Highlighter | None = None
        self.formats: TokenFormats | None = None
        self._done: set[int] = set()
        self._highlighting = False
        self.matches: list[tuple[int, int]] = []
        self.current_match = -1
        self._matches_shown: object = None
        self.first_text_paint: float | None = None
        self.blockCountChanged.connect(self._on_self_block_count_changed)
        self.updateRequest.connect(self._on_self_update_request)
        self._on_self_block_count_changed(0)

    # -- line numbers ---------------------------------------------------------------

    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 12 + self.fontMetrics().horizontalAdvance("9") * digits

    def paint_gutter(self, gutter: QWidget, event: QPaintEvent) -> None:
        painter = QPainter(gutter)
        palette = self.palette()
        painter.fillRect(event.rect(), palette.color(QPalette.ColorRole.AlternateBase))
        painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
        painter.setFont(self.font())
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        top = self.blockBoundingGeometry(block).translated(offset).top()
        height = self.fontMetrics().height()
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible():
                painter.drawText(
                    QRect(0, int(top), gutter.width() - 6, height),
                    int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop),
                    str(block.blockNumber() + 1),
                )
            top += self.blockBoundingRect(block).height()
            block = block.next()
        painter.end()

    @Slot(int)
    def _on_self_block_count_changed(self, _count: int) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)
        area = self.contentsRect()
        self.gutter.setGeometry(
            QRect(area.left(), area.top(), self.gutter_width(), area.height())
        )

    def setDocument(self, document: QTextDocument) -> None:
        """Show ``document``, made elsewhere: its lines numbered and coloured anew."""
        document.setDefaultFont(self.font())  # in this view's font, as its own
        super().setDocument(document)
        self._done.clear()
        # A new document does not say its block count changed.
        self._on_self_block_count_changed(self.blockCount())

    @Slot(QRect, int)
    def _on_self_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())
        self.highlight_visible()
        if self.matches:
            self._show_visible_matches()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        area = self.contentsRect()
        self.gutter.setGeometry(
            QRect(area.left(), area.top(), self.gutter_width(), area.height())
        )

    def setFont(self, font: QFont) -> None:  # type: ignore[override]
        super().setFont(font)
        self._on_self_block_count_changed(0)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.first_text_paint is None and not self.document().isEmpty():
            self.first_text_paint = time.perf_counter()

    # -- highlighting -----------------------------------------------------------------

    def set_highlighter(self, highlighter: Highlighter, formats: TokenFormats) -> None:
        self.highlighter, self.formats = highlighter, formats
        highlighter.lead_source = self._block_texts
        self.highlight_visible()

    def rehighlight_visible(self) -> None:
        """Forget what was highlighted (new checkpoints arrived) and redo the screen."""
        self._done.clear()
        self.highlight_visible()

    def visible_block_range(self) -> tuple[int, int]:
        block = self.firstVisibleBlock()
        first = block.blockNumber()
        top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        bottom = self.viewport().height()
        last = first
        while block.isValid() and top <= bottom:
            last = block.blockNumber()
            top += self.blockBoundingRect(block).height()
            block = block.next()
        return first, last

    def highlight_visible(self) -> int:
        """Give formats to the visible blocks that have none yet; how many were done."""
        if self.highlighter is None or self.formats is None or self._highlighting:
            return 0
        first, last = self.visible_block_range()
        todo = [n for n in range(first, last + 1) if n not in self._done]
        if not todo:
            return 0
        self._highlighting = True
        try:
            start, end = todo[0], todo[-1]
            lines = self._block_texts(start, end - start + 1)
            spans, exact = self.highlighter.highlight(lines, start)
            document = self.document()
            block = document.findBlockByNumber(start)
            for line_spans in spans:
                if block.blockNumber() in todo:
                    block.layout().setFormats(self.formats.ranges(line_spans))
                    document.markContentsDirty(block.position(), block.length())
                    if exact:
                        self._done.add(block.blockNumber())
                block = block.next()
        finally:
            self._highlighting = False
        self.highlighted.emit(len(todo))
        return len(todo)

    def _block_texts(self, first: int, count: int) -> list[str]:
        block = self.document().findBlockByNumber(first)
        texts: list[str] = []
        while block.isValid() and len(texts) < count:
            texts.append(block.text())
            block = block.next()
        return texts

    # -- find -------------------------------------------------------------------------

    def set_matches(self, matches: list[tuple[int, int]]) -> None:
        self.matches = matches
        self.current_match = -1
        self._show_visible_matches()

    def step_match(self, backward: bool) -> int:
        """Select the next (or previous) match after the cursor, wrapping; its index."""
        if not self.matches:
            return -1
        cursor = self.textCursor()
        starts = [start for start, _ in self.matches]
        if backward:
            index = bisect.bisect_left(starts, cursor.selectionStart()) - 1
        else:
            index = bisect.bisect_right(starts, cursor.selectionStart())
            if self.current_match < 0 and not cursor.hasSelection():
                index = bisect.bisect_left(starts, cursor.position())
        index %= len(self.matches)
        self.select_match(index)
        return index

    def select_match(self, index: int) -> None:
        start, length = self.matches[index]
        cursor = QTextCursor(self.document())
        cursor.setPosition(start)
        cursor.setPosition(start + length, QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        self.centerCursor()
        self.current_match = index
        self._show_visible_matches()

    def _show_visible_matches(self) -> None:
        # Setting selections asks for a repaint, which lands here again: only a
        # new visible range or a new set of matches changes anything.
        shown = (self.visible_block_range(), id(self.matches), self.current_match)
        if shown == self._matches_shown:
            return
        self._matches_shown = shown
        if not self.matches:
            self.setExtraSelections([])
            return
        first, last = shown[0]
        document = self.document()
        low = document.findBlockByNumber(first).position()
        end_block = document.findBlockByNumber(last)
        high = end_block.position() + end_block.length()
        starts = [start for start, _ in self.matches]
        colour = QColor(self.palette().color(QPalette.ColorRole.Highlight))
        colour.setAlpha(70)
        selections = []
        for index in range(bisect.bisect_left(starts, low), len(starts)):
            start, length = self.matches[index]
            if start > high:
                break
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(document)
            cursor.setPosition(start)
            cursor.setPosition(start + length, QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            selection.format.setBackground(colour)
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, False)
            selections.append(selection)
        self.setExtraSelections(selections)


class GoToLineBarWidget(QWidget):
    """A one-line "go to line" bar.

    Signals:
        lineRequested(int): go to this 1-based line.
        closeRequested(): the user closed the bar.
    """

    lineRequested = Signal(int)
    closeRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        label = QLabel("Go to line:", self)
        label.setTextFormat(Qt.TextFormat.PlainText)
        self.field = QLineEdit(self)
        self.field.setAccessibleName("Line number")
        self.field.setMaximumWidth(140)
        self.range_label = QLabel(self)
        self.range_label.setTextFormat(Qt.TextFormat.PlainText)
        go = QPushButton("Go", self)
        go.setAccessibleName("Go to line")
        close = QPushButton("Close", self)
        close.setAccessibleName("Close go to line bar")
        for widget in (label, self.field, self.range_label, go, close):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.field.returnPressed.connect(self._on_go_clicked)
        go.clicked.connect(self._on_go_clicked)
        close.clicked.connect(self.closeRequested)

    def set_total(self, total: int, exact: bool = True) -> None:
        more = "" if exact else "+"
        self.range_label.setText(f"of {total:,}{more}")

    @Slot()
    def _on_go_clicked(self) -> None:
        text = self.field.text().strip().replace(",", "")
        if text.isdigit():
            self.lineRequested.emit(int(text))
        else:
            self.range_label.setText("Type a line number")


class TextNoticeWidget(QFrame):
    """A plain-text notice above the text, with an optional Reload button.

    Signals:
        reloadClicked(): the user pressed Reload.
    """

    reloadClicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.setAccessibleName("Text notice")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.reload_button = QPushButton("Reload", self)
        self.reload_button.setAccessibleName("Reload the changed file")
        self.reload_button.clicked.connect(self.reloadClicked)
        self.reload_button.hide()
        layout.addWidget(self.label, 1)
        layout.addWidget(self.reload_button)
        self.hide()

    def add(self, text: str) -> None:
        """Show ``text`` (below any notice already shown)."""
        current = self.label.text() if not self.isHidden() else ""
        if text in current.split("\n"):
            return
        self.label.setText(f"{current}\n{text}" if current else text)
        self.show()

    def text(self) -> str:
        return self.label.text() if not self.isHidden() else ""
