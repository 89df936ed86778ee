"""The large-file text view: paints only the visible lines of a file of any size.

A ``QPlainTextEdit`` holds every line as a laid-out block (about 740 bytes a
line), so a 1 GiB log would need gigabytes; swapping pages in and out of one
at the edges would make its scrollbar describe a page, not the file. This view
is a ``QAbstractScrollArea`` whose vertical range is the file's line count: each
scroll asks its ``LineSource`` for the few lines on screen (a read of some KiB
through the sparse line index) and lays out just those. Selection is by whole
lines, which is what people copy from logs.

Before the line index exists the source is the first page, held in memory; the
index then replaces it and the top line stays where it was. A read that finds
the file changed (``FenceBrokenError``) freezes the view: what is shown stays,
nothing more is read, and ``fenceBroken`` tells the preview to ask for a reload.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from PySide6.QtCore import QPointF, QRectF, Qt, Signal, Slot
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextCharFormat,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

from app.formats.line_index import CUT_MARK, LineIndex
from app.formats.text_pages import FenceBrokenError
from previewers.highlight import Highlighter, Span, StylePalette
from previewers.widget import PreviewReleasedError

DISPLAY_LINE_CHARS = 10_000
"""A line is shown up to this many characters, then ``CUT_MARK``."""
COPY_LINE_LIMIT = 100_000
_BLOCK_LINES = 64
_CACHE_BLOCKS = 256
_TAB = 8
_GUTTER_PAD = 8
MAX_LINE_RANGES = 1_000
"""A line keeps the formats of its first this many tokens; the rest stays plain.

