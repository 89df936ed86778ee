"""The read-only diff of one changed file: unified or side by side, highlighted.

The diff is worked out off the GUI thread (``change_diff`` revalidates and reads
the file, ``app.core.changes.line_match`` compares up to 1 MiB of text within a work
budget) together with the colours of every shown line; the GUI thread only
lays the finished text out. Diffs have one thread of their own, never the
previews' pool, and closing a view cancels the diff it was waiting for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from pygments.token import Token, _TokenType  # type: ignore[import-untyped]
from PySide6.QtCore import (
    QCoreApplication,
    QObject,
    QRunnable,
    Qt,
    QThreadPool,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QPainter,
    QPaintEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.changes.diffs import Diff, DiffLine, LineKind, NoDiff, NoDiffReason
from app.core.filetype.sizes import counted
from app.core.trust.display_names import display_name
from previewers.highlight import (
    StylePalette,
    TokenLook,
    lexer_for_name,
    style_name_for,
)

# Colour spans are worked out for this much shown text; past it the lines keep
# their added/removed backgrounds and are left uncoloured.
MAX_COLOURED_CHARS: Final = 400_000
SLICE_LINES: Final = 2000
Mode = Literal["unified", "side_by_side"]

_BACKGROUNDS: Final = {
    # (light, dark) backgrounds of removed, added and hunk-header lines
    "removed": ("#ffebe9", "#4b1d1f"),
    "added": ("#e6ffec", "#1c3a26"),
    "header": ("#ddf4ff", "#1d3047"),
}


@dataclass(frozen=True)
class ShownLine:
    """One line of a laid-out diff column: its text and how it is coloured."""

    text: str
    kind: LineKind | Literal["header", "filler"]
    gutter: int  # characters of line numbers and mark before the file's text
    spans: tuple[tuple[int, int, _TokenType], ...] = ()


@dataclass(frozen=True)
class DiffLayout:
    """A diff as the view shows it: the unified column and the two side columns."""

    diff: Diff
    unified: tuple[ShownLine, ...]
    left: tuple[ShownLine, ...]
    right: tuple[ShownLine, ...]


def _number(value: int | None, width: int) -> str:
    return " " * width if value is None else f"{value:>{width}}"


def _spans_by_line(
    name: str, lines: Sequence[str], budget: list[int]
) -> list[tuple[tuple[int, int, _TokenType], ...]]:
    """Token spans of each line (the file's own lexer), while the budget lasts.

    Lines are lexed a slice at a time, so a hunk larger than the budget is
    coloured up to it instead of not at all.
    """
    found: list[tuple[tuple[int, int, _TokenType], ...]] = [() for _ in lines]
    lexer = lexer_for_name(name)
    if lexer is None:
        return found
    for first in range(0, len(lines), SLICE_LINES):
        piece = lines[first : first + SLICE_LINES]
        size = sum(len(line) + 1 for line in piece)
        if size > budget[0]:
            break
        budget[0] -= size
        spans: list[list[tuple[int, int, _TokenType]]] = [[] for _ in piece]
        row = column = 0
        for token, value in lexer.get_tokens("\n".join(piece)):
            for index, part in enumerate(value.split("\n")):
                if index:
                    row, column = row + 1, 0
                if part and row < len(piece) and token is not Token.Text:
                    spans[row].append((column, len(part), token))
                column += len(part)
        found[first : first + len(piece)] = [tuple(each) for each in spans]
    return found


class _CancelledError(Exception):
    pass


def lay_out(diff: Diff, cancelled: threading.Event | None = None) -> DiffLayout:
    """The unified and side-by-side columns of ``diff``, with colour spans.

    Raises ``_CancelledError`` between hunks once ``cancelled`` is set.
    """
    last = max(
        (
            line.old_number or line.new_number or 0
            for hunk in diff.hunks
            for line in hunk.lines
        ),
        default=0,
    )
    width = max(3, len(str(last)))
    budget = [MAX_COLOURED_CHARS]
    unified: list[ShownLine] = []
    left: list[ShownLine] = []
    right: list[ShownLine] = []
    marks = {"context": " ", "added": "+", "removed": "-"}
    for hunk, rows in zip(diff.hunks, diff.side_by_side(), strict=True):
        if cancelled is not None and cancelled.is_set():
            raise _CancelledError
        header = ShownLine(hunk.header, "header", 0)
        unified.append(header)
        left.append(header)
        right.append(header)
        spans = _spans_by_line(diff.path, [line.text for line in hunk.lines], budget)
        gutter = 2 * width + 4
        for line, line_spans in zip(hunk.lines, spans, strict=True):
            prefix = (
                f"{_number(line.old_number, width)} "
                f"{_number(line.new_number, width)} {marks[line.kind]} "
            )
            unified.append(ShownLine(prefix + line.text, line.kind, gutter, line_spans))
        for column, side in ((left, "old"), (right, "new")):
            texts = [
                getattr(row, side).text if getattr(row, side) is not None else ""
                for row in rows
            ]
            side_spans = _spans_by_line(diff.path, texts, budget)
            for row, row_spans in zip(rows, side_spans, strict=True):
                shown: DiffLine | None = getattr(row, side)
                if shown is None:
                    column.append(ShownLine("", "filler", width + 1))
                    continue
                number = shown.old_number if side == "old" else shown.new_number
                column.append(
                    ShownLine(
                        f"{_number(number, width)} {shown.text}",
                        shown.kind,
                        width + 1,
                        row_spans,
                    )
                )
    return DiffLayout(diff, tuple(unified), tuple(left), tuple(right))


# -- the background job ------------------------------------------------------------


Compute = Callable[[threading.Event], Diff | NoDiff]
"""Works out a diff; stops soon (``NoDiff``, cancelled) once the event is set."""


def diff_pool() -> QThreadPool:
    """The one thread diffs are worked out on, so previews never wait for one.

    A diff is bounded in work, but a few opened at once still queue here
    rather than take the previews' pool. It belongs to the application, which
    waits for it when it ends.
    """
    app = QCoreApplication.instance()
    pool = app.findChild(QThreadPool, "diffs") if app is not None else None
    if pool is None:
        pool = QThreadPool(app)
        pool.setMaxThreadCount(1)
        pool.setObjectName("diffs")
    return pool


class _JobSignals(QObject):
    done = Signal(object, object)  # job, DiffLayout | NoDiff


class _DiffJob(QRunnable):
    def __init__(self, compute: Compute) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.signals = _JobSignals()
        self.cancelled = threading.Event()
        self._compute = compute

    def run(self) -> None:
        stopped = NoDiff(NoDiffReason.CANCELLED, "the comparison was stopped")
        try:
            found = self._compute(self.cancelled)
            result: DiffLayout | NoDiff = (
                lay_out(found, self.cancelled) if isinstance(found, Diff) else found
            )
        except _CancelledError:
            result = stopped
        except Exception as error:  # any failure is a sentence, never a crash
            result = NoDiff(
                NoDiffReason.REFUSED, f"the diff could not be made ({error})"
            )
        self.signals.done.emit(self, result)


# -- the widgets -----------------------------------------------------------------


class _LineColours(QSyntaxHighlighter):
    """Colours each block from the ``ShownLine`` of its number; lexes nothing."""

    def __init__(self, document: QTextDocument, dark: bool) -> None:
        super().__init__(document)
        self.lines: tuple[ShownLine, ...] = ()
        self._dark = dark
        self._palette = StylePalette(style_name_for(dark))
        self._formats: dict[_TokenType, QTextCharFormat] = {}
        self._backgrounds = {
            kind: QColor(colours[1 if dark else 0])
            for kind, colours in _BACKGROUNDS.items()
        }
        self._backgrounds["filler"] = QColor("#2d333b" if dark else "#f0f1f3")
        self._dim = QColor("#8b949e" if dark else "#6e7781")

    def _format(self, token: _TokenType) -> QTextCharFormat:
        found = self._formats.get(token)
        if found is None:
            look: TokenLook = self._palette.look(token)
            found = QTextCharFormat()
            if look.color:
                found.setForeground(QColor(look.color))
            if look.bold:
                found.setFontWeight(QFont.Weight.Bold)
            found.setFontItalic(look.italic)
            self._formats[token] = found
        return found

    def highlightBlock(self, text: str) -> None:
        number = self.currentBlock().blockNumber()
        if number >= len(self.lines):
            return
        line = self.lines[number]
        if line.gutter:
            dim = QTextCharFormat()
            dim.setForeground(self._dim)
            self.setFormat(0, min(line.gutter, len(text)), dim)
        for start, length, token in line.spans:
            self.setFormat(line.gutter + start, length, self._format(token))

    def background(self, number: int) -> QColor | None:
        """The whole-width colour of line ``number``: added, removed, header."""
        if number >= len(self.lines):
            return None
        return self._backgrounds.get(self.lines[number].kind)


class _Column(QPlainTextEdit):
    def __init__(self, dark: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.colours = _LineColours(self.document(), dark)

    def paintEvent(self, event: QPaintEvent) -> None:
        # Whole-width backgrounds for the visible lines only, under the text:
        # a 100,000-line diff costs no more to paint than a short one.
        painter = QPainter(self.viewport())
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        width = self.viewport().width()
        while block.isValid():
            top = self.blockBoundingGeometry(block).translated(offset)
            if top.top() > event.rect().bottom():
                break
            colour = self.colours.background(block.blockNumber())
            if colour is not None:
                painter.fillRect(0, int(top.top()), width, int(top.height()), colour)
            block = block.next()
        painter.end()
        super().paintEvent(event)

    def show_lines(self, lines: tuple[ShownLine, ...]) -> None:
        self.colours.lines = lines
        self.setPlainText("\n".join(line.text for line in lines))


class DiffView(QWidget):
    """The diff of one change; ``load`` starts the work, ``ready`` says it is shown.

    Signals:
        ready(): the diff, or the sentence saying why there is none, is shown.
    """

    ready = Signal()

    def __init__(
        self,
        path: str,
        *,
        dark: bool = False,
        pool: QThreadPool | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._pool = pool or diff_pool()
        self._job: _DiffJob | None = None
        self.layout_shown: DiffLayout | None = None
        self.title = QLabel(display_name(path))
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary = QLabel("Working out the diff…")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.unified_button = QPushButton("Unified")
        self.side_button = QPushButton("Side by side")
        self.copy_button = QPushButton("Copy diff")
        modes = QButtonGroup(self)
        for button in (self.unified_button, self.side_button):
            button.setCheckable(True)
            button.setEnabled(False)
            modes.addButton(button)
        self.copy_button.setEnabled(False)
        self.unified_button.setChecked(True)
        self.unified_button.toggled.connect(self._on_mode)
        self.copy_button.clicked.connect(self._copy)

        self.unified = _Column(dark)
        self.left = _Column(dark)
        self.right = _Column(dark)
        # One scroll position for both sides: rows are paired line for line.
        left_bar, right_bar = (
            self.left.verticalScrollBar(),
            self.right.verticalScrollBar(),
        )
        left_bar.valueChanged.connect(right_bar.setValue)
        right_bar.valueChanged.connect(left_bar.setValue)
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.left)
        sides.addWidget(self.right)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.unified)
        self.stack.addWidget(sides)

        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        for button in (self.unified_button, self.side_button, self.copy_button):
            top.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.stack, 1)

    @property
    def mode(self) -> Mode:
        return "unified" if self.unified_button.isChecked() else "side_by_side"

    def load(self, compute: Compute) -> None:
        """Run ``compute`` (it revalidates and reads) on the pool, then show it.

        ``compute`` gets the job's cancel event: set when the view closes, is
        destroyed, or loads something else.
        """
        self.cancel()
        job = _DiffJob(compute)
        job.signals.done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)
        # A view deleted with its window still stops the work it started.
        self.destroyed.connect(job.cancelled.set)
        self._job = job
        self._pool.start(job)

    def cancel(self) -> None:
        """Stop the diff being worked out; a job not yet started never runs."""
        job, self._job = self._job, None
        if job is not None:
            job.cancelled.set()
            self._pool.tryTake(job)

    def _on_done(self, job: _DiffJob, result: DiffLayout | NoDiff) -> None:
        if job is not self._job:
            return
        self._job = None
        self.show_result(result)

    def show_result(self, result: DiffLayout | NoDiff) -> None:
        if isinstance(result, NoDiff):
            self.layout_shown = None
            self.summary.setText(f"No diff is shown: {result.message}.")
            self.stack.hide()
        elif result.diff.identical:
            self.layout_shown = result
            self.summary.setText("The turn left the file's text as it was.")
            self.stack.hide()
        else:
            self.layout_shown = result
            diff = result.diff
            hunks = len(diff.hunks)
            self.summary.setText(
                f"+{diff.added} \u2212{diff.removed} lines, "
                f"in {counted(hunks, 'place')}"
            )
            self.unified.show_lines(result.unified)
            self.left.show_lines(result.left)
            self.right.show_lines(result.right)
            for button in (self.unified_button, self.side_button, self.copy_button):
                button.setEnabled(True)
            self.stack.show()
        self.ready.emit()

    def _on_mode(self) -> None:
        self.stack.setCurrentIndex(0 if self.mode == "unified" else 1)

    def _copy(self) -> None:
        if self.layout_shown is not None:
            QGuiApplication.clipboard().setText(self.layout_shown.diff.unified_text())


class DiffDialog(QDialog):
    """A window around one ``DiffView``, closed with Escape like any dialog."""

    def __init__(
        self, path: str, *, dark: bool = False, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Changes to {display_name(path)}")
        self.view = DiffView(path, dark=dark, parent=self)
        # Closed by any means (Escape, the close button, close()): the diff
        # still being worked out is cancelled.
        self.finished.connect(self.view.cancel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.view)
        self.resize(960, 640)
