"""A table model whose rows are fetched in blocks from a row source, never all at once.

Before the background index is ready the rows are the file's first rows (read
without an index); once it is, ``set_fetcher`` switches to reads of ``BLOCK``
rows from the index, with a small least-recently-used cache of rows. A read
starts at the row asked for (or ends there when the row after it is held, as
when scrolling up), not at a multiple of ``BLOCK``: a view paints from its top
row down, so a jump anywhere costs one read rather than two whenever the screen
would straddle two aligned blocks.

Cells are display text: long ones are cut and line breaks shown as ``⏎`` so a
row stays one line; the full text is in the tooltip (escaped) and in
``FULL_TEXT_ROLE`` for copying.

A repaint asks ``data`` for several roles per visible cell, so roles the model
does not serve return at once and the display text of a row is made once while
it is cached. ``clock`` tells a background job the view is painting, so it can leave
the interpreter to the GUI thread for a moment.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor, QPalette

from app.formats.csv_index import Row
from previewers.widgets import plain_tooltip

BLOCK = 64
CACHE_BLOCKS = 128
CACHE_ROWS = BLOCK * CACHE_BLOCKS
CELL_CHARS = 300
TOOLTIP_CHARS = 4000
FULL_TEXT_ROLE = int(Qt.ItemDataRole.UserRole) + 1
# Plain ints: comparing with enum members on every call costs more than the lookup.
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_BACKGROUND = int(Qt.ItemDataRole.BackgroundRole)
_SERVED = frozenset((_DISPLAY, _TOOLTIP, _BACKGROUND, FULL_TEXT_ROLE))
# What QStyledItemDelegate asks a cell for: font, alignment, foreground, check
# state, decoration, display, background, in that order.
_PAINTED_ROLES = 7
_PAINTED_DISPLAY = 5
_PAINTED_BACKGROUND = 6
_Index = QModelIndex | QPersistentModelIndex
_monotonic = time.monotonic
RowFetcher = Callable[[int, int], list[Row]]
"""(first row, count) -> rows; errors reach the view through ``on_error``."""


def display_cell(text: str) -> str:
    """One-line, bounded text for a cell."""
    if len(text) > CELL_CHARS:
        text = text[:CELL_CHARS] + "\u2026"
    if "\n" not in text and "\r" not in text:
        return text
    return (
        text.replace("\r\n", "\u23ce").replace("\n", "\u23ce").replace("\r", "\u23ce")
    )


class UseClock:
    """When the view last asked for data (``time.monotonic()``).

    A plain object, so worker threads read it without touching the Qt model.
    """

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last = 0.0


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
        self._rows: OrderedDict[int, Row] = OrderedDict()
        # Display text per file row, for the cached rows (or head).
        self._shown: dict[int, tuple[str, ...]] = {}
        # And how the row itself looks: its tint and its number in the header.
        self._looks: dict[int, tuple[QColor | None, str]] = {}
        self._order: list[int] | None = None
        self._broken = False
        self.on_error: Callable[[Exception], None] | None = None
        self.fetches = 0
        self.clock = UseClock()
        palette = QPalette()
        tint = QColor(palette.color(QPalette.ColorRole.Highlight))
        tint.setAlpha(40)
        self._ragged_tint = tint

    # -- switching sources ---------------------------------------------------------

    def set_fetcher(self, fetcher: RowFetcher, count: int) -> None:
        """Rows come from ``fetcher`` now; the table grows to ``count`` rows."""
        self._fetcher = fetcher
        self._rows.clear()
        self._shown.clear()
        self._looks.clear()
        if count >= self._count:
            if count > self._count:
                self.beginInsertRows(QModelIndex(), self._count, count - 1)
                self._count = count
                self.endInsertRows()
            if self._count > 0:  # an empty range is not a range (Qt warns)
                last = self.index(self._count - 1, self._columns - 1)
                self.dataChanged.emit(self.index(0, 0), last)
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

    def view_row(self, file_row: int) -> int:
        """The table row that shows data row ``file_row``; undoes ``file_row``."""
        return self._order.index(file_row) if self._order is not None else file_row

    def row_at(self, row: int) -> Row | None:
        number = self.file_row(row)
        if self._fetcher is None:
            return self._head[number] if 0 <= number < len(self._head) else None
        found = self._rows.get(number)
        if found is not None:
            self._rows.move_to_end(number)
            return found
        if self._broken or not 0 <= number < self._count:
            return None
        # Read on from the row asked for, or back from it when the next row is
        # held already (the view scrolled up).
        first = number
        if number + 1 in self._rows:
            first = max(0, number - BLOCK + 1)
        try:
            rows = self._fetcher(first, BLOCK)
        except Exception as error:  # reported to the user by the view
            self._broken = True
            if self.on_error is not None:
                self.on_error(error)
            return None
        self.fetches += 1
        for offset, fetched in enumerate(rows):
            self._rows[first + offset] = fetched
            self._rows.move_to_end(first + offset)
        while len(self._rows) > CACHE_ROWS:
            gone, _ = self._rows.popitem(last=False)
            self._shown.pop(gone, None)
            self._looks.pop(gone, None)
        return self._rows.get(number)

    def cached_rows(self) -> int:
        """How many rows are held in memory now (head plus cached rows)."""
        return len(self._head) + len(self._rows)

    # -- Qt model ------------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._columns

    def data(self, index: _Index, role: int = _DISPLAY) -> Any:
        if role not in _SERVED:
            return None
        self.clock.last = time.monotonic()
        if not index.isValid():
            return None
        number = index.row()
        if role == _DISPLAY:
            shown = self._shown.get(self.file_row(number))
            if shown is None:
                shown = self._display_row(number)
                if shown is None:
                    return None
            column = index.column()
            return shown[column] if column < len(shown) else ""
        row = self.row_at(number)
        if row is None:
            return None
        if role == _BACKGROUND:
            return self._look(number, row)[0]
        text = self._full_text(row, index.column())
        if role == FULL_TEXT_ROLE:
            return text
        return self._tooltip(row, text)

    def multiData(
        self,
        index: _Index,
        roleDataSpan: QModelRoleDataSpan | QModelRoleData,  # noqa: N803
    ) -> None:
        """Every role a cell is painted with, in one call rather than one per role.

        The view's delegate asks for seven roles or so per cell; the default
        implementation would call ``data`` once for each, crossing into Python
        each time. Roles the model does not serve stay unset.
        """
        self.clock.last = _monotonic()
        number = index.row()
        if number < 0:  # an invalid index
            return
        order = self._order
        file_row = number if order is None else order[number]
        shown = self._shown.get(file_row)
        if shown is None:
            shown = self._display_row(number)
        look = self._looks.get(file_row)
        if isinstance(roleDataSpan, QModelRoleData):
            items: Any = (roleDataSpan,)
        else:
            # The binding indexes a span, though its stubs do not say so.
            span: Any = roleDataSpan
            if span.size() == _PAINTED_ROLES and shown is not None:
                # The delegate's span: of its roles only display text and tint
                # are served, at fixed slots; asking each slot its role would
                # cost more than the cell's paint, and the tint slot is looked
                # at only for a row that has a tint.
                text_slot = span[_PAINTED_DISPLAY]
                if text_slot.role() == _DISPLAY:
                    column = index.column()
                    text_slot.setData(shown[column] if column < len(shown) else "")
                    if look is None or look[0] is None:
                        return
                    tint_slot = span[_PAINTED_BACKGROUND]
                    if tint_slot.role() == _BACKGROUND:
                        tint_slot.setData(look[0])
                        return
            items = (span[slot] for slot in range(span.size()))
        for item in items:
            role = item.role()
            if role == _DISPLAY and shown is not None:
                column = index.column()
                item.setData(shown[column] if column < len(shown) else "")
            elif role == _BACKGROUND and look is not None:
                item.setData(look[0])
            elif role in _SERVED:
                item.setData(self.data(index, role))

    def _full_text(self, row: Row, column: int) -> str:
        text = row.cells[column] if column < len(row.cells) else ""
        if column == self._columns - 1 and len(row.cells) > self._columns:
            # Extra cells of a ragged row stay visible in the last column.
            text = "\t".join(row.cells[column:])
        return text

    def _display_row(self, number: int) -> tuple[str, ...] | None:
        """The display text of every cell of table row ``number``, kept while the
        row is cached."""
        row = self.row_at(number)
        if row is None:
            return None
        cells, columns = row.cells, self._columns
        if len(cells) == columns:
            shown = tuple(map(display_cell, cells))
        else:
            shown = tuple(
                display_cell(self._full_text(row, column)) for column in range(columns)
            )
        self._shown[self.file_row(number)] = shown
        self._look(number, row)
        return shown

    def _look(self, number: int, row: Row) -> tuple[QColor | None, str]:
        """Tint and header label of table row ``number``, kept with its text."""
        file_row = self.file_row(number)
        look = self._looks.get(file_row)
        if look is None:
            flagged = row.ragged or row.truncated
            label = f"{file_row + 1:,}"
            look = (
                self._ragged_tint if flagged else None,
                f"\u26a0 {label}" if row.ragged else label,
            )
            self._looks[file_row] = look
        return look

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
        role: int = _DISPLAY,
    ) -> Any:
        if role != _DISPLAY and role != _TOOLTIP:
            return None
        if orientation == Qt.Orientation.Horizontal:
            if role == _DISPLAY:
                if self._header is not None and section < len(self._header):
                    return display_cell(self._header[section]) or f"({section + 1})"
                return f"Column {section + 1}"
            return None
        if role == _DISPLAY and 0 <= section < self._count:
            order = self._order
            look = self._looks.get(section if order is None else order[section])
            if look is not None:
                return look[1]
        row = self.row_at(section) if section < self._count else None
        if role == _DISPLAY:
            if row is not None:
                return self._look(section, row)[1]
            return f"{self.file_row(section) + 1:,}"
        if row is not None and row.ragged:
            return plain_tooltip("This row's cell count differs; it was padded.")
        return None