Qt lays out and paints a line range by range: a 10,000-character line of 6,000
tokens took about 100 ms of the GUI thread to lay out and paint, and 40 ms with
its first 1,000 ranges."""


def display_line(line: str) -> str:
    """A line as painted: NUL shown as U+FFFD, tabs expanded, long lines cut."""
    if len(line) > DISPLAY_LINE_CHARS:
        line = line[:DISPLAY_LINE_CHARS] + CUT_MARK
    return line.replace("\x00", "\ufffd").expandtabs(_TAB)


def split_like_index(text: str) -> list[str]:
    """Lines of ``text`` split the way ``LineIndex`` counts them.

    The first line end decides: a lone CR makes a CR-only file; otherwise lines
    end at LF and a CR before it is dropped.
    """
    lf, cr = text.find("\n"), text.find("\r")
    lone_cr = cr != -1 and (lf == -1 or cr < lf) and text[cr + 1 : cr + 2] != "\n"
    terminator = "\r" if lone_cr else "\n"
    lines = text.split(terminator)
    if lines and lines[-1] == "":
        lines.pop()
    if terminator == "\n":
        lines = [line.removesuffix("\r") for line in lines]
    return lines


class LineSource(Protocol):
    """Lines by number; ``lines`` may raise ``FenceBrokenError``."""

    total: int

    def lines(self, first: int, count: int) -> list[str]: ...


class MemoryLines:
    """Lines already in memory: the first page, or a small file with long lines."""

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines
        self.total = len(lines)

    def lines(self, first: int, count: int) -> list[str]:
        return self._lines[max(first, 0) : max(first, 0) + max(count, 0)]


class IndexedLines:
    """Lines read through a ``LineIndex``, in cached blocks of 64 lines.

    ``borrow`` lends the preview's file for the read, so closing the preview
    waits for it (and refuses reads after).
    """

    def __init__(
        self,
        index: LineIndex,
        borrow: Callable[[], AbstractContextManager[Any]],
    ) -> None:
        self.index = index
        self.total = index.total_lines
        self._borrow = borrow
        self._blocks: OrderedDict[int, list[str]] = OrderedDict()

    def _block(self, number: int) -> list[str]:
        block = self._blocks.get(number)
        if block is None:
            with self._borrow():
                block = self.index.lines(
                    number * _BLOCK_LINES,
                    _BLOCK_LINES,
                    max_line_chars=DISPLAY_LINE_CHARS,
                )
            self._blocks[number] = block
            if len(self._blocks) > _CACHE_BLOCKS:
                self._blocks.popitem(last=False)
        else:
            self._blocks.move_to_end(number)
        return block

    def lines(self, first: int, count: int) -> list[str]:
        first = max(first, 0)
        last = min(first + max(count, 0), self.total)
        found: list[str] = []
        for number in range(first // _BLOCK_LINES, (last - 1) // _BLOCK_LINES + 1):
            block = self._block(number)
            base = number * _BLOCK_LINES
            found.extend(block[max(first - base, 0) : last - base])
        return found


class TokenFormats:
    """``QTextCharFormat`` per token type, from a pygments style."""

    def __init__(self, dark: bool) -> None:
        from previewers.highlight import style_name_for

        self.palette = StylePalette(style_name_for(dark))
        self._formats: dict[object, QTextCharFormat] = {}

    def ranges(self, spans: Sequence[Span]) -> list[QTextLayout.FormatRange]:
        found: list[QTextLayout.FormatRange] = []
        for span in spans:
            if len(found) == MAX_LINE_RANGES:
                break
            fmt = self._formats.get(span.token)
            if fmt is None:
                fmt = self._format(span)
                self._formats[span.token] = fmt
            if fmt.isEmpty():
                continue
            item = QTextLayout.FormatRange()
            item.start, item.length, item.format = span.start, span.length, fmt
            found.append(item)
        return found

    def _format(self, span: Span) -> QTextCharFormat:
        look = self.palette.look(span.token)
        fmt = QTextCharFormat()
        if look.color:
            fmt.setForeground(QColor(look.color))
        if look.bold:
            fmt.setFontWeight(QFont.Weight.Bold)
        if look.italic:
            fmt.setFontItalic(True)
        if look.underline:
            fmt.setFontUnderline(True)
        return fmt


def _x_of(found: object) -> float:
    # PySide returns (x, cursor) for the int overload; older builds a float.
    return float(found[0] if isinstance(found, tuple) else found)  # type: ignore[arg-type]


class PagedTextView(QAbstractScrollArea):
    """Paints the visible lines of a ``LineSource``, with numbers and line selection.

    Signals:
        fenceBroken(str): a read found the file changed; the view froze.
        topLineChanged(int): the first visible line (0-based) changed.
    """

    fenceBroken = Signal(str)
    topLineChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.viewport().setCursor(Qt.CursorShape.IBeamCursor)
        self._source: LineSource = MemoryLines([])
        self._shown: list[str] = []
        self._layouts: list[QTextLayout] = []
        self._shown_top = 0
        self._frozen = False
        self._anchor = -1
        self._cursor = -1
        self._match: tuple[int, int, int] | None = None
        self.highlighter: Highlighter | None = None
        self.formats: TokenFormats | None = None
        self.first_text_paint: float | None = None
        self.verticalScrollBar().valueChanged.connect(self._on_scroll_value_changed)
        self.horizontalScrollBar().valueChanged.connect(self._on_hscroll_changed)
        self.setFont(self.font())

    # -- content --------------------------------------------------------------------

    def set_source(self, source: LineSource) -> None:
        """Show ``source``, keeping the top line (the first page is line 0 on)."""
        if self._frozen:
            return
        self._source = source
        self._update_ranges()
        self._refresh()

    def source(self) -> LineSource:
        return self._source

    def is_frozen(self) -> bool:
        return self._frozen

    def setFont(self, font: QFont) -> None:  # type: ignore[override]
        super().setFont(font)
        self.viewport().setFont(font)
        self._metrics = QFontMetricsF(font)
        self._line_height = max(1.0, self._metrics.lineSpacing())
        self.verticalScrollBar().setSingleStep(1)
        if hasattr(self, "_source"):
            self._update_ranges()
            self._refresh(force=True)

    def top_line(self) -> int:
        return self.verticalScrollBar().value()

    def visible_count(self) -> int:
        return max(1, int(self.viewport().height() // self._line_height))

    def shown_lines(self) -> list[str]:
        """The lines on screen, as painted (for tests and copy)."""
        return list(self._shown)

    def selected_range(self) -> tuple[int, int] | None:
        if self._anchor < 0:
            return None
        return min(self._anchor, self._cursor), max(self._anchor, self._cursor)

    def go_to_line(self, line: int) -> None:
        """Select ``line`` (0-based) and scroll it to a third of the height."""
        line = min(max(line, 0), max(self._source.total - 1, 0))
        self._anchor = self._cursor = line
        self._scroll_to(line)
        self.viewport().update()

    def show_match(self, line: int, column: int, length: int) -> None:
        self._match = (line, column, length)
        self._anchor = self._cursor = -1
        self._scroll_to(line)
        self.viewport().update()

    def current_match(self) -> tuple[int, int] | None:
        """(line, column) of the match shown, if any."""
        return self._match[:2] if self._match is not None else None

    def clear_match(self) -> None:
        self._match = None
        self.viewport().update()

    def selected_text(self) -> str:
        found = self.selected_range()
        if found is None:
            return ""
        first, last = found
        count = min(last - first + 1, COPY_LINE_LIMIT)
        try:
            return "\n".join(self._source.lines(first, count))
        except FenceBrokenError as error:
            self._freeze(str(error))
            return ""

    def copy_selection(self) -> str:
        text = self.selected_text()
        if text:
            QGuiApplication.clipboard().setText(text)
        return text

    # -- reading ----------------------------------------------------------------------

    def _scroll_to(self, line: int) -> None:
        visible = self.visible_count()
        if not self.top_line() <= line < self.top_line() + visible:
            self.verticalScrollBar().setValue(max(0, line - visible // 3))

    def _update_ranges(self) -> None:
        bar = self.verticalScrollBar()
        bar.setPageStep(self.visible_count())
        bar.setRange(0, max(0, self._source.total - self.visible_count() + 1))
        self._gutter = (
            self._metrics.horizontalAdvance("9" * len(str(max(self._source.total, 1))))
            + 2 * _GUTTER_PAD
        )

    def _refresh(self, force: bool = False) -> None:
        if self._frozen:
            return
        top, count = self.top_line(), self.visible_count() + 1
        if (
            not force
            and top == self._shown_top
            and len(self._shown) >= min(count, self._source.total - top)
        ):
            return
        try:
            lines = self._source.lines(top, count)
        except FenceBrokenError as error:
            self._freeze(str(error))
            return
        except PreviewReleasedError:
            self._frozen = True
            return
        self._shown_top = top
        self._shown = [display_line(line) for line in lines]
        self._layouts = self._lay_out(self._shown, top)
        widest = max((layout.maximumWidth() for layout in self._layouts), default=0)
        hbar = self.horizontalScrollBar()
        hbar.setRange(0, max(0, int(widest) - self._text_width() + 20))
        hbar.setPageStep(self._text_width())
        self.viewport().update()

    def _lay_out(self, lines: list[str], top: int) -> list[QTextLayout]:
        ranges: list[list[QTextLayout.FormatRange]] = [[] for _ in lines]
        if self.highlighter is not None and self.formats is not None:
            spans, _ = self.highlighter.highlight(lines, top, exact=False)
            ranges = [self.formats.ranges(line_spans) for line_spans in spans]
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.NoWrap)
        layouts = []
        for text, formats in zip(lines, ranges, strict=True):
            layout = QTextLayout(text, self.font())
            layout.setTextOption(option)
            layout.setCacheEnabled(True)
            if formats:
                layout.setFormats(formats)
            layout.beginLayout()
            line = layout.createLine()
            if line.isValid():
                line.setLineWidth(1e7)
            layout.endLayout()
            layouts.append(layout)
        return layouts

    def _freeze(self, reason: str) -> None:
        if self._frozen:
            return
        self._frozen = True
        bar = self.verticalScrollBar()
        bar.blockSignals(True)
        bar.setValue(self._shown_top)
        bar.blockSignals(False)
        bar.setEnabled(False)
        self.fenceBroken.emit(reason)

    def _text_width(self) -> int:
        return max(1, self.viewport().width() - int(self._gutter))

    # -- events -----------------------------------------------------------------------

    @Slot(int)
    def _on_scroll_value_changed(self, value: int) -> None:
        if self._frozen:
            return
        self._refresh()
        self.topLineChanged.emit(value)

    @Slot(int)
    def _on_hscroll_changed(self, _value: int) -> None:
        self.viewport().update()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._frozen:
            self._update_ranges()
            self._refresh(force=True)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self.viewport())
        palette = self.palette()
        rect = self.viewport().rect()
        painter.fillRect(rect, palette.color(QPalette.ColorRole.Base))
        gutter = QRectF(0, 0, self._gutter, rect.height())
        painter.fillRect(gutter, palette.color(QPalette.ColorRole.AlternateBase))
        selected = self.selected_range()
        left = self._gutter + 4 - self.horizontalScrollBar().value()
        number_pen = palette.color(QPalette.ColorRole.PlaceholderText)
        text_pen = palette.color(QPalette.ColorRole.Text)
        for row, layout in enumerate(self._layouts):
            line = self._shown_top + row
            y = row * self._line_height
            pen = text_pen
            if selected is not None and selected[0] <= line <= selected[1]:
                band = QRectF(self._gutter, y, rect.width(), self._line_height)
                painter.fillRect(band, palette.color(QPalette.ColorRole.Highlight))
                pen = palette.color(QPalette.ColorRole.HighlightedText)
            if self._match is not None and self._match[0] == line:
                self._paint_match(painter, layout, left, y)
            painter.setClipRect(QRectF(self._gutter, 0, rect.width(), rect.height()))
            painter.setPen(pen)
            layout.draw(painter, QPointF(left, y))
            painter.setClipping(False)
            painter.setPen(number_pen)
            painter.drawText(
                QRectF(0, y, self._gutter - _GUTTER_PAD, self._line_height),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                str(line + 1),
            )
        painter.end()
        if self._layouts and self.first_text_paint is None:
            self.first_text_paint = time.perf_counter()

    def _paint_match(
        self, painter: QPainter, layout: QTextLayout, left: float, y: float
    ) -> None:
        assert self._match is not None
        _, column, length = self._match
        line = layout.lineAt(0)
        if not line.isValid():
            return
        start = _x_of(line.cursorToX(column))
        end = _x_of(line.cursorToX(column + length))
        colour = QColor(self.palette().color(QPalette.ColorRole.Highlight))
        colour.setAlpha(110)
        painter.fillRect(
            QRectF(left + start, y, end - start, self._line_height), colour
        )

    def _line_at(self, y: float) -> int:
        line = self._shown_top + int(y // self._line_height)
        return min(line, max(self._source.total - 1, 0))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self._source.total:
            return super().mousePressEvent(event)
        line = self._line_at(event.position().y())
        shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        if not shift or self._anchor < 0:
            self._anchor = line
        self._cursor = line
        self.viewport().update()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton and self._anchor >= 0:
            self._cursor = self._line_at(max(0.0, event.position().y()))
            self.viewport().update()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()
            return
        if event.matches(QKeySequence.StandardKey.SelectAll):
            self._anchor, self._cursor = 0, max(self._source.total - 1, 0)
            self.viewport().update()
            return
        bar = self.verticalScrollBar()
        steps = {
            Qt.Key.Key_Up: -1,
            Qt.Key.Key_Down: 1,
            Qt.Key.Key_PageUp: -bar.pageStep(),
            Qt.Key.Key_PageDown: bar.pageStep(),
        }
        key = Qt.Key(event.key())
        if key in steps:
            bar.setValue(bar.value() + steps[key])
        elif key == Qt.Key.Key_Home:
            bar.setValue(0)
        elif key == Qt.Key.Key_End:
            bar.setValue(bar.maximum())
        else:
            super().keyPressEvent(event)
