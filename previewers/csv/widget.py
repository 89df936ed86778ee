"""The CSV and TSV preview: the first rows at once, the rest once indexed.

The format (delimiter, header) comes from the engine's sniffing, and "First row
is header" overrides the header guess by reading the table again; the first
``HEAD_ROWS`` rows are read without an index and shown while the index is built
on a worker, with its progress in the status line. Rows are then read in blocks
as the view scrolls. Sorting needs every row in memory, so it is on only for
files up to ``SORT_LIMIT_BYTES``. A file that changes while it is read stops the
reading: what is shown stays, and a notice asks for a reload.

The index scan is pure Python byte work that holds the interpreter lock; every
cell the view paints needs that lock too, so a scan running flat out makes a
repaint wait for it many times over. The scan therefore starts once the first
rows are painted (waiting at most ``_FIRST_PAINT_S``, and not at all for a table
that is not on screen), and steps aside (sleeps, releasing the lock) while the
table was painted within the last ``_BUSY_S``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.core.filetype.sizes import counted
from app.core.trust.safeio import VerifiedFile
from app.formats.csv_index import (
    SORT_LIMIT_BYTES,
    CsvError,
    CsvFile,
    CsvIndex,
    Row,
    cells_to_tsv,
)
from app.formats.text_pages import BuildCancelledError, FenceBrokenError
from previewers.context import STANDALONE, PreviewContext
from previewers.csv.model import FULL_TEXT_ROLE, CsvTableModel, UseClock
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget
from previewers.widgets import FindBarWidget, notice_label, plain_tooltip

HEAD_ROWS = 200
_PROGRESS_MS = 100
_BUSY_S = 0.05
_FIRST_PAINT_S = 0.5
_STEP_ASIDE_S = 0.002
_STEP_ASIDE_MAX_S = 0.25
_DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}


@dataclass(frozen=True)
class CsvHead:
    """The opened table and its first rows, before any index."""

    table: CsvFile
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class IndexOutcome:
    """The finished index, or why it stopped (the file changed)."""

    index: CsvIndex | None
    problem: str = ""
    generation: int = 0


@dataclass(frozen=True)
class FindOutcome:
    needle: str
    found: tuple[int, int] | None
    error: str


@dataclass(frozen=True)
class SortOutcome:
    column: int
    descending: bool
    order: tuple[int, ...] | None
    problem: str = ""
    generation: int = 0


def _yield_to_view(clock: UseClock, cancelled: threading.Event) -> None:
    """On a worker: wait while the view is painting (see the module docstring).

    Waits at most ``_STEP_ASIDE_MAX_S`` at a time, so a view that keeps painting
    (a long scroll through the first rows) slows the index but never stops it.
    """
    until = time.monotonic() + _STEP_ASIDE_MAX_S
    while (
        time.monotonic() - clock.last < _BUSY_S
        and time.monotonic() < until
        and not cancelled.is_set()
    ):
        time.sleep(_STEP_ASIDE_S)


class CsvPreviewWidget(PreviewWidget):
    """A table with a status line (counts, format, indexing) and a notice bar.

    Signals: those of ``PreviewWidget``.
    """

    def __init__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None = None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> None:
        super().__init__(source, file, parent, context=context)
        self.model: CsvTableModel | None = None
        self.index: CsvIndex | None = None
        self._table: CsvFile | None = None
        self._progress = 0.0  # written by the index worker, read by a timer
        self._sort_state: tuple[int, bool] | None = None
        self._index_done = False
        self._generation = 0  # a table read again (header choice) drops old work
        self._header_choice: bool | None = None
        container = QWidget(self)
        layout = QVBoxLayout(container)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.notice = notice_label(container, "Table notice")
        self.view = QTableView(container)
        self.view.setAccessibleName(f"Table of {source.name}")
        self.view.setWordWrap(False)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        vertical = self.view.verticalHeader()
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(self.fontMetrics().height() + 8)
        horizontal = self.view.horizontalHeader()
        horizontal.setDefaultSectionSize(140)
        horizontal.setSectionsClickable(False)
        horizontal.sectionClicked.connect(self._on_header_section_clicked)
        self.status = QLabel(container)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setAccessibleName("Table status")
        self.status.setContentsMargins(8, 3, 8, 3)
        self.status.setText("Reading…")
        self.find_bar = FindBarWidget(container)
        self.find_bar.hide()
        self.find_bar.searchRequested.connect(self._on_find_bar_search_requested)
        self.find_bar.cancelRequested.connect(self._on_find_bar_cancel_requested)
        self.find_bar.closeRequested.connect(self._on_find_bar_close_requested)
        self._search: threading.Event | None = None
        self._find_progress = 0.0  # written by the find worker, read by a timer
        self.header_box = QCheckBox("First row is header", container)
        self.header_box.setAccessibleName("First row is header")
        self.header_box.setToolTip(
            plain_tooltip("Whether the first row names the columns (a guess at first)")
        )
        self.header_box.setEnabled(False)
        self.header_box.toggled.connect(self._on_header_box_toggled)
        footer = QHBoxLayout()
        footer.setContentsMargins(0, 0, 8, 0)
        footer.addWidget(self.status, 1)
        footer.addWidget(self.header_box)
        layout.addWidget(self.notice)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.find_bar)
        layout.addLayout(footer)
        self.set_content(container)
        copy = QShortcut(QKeySequence(QKeySequence.StandardKey.Copy), self.view)
        copy.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        copy.activated.connect(self.copy_selection)
        self._timer = QTimer(self)
        self._timer.setInterval(_PROGRESS_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._find_timer = QTimer(self)
        self._find_timer.setInterval(_PROGRESS_MS)
        self._find_timer.timeout.connect(self._on_find_timer_timeout)
        self._read_head()

    # -- loading -------------------------------------------------------------------

    def _read_head(self) -> None:
        name, path = self.source.name, self.source.path
        header, generation = self._header_choice, self._generation

        def head_job(
            file: VerifiedFile, cancelled: threading.Event
        ) -> tuple[int, CsvHead | str]:
            try:
                table = CsvFile(file, name=name, path=path, header=header)
                return generation, CsvHead(table, tuple(table.head_rows(HEAD_ROWS)))
            except (CsvError, FenceBrokenError) as error:
                return generation, str(error)

        self.run_in_background(head_job, self._on_head_finished)

    @Slot(bool)
    def _on_header_box_toggled(self, checked: bool) -> None:
        """Read the table again with the first row as header, or as data."""
        self._header_choice = checked
        self._generation += 1
        self._timer.stop()
        self.index = None
        self._sort_state = None
        self._index_done = False
        self.header_box.setEnabled(False)
        self.status.setText("Reading…")
        self._read_head()

    @Slot(object)
    def _on_head_finished(self, result: tuple[int, CsvHead | str]) -> None:
        generation, head = result
        if generation != self._generation:
            return
        if isinstance(head, str):
            if self.is_loaded():
                self._show_notice(head)
            else:
                self.mark_failed(head)
            return
        table = self._table = head.table
        blocked = self.header_box.blockSignals(True)
        self.header_box.setChecked(table.header is not None)
        self.header_box.blockSignals(blocked)
        self.header_box.setEnabled(True)
        old = self.model
        self.model = CsvTableModel(
            table.header, table.column_count, list(head.rows), self
        )
        self.model.on_error = self._on_model_error
        clock = self.model.clock
        # A table not on screen is not painted: nothing to wait for.
        first_paint = _FIRST_PAINT_S if self.view.isVisible() else 0.0
        self.view.setModel(self.model)
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        if old is not None:
            old.deleteLater()
        self._show_status(indexing=0.0)
        self.mark_loaded()
        self._timer.start()

        def index_job(file: VerifiedFile, cancelled: threading.Event) -> IndexOutcome:
            def progress(done: int, total: int) -> None:
                self._progress = done / total if total else 1.0
                _yield_to_view(clock, cancelled)

            waited = time.monotonic() + first_paint
            while not clock.last and time.monotonic() < waited:
                if cancelled.wait(_STEP_ASIDE_S):
                    return IndexOutcome(None, "cancelled")
            _yield_to_view(clock, cancelled)
            try:
                built = CsvIndex.build(
                    table, progress=progress, cancelled=cancelled.is_set
                )
            except FenceBrokenError as error:
                return IndexOutcome(None, str(error), generation)
            except BuildCancelledError:
                return IndexOutcome(None, "cancelled", generation)
            return IndexOutcome(built, generation=generation)

        self.run_in_background(index_job, self._on_index_finished)

    @Slot(object)
    def _on_index_finished(self, outcome: IndexOutcome) -> None:
        if outcome.generation != self._generation:
            return
        self._timer.stop()
        self._index_done = True
        if outcome.index is None or self.model is None:
            self._show_notice(outcome.problem)
            self._show_status()
            return
        self.index = index = outcome.index
        self.model.set_fetcher(self._fetch_rows, index.row_count)
        # Qt shows an ascending arrow on column 0 by default: nothing is sorted yet.
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        if index.warnings:
            self._show_notice(" ".join(index.warnings))
        sortable = index.table.reader.size <= SORT_LIMIT_BYTES
        header = self.view.horizontalHeader()
        header.setSectionsClickable(sortable)
        header.setSortIndicatorShown(sortable)
        if not sortable:
            header.setToolTip(plain_tooltip("Sorting is off for files over 50 MiB."))
        self._show_status()

    def _fetch_rows(self, first: int, count: int) -> list[Row]:
        assert self.index is not None
        with self.borrow_file():
            return self.index.rows(first, count)

    def _on_model_error(self, error: Exception) -> None:
        if isinstance(error, FenceBrokenError):
            self._show_notice(f"{error} Rows not read yet are left empty.")
        else:
            self._show_notice(f"Rows could not be read: {error}")

    # -- status --------------------------------------------------------------------

    def _show_notice(self, text: str) -> None:
        if text and text != "cancelled":
            self.notice.setText(text)
            self.notice.show()

    def _show_status(self, indexing: float | None = None) -> None:
        table = self._table
        if table is None or self.model is None:
            return
        delimiter = _DELIMITER_NAMES.get(table.format.delimiter, "other")
        columns = self.model.columnCount()
        parts = [counted(columns, "column")]
        if self.index is not None:
            rows = self.index.row_count
            parts.insert(0, counted(rows, "row"))
        elif indexing is not None:
            parts.insert(0, f"Indexing rows… {indexing:.0%}")
        else:
            parts.insert(0, f"first {self.model.rowCount():,} rows")
        parts.append(f"{delimiter}-separated")
        parts.append("header row" if table.header is not None else "no header row")
        if self.index is not None and table.reader.size > SORT_LIMIT_BYTES:
            parts.append("sorting is off for large files")
        self.status.setText(" · ".join(parts))

    @Slot()
    def _on_timer_timeout(self) -> None:
        self._show_status(indexing=self._progress)

    # -- sorting and copying -------------------------------------------------------

    @Slot(int)
    def _on_header_section_clicked(self, column: int) -> None:
        index = self.index
        if index is None or index.table.reader.size > SORT_LIMIT_BYTES:
            return
        descending = self._sort_state == (column, False)
        self._sort_state = (column, descending)

        generation = self._generation

        def sort_job(file: VerifiedFile, cancelled: threading.Event) -> SortOutcome:
            try:
                order = index.sorted_order(column, descending)
            except (CsvError, FenceBrokenError) as error:
                return SortOutcome(column, descending, None, str(error), generation)
            return SortOutcome(column, descending, tuple(order), "", generation)

        self.status.setText("Sorting…")
        self.run_in_background(sort_job, self._on_sort_finished)

    @Slot(object)
    def _on_sort_finished(self, outcome: SortOutcome) -> None:
        if outcome.generation != self._generation:
            return  # the table was read again meanwhile
        if outcome.order is None or self.model is None:
            self._show_notice(outcome.problem)
        else:
            self.model.set_order(list(outcome.order))
            order = (
                Qt.SortOrder.DescendingOrder
                if outcome.descending
                else Qt.SortOrder.AscendingOrder
            )
            self.view.horizontalHeader().setSortIndicator(outcome.column, order)
        self._show_status()

    def selected_tsv(self) -> str:
        """The selected cells as TSV (a rectangle over the selection's span)."""
        if self.model is None:
            return ""
        selected = self.view.selectionModel().selectedIndexes()
        if not selected:
            return ""
        rows = sorted({index.row() for index in selected})
        columns = sorted({index.column() for index in selected})
        chosen = {(index.row(), index.column()) for index in selected}
        table = []
        for row in rows:
            cells = []
            for column in columns:
                text = ""
                if (row, column) in chosen:
                    text = self.model.data(
                        self.model.index(row, column), FULL_TEXT_ROLE
                    )
                cells.append(text or "")
            table.append(cells)
        return cells_to_tsv(table)

    @Slot()
    def copy_selection(self) -> None:
        text = self.selected_tsv()
        if text:
            QGuiApplication.clipboard().setText(text)

    # -- what tests and the workspace use ------------------------------------------

    def notice_text(self) -> str:
        return self.notice.text() if self.notice.isVisibleTo(self) else ""

    def status_text(self) -> str:
        return self.status.text()

    def is_indexed(self) -> bool:
        """Whether the row index pass is over (built, or stopped by a change)."""
        return self._index_done

    def release(self) -> None:
        self._timer.stop()
        self._find_timer.stop()
        if self._search is not None:
            self._search.set()
        super().release()

    # -- find ----------------------------------------------------------------------

    def focus_find(self) -> None:
        self.find_bar.show()
        self.find_bar.field.setFocus()
        self.find_bar.field.selectAll()

    def find_status(self) -> str:
        return self.find_bar.status.text()

    def find_next(self, text: str, backward: bool = False) -> bool:
        """Select the next cell holding ``text``; the search runs on the pool."""
        if not text:
            self.find_bar.status.clear()
            return False
        index, model = self.index, self.model
        if index is None or model is None:
            self.find_bar.status.setText("Find starts when the row index is ready.")
            return False
        if self._search is not None:
            self._search.set()
        stop = self._search = threading.Event()
        current = self.view.currentIndex()
        start = model.file_row(current.row()) if current.isValid() else -1
        start = start if backward else start + 1
        self._find_progress = 0.0
        self.find_bar.status.setText("Searching…")
        self.find_bar.set_busy(True)
        self._find_timer.start()

        def progress(done: int, total: int) -> None:
            self._find_progress = done / total if total else 1.0

        def job(file: VerifiedFile, cancelled: threading.Event) -> FindOutcome:
            def is_stopped() -> bool:
                return stop.is_set() or cancelled.is_set()

            try:
                found = index.find(
                    text,
                    max(start, 0),
                    backward=backward,
                    progress=progress,
                    cancelled=is_stopped,
                )
                if found is None and start > 0:  # wrap round once
                    origin = index.row_count if backward else 0
                    found = index.find(
                        text, origin, backward=backward, cancelled=is_stopped
                    )
            except BuildCancelledError:
                return FindOutcome(text, None, "cancelled")
            except (FenceBrokenError, ValueError) as error:
                return FindOutcome(text, None, str(error))
            return FindOutcome(text, found, "")

        def finished(outcome: FindOutcome) -> None:
            self._on_find_finished(stop, outcome)

        self.run_in_background(job, finished)
        return False

    def _on_find_finished(self, stop: threading.Event, outcome: FindOutcome) -> None:
        if stop is not self._search or self.model is None:
            return
        self._search = None
        self._find_timer.stop()
        self.find_bar.set_busy(False)
        if outcome.error:
            self.find_bar.status.setText(outcome.error)
        elif outcome.found is None:
            self.find_bar.status.setText("No matches")
        else:
            file_row, column = outcome.found
            row = self.model.view_row(file_row)
            target = self.model.index(row, column)
            self.view.setCurrentIndex(target)
            self.view.scrollTo(target)
            self.find_bar.status.setText(f"Row {file_row + 1:,}, column {column + 1}")

    @Slot()
    def _on_find_timer_timeout(self) -> None:
        if self._search is None:
            self._find_timer.stop()
        else:
            self.find_bar.status.setText(f"Searching… {self._find_progress:.0%}")

    @Slot(str, bool)
    def _on_find_bar_search_requested(self, text: str, backward: bool) -> None:
        self.find_next(text, backward)

    @Slot()
    def _on_find_bar_cancel_requested(self) -> None:
        if self._search is not None:
            self._search.set()
            self._search = None
            self.find_bar.status.setText("Find cancelled")
        self.find_bar.set_busy(False)

    @Slot()
    def _on_find_bar_close_requested(self) -> None:
        self._on_find_bar_cancel_requested()
        self.find_bar.hide()
        self.view.setFocus()

    def cell(self, row: int, column: int) -> str:
        assert self.model is not None
        value = self.model.data(self.model.index(row, column), FULL_TEXT_ROLE)
        return str(value or "")
