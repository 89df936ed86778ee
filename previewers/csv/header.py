"""The table's row numbers, painted in one pass over the visible rows.

A stock vertical header asks the model for eight or so roles per visible row on
every repaint, each a call into Python; on a random jump that costs more than
painting the cells. This header asks the model once per paint for the labels
of the rows in view and draws each section with the style, as Qt's header does.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QHeaderView, QStyle, QStyleOptionHeader, QWidget

from previewers.csv.model import CsvTableModel

_Position = QStyleOptionHeader.SectionPosition


class RowNumberHeader(QHeaderView):
    """A vertical header whose labels come from ``CsvTableModel.row_labels``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        # As QTableView sets up its own header: a click selects the row.
        self.setSectionsClickable(True)
        self.setHighlightSections(True)

    def paintEvent(self, event: QPaintEvent) -> None:
        model = self.model()
        area = event.rect()
        first = self.logicalIndexAt(area.top())
        if not isinstance(model, CsvTableModel) or first < 0:
            super().paintEvent(event)
            return
        count = self.count()
        last = self.logicalIndexAt(area.bottom())
        if last < 0:
            last = count - 1
        painter = QPainter(self.viewport())
        style = self.style()
        width = self.viewport().width()
        option = QStyleOptionHeader()
        self.initStyleOption(option)
        option.textAlignment = self.defaultAlignment()
        option.iconAlignment = Qt.AlignmentFlag.AlignVCenter
        plain = option.state
        if self.isEnabled():
            plain |= QStyle.StateFlag.State_Enabled
        if self.window().isActiveWindow():
            plain |= QStyle.StateFlag.State_Active
        # Qt's own header marks rows the selection touches; so does this one.
        selection = (
            self.selectionModel()
            if self.highlightSections() and self.sectionsClickable()
            else None
        )
        root = self.rootIndex()
        bottom = 0
        for row, label in zip(
            range(first, last + 1), model.row_labels(first, last), strict=True
        ):
            top = self.sectionViewportPosition(row)
            bottom = top + self.sectionSize(row)
            state = plain
            if selection is not None:
                if selection.rowIntersectsSelection(row, root):
                    state |= QStyle.StateFlag.State_On
                if selection.isRowSelected(row, root):
                    state |= QStyle.StateFlag.State_Sunken
            option.rect = QRect(0, top, width, bottom - top)
            option.state = state
            option.section = row
            option.text = label
            option.position = _position(row, count)
            style.drawControl(QStyle.ControlElement.CE_Header, option, painter, self)
        if bottom < area.bottom():
            # Below the last row Qt paints an empty section; so does this one.
            rest = QStyleOptionHeader()
            self.initStyleOption(rest)
            rest.state = plain
            rest.rect = QRect(0, bottom, width, self.viewport().height() - bottom)
            style.drawControl(QStyle.ControlElement.CE_Header, rest, painter, self)
        painter.end()


def _position(row: int, count: int) -> QStyleOptionHeader.SectionPosition:
    if count == 1:
        return _Position.OnlyOneSection
    if row == 0:
        return _Position.Beginning
    return _Position.End if row == count - 1 else _Position.Middle
