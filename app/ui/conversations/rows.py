"""How a conversation row is drawn: the title, then its folder and a date never cut."""

from __future__ import annotations

from typing import Final, NamedTuple

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

TITLE_ROLE: Final = Qt.ItemDataRole.UserRole + 2
FOLDER_ROLE: Final = Qt.ItemDataRole.UserRole + 3
DATE_ROLE: Final = Qt.ItemDataRole.UserRole + 4
PAD_X: Final = 8
PAD_Y: Final = 5
GAP: Final = 2
_Index = QModelIndex | QPersistentModelIndex
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _small(font: QFont) -> QFont:
    small = QFont(font)
    small.setPointSizeF(max(6.0, font.pointSizeF() * 0.88))
    return small


class ShownTexts(NamedTuple):
    """What a row shows once fitted to its width."""

    title: str
    folder: str
    date: str


def _title_font(font: QFont) -> QFont:
    bold = QFont(font)
    bold.setWeight(QFont.Weight.DemiBold)
    return bold


class ConversationRowDelegate(QStyledItemDelegate):
    """Two lines per conversation: the title, and "folder · date" below it.

    The date is drawn whole at the right; the folder name gives way to it
    (elided in the middle), and the title is elided at its end.
    """

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        lines = (
            QFontMetrics(option.font).height()
            + QFontMetrics(_small(option.font)).height()
        )
        return QSize(option.rect.width(), lines + GAP + 2 * PAD_Y)

    def shown_texts(self, option: QStyleOptionViewItem, index: _Index) -> ShownTexts:
        """The title and folder elided to the row's width; the date whole."""
        width = option.rect.width() - 2 * PAD_X
        title = str(index.data(TITLE_ROLE) or index.data() or "")
        folder = str(index.data(FOLDER_ROLE) or "")
        date = str(index.data(DATE_ROLE) or "")
        small = QFontMetrics(_small(option.font))
        room = max(0, width - small.horizontalAdvance(date) - 10)
        return ShownTexts(
            QFontMetrics(_title_font(option.font)).elidedText(
                title, Qt.TextElideMode.ElideRight, width
            ),
            small.elidedText(folder, Qt.TextElideMode.ElideMiddle, room),
            date,
        )

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: _Index
    ) -> None:
        style = option.widget.style() if option.widget is not None else None
        background = QStyleOptionViewItem(option)
        self.initStyleOption(background, index)
        background.text = ""
        if style is not None:
            style.drawControl(
                QStyle.ControlElement.CE_ItemViewItem,
                background,
                painter,
                option.widget,
            )
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        group = (
            QPalette.ColorGroup.Active
            if option.state & QStyle.StateFlag.State_Active
            else QPalette.ColorGroup.Inactive
        )
        text_role = (
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        text = option.palette.color(group, text_role)
        muted = option.palette.color(group, QPalette.ColorRole.PlaceholderText)
        if selected:
            muted = text
        shown = self.shown_texts(option, index)
        rect = option.rect.adjusted(PAD_X, PAD_Y, -PAD_X, -PAD_Y)
        font = _title_font(option.font)
        title_metrics = QFontMetrics(font)
        small = _small(option.font)
        painter.save()
        painter.setFont(font)
        painter.setPen(text)
        title_rect = QRect(
            rect.left(), rect.top(), rect.width(), title_metrics.height()
        )
        painter.drawText(title_rect, _LEFT, shown.title)
        second = QRect(
            rect.left(),
            title_rect.bottom() + 1 + GAP,
            rect.width(),
            QFontMetrics(small).height(),
        )
        painter.setFont(small)
        painter.setPen(muted)
        painter.drawText(second, _RIGHT, shown.date)
        painter.drawText(second, _LEFT, shown.folder)
        painter.restore()
