"""A table model whose rows are fetched in blocks from a row source, never all at once.

Before the background index is ready the rows are the file's first rows (read
without an index); once it is, ``set_fetcher`` switches to blocks of ``BLOCK``
rows from the index, with a small least-recently-used cache. Cells are display
text: long ones are cut and line breaks shown as ``⏎`` so a row stays one line;
the full text is in the tooltip (escaped) and in ``FULL_TEXT_ROLE`` for copying.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QPalette

from app.core.csv_index import Row
from previewers.base import plain_tooltip

BLOCK = 256
CACHE_BLOCKS = 32
CELL_CHARS = 300
TOOLTIP_CHARS = 4000
FULL_TEXT_ROLE = int(Qt.ItemDataRole.UserRole) + 1
_Index = QModelIndex | QPersistentModelIndex
RowFetcher = Callable[[int, int], list[Row]]
"""(first row, count) -> rows; errors reach the view through ``on_error``."""


def display_cell(text: str) -> str:
    """One-line, bounded text for a cell."""
    if len(text) > CELL_CHARS:
        text = text[:CELL_CHARS] + "\u2026"
    return (
        text.replace("\r\n", "\u23ce").replace("\n", "\u23ce").replace("\r", "\u23ce")
    )


class CsvTableModel(QAbstractTableModel):
    """Rows ``0 .. row_count - 1`` of a table, optionally in a sorted order.

    Signals: those of ``QAbstractTableModel``.
    """

    def __init__(
        self,
        header: Sequence[str] | None,
        columns: int,
        head: list[Row],
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self._columns = max(columns, len(header or ()), 1)
        self._header = tuple(header) if header is not None else None
        self._head = head
        self._count = len(head)
        self._fetcher: RowFetcher | None = None
        self._blocks: OrderedDict[int, list[Row]] = OrderedDict()
        self._order: list[int] | None = None
        self._broken = False
        self.on_error: Callable[[Exception], None] | None = None
        self.fetches = 0
        palette = QPalette()
        tint = QColor(palette.color(QPalette.ColorRole.Highlight))
        tint.setAlpha(40)
        self._ragged_tint = tint

    # -- switching sources ---------------------------------------------------------

    def set_fetcher(self, fetcher: RowFetcher, count: int) -> None:
        """Rows come from ``fetcher`` now; the table grows to ``count`` rows."""
        self._fetcher = fetcher
        self._blocks.clear()
        if count >= self._count:
            if count > self._count:
                self.beginInsertRows(QModelIndex(), self._count, count - 1)
                self._count = count
                self.endInsertRows()
            self.dataChanged.emit(
                self.index(0, 0), self.index(max(self._count - 1, 0), self._columns - 1)
            )
        else:
            self.beginResetModel()
            self._count = count
            self.endResetModel()
        self._head = []

    def set_order(self, order: list[int] | None) -> None:
        """Show rows in ``order`` (row numbers), or in file order for None."""
        self.beginResetModel()
        self._order = order
        self.endResetModel()

    def stop_fetching(self) -> None:
        """The file changed: rows not yet read show empty from now on."""
        self._broken = True

    # -- rows ----------------------------------------------------------------------

    def file_row(self, row: int) -> int:
        """The data row number (0-based, in the file) shown at table row ``row``."""
        return self._order[row] if self._order is not None else row

    def row_at(self, row: int) -> Row | None:
        number = self.file_row(row)
        if self._fetcher is None:
            return self._head[number] if 0 <= number < len(self._head) else None
        block_number = number // BLOCK
        block = self._blocks.get(block_number)
        if block is None:
            if self._broken:
                return None
            try:
                block = self._fetcher(block_number * BLOCK, BLOCK)
            except Exception as error:  # reported to the user by the view
                self._broken = True
                if self.on_error is not None:
                    self.on_error(error)
                return None
            self.fetches += 1
            self._blocks[block_number] = block
            while len(self._blocks) > CACHE_BLOCKS:
                self._blocks.popitem(last=False)
        else:
            self._blocks.move_to_end(block_number)
        offset = number - block_number * BLOCK
        return block[offset] if offset < len(block) else None

    def cached_rows(self) -> int:
        """How many rows are held in memory now (head plus cached blocks)."""
        return len(self._head) + sum(len(block) for block in self._blocks.values())

    # -- Qt model ------------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._columns

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,
            Qt.ItemDataRole.BackgroundRole,
            FULL_TEXT_ROLE,
        ):
            return None
        row = self.row_at(index.row())
        if row is None:
            return None
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._ragged_tint if row.ragged or row.truncated else None
        column = index.column()
        text = row.cells[column] if column < len(row.cells) else ""
        if column == self._columns - 1 and len(row.cells) > self._columns:
            # Extra cells of a ragged row stay visible in the last column.
            text = "\t".join(row.cells[column:])
        if role == Qt.ItemDataRole.DisplayRole:
            return display_cell(text)
        if role == FULL_TEXT_ROLE:
            return text
        return self._tooltip(row, text)

    def _tooltip(self, row: Row, text: str) -> str | None:
        notes = []
        if row.ragged:
            notes.append(
                "This row has a different number of cells than the table; "
                "missing cells are shown empty, extra ones in the last column."
            )
        if row.truncated:
            notes.append("This row is too long; only its start is shown.")
        if len(text) > CELL_CHARS or "\n" in text or notes:
            shown = text if len(text) <= TOOLTIP_CHARS else text[:TOOLTIP_CHARS] + "…"
            return plain_tooltip(
                "\n\n".join([shown, *notes]) if shown else "\n".join(notes)
            )
        return None

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            if role == Qt.ItemDataRole.DisplayRole:
                if self._header is not None and section < len(self._header):
                    return display_cell(self._header[section]) or f"({section + 1})"
                return f"Column {section + 1}"
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            number = f"{self.file_row(section) + 1:,}"
            row = self.row_at(section) if section < self._count else None
            return f"\u26a0 {number}" if row is not None and row.ragged else number
        if role == Qt.ItemDataRole.ToolTipRole:
            row = self.row_at(section) if section < self._count else None
            if row is not None and row.ragged:
                return plain_tooltip("This row's cell count differs; it was padded.")
        return None
