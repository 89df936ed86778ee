"""How a tree row is drawn: the name gets the room first, then the size beside it."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

SIZE_GAP = 12
"""Pixels kept between a name and its size."""


def size_fits(name_width: int, size_width: int, room: int) -> bool:
    """Whether a size is shown: only when the whole name fits beside it."""
    return size_width > 0 and name_width + SIZE_GAP + size_width <= room


class NameSizeDelegate(QStyledItemDelegate):
    """Draws a row's name in the whole row and its size only where room is left.

    The size stays in the model's second column (hidden in the view), so a
    long name is cut only when the row is narrower than the name itself, and
    then in the middle, keeping its suffix.
    """

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        super().paint(painter, option, index)
        size = index.sibling(index.row(), 1).data(Qt.ItemDataRole.DisplayRole)
        if not size:
            return
        shown = QStyleOptionViewItem(option)
        self.initStyleOption(shown, index)
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        text = style.subElementRect(
            QStyle.SubElement.SE_ItemViewItemText, shown, widget
        )
        metrics = shown.fontMetrics
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1
        name_width = metrics.horizontalAdvance(shown.text) + 2 * margin
        size_width = metrics.horizontalAdvance(str(size))
        if not size_fits(name_width, size_width, text.width() - margin):
            return
        selected = bool(shown.state & QStyle.StateFlag.State_Selected)
        palette = shown.palette
        role = (
            QPalette.ColorRole.HighlightedText
            if selected
            else QPalette.ColorRole.PlaceholderText
        )
        painter.save()
        painter.setPen(palette.color(role))
        painter.drawText(
            text.adjusted(0, 0, -margin, 0),
            int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
            str(size),
        )
        painter.restore()
