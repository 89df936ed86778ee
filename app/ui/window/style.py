"""The app's style: Fusion, with a quiet close button on document tabs.

Fusion draws the close button of the current tab with its red "hover" image,
so the active tab looks like a warning; here every tab's close button is a
neutral cross that gets a soft backdrop only under the pointer.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import QProxyStyle, QStyle, QStyleOption, QWidget


class AppStyle(QProxyStyle):
    """Fusion with its tab close indicator drawn in the palette's colours."""

    def __init__(self) -> None:
        super().__init__("Fusion")

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        if element != QStyle.PrimitiveElement.PE_IndicatorTabClose:
            super().drawPrimitive(element, option, painter, widget)
            return
        draw_tab_close(option, painter)


def draw_tab_close(option: QStyleOption, painter: QPainter) -> None:
    state = option.state
    hovered = bool(state & QStyle.StateFlag.State_Raised)
    pressed = bool(state & QStyle.StateFlag.State_Sunken)
    palette = option.palette
    rect = QRectF(option.rect).adjusted(1, 1, -1, -1)
    side = min(rect.width(), rect.height())
    box = QRectF(0, 0, side, side)
    box.moveCenter(rect.center())
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if hovered or pressed:
        backdrop = palette.color(QPalette.ColorRole.Text)
        backdrop.setAlpha(60 if pressed else 32)
        painter.setPen(QPen(backdrop, 0))
        painter.setBrush(backdrop)
        painter.drawRoundedRect(box, 3, 3)
    colour = palette.color(
        QPalette.ColorRole.Text
        if hovered or pressed or state & QStyle.StateFlag.State_Selected
        else QPalette.ColorRole.PlaceholderText
    )
    painter.setPen(QPen(colour, 1.4))
    inset = side * 0.3
    centre = box.center()
    half = side / 2 - inset
    painter.drawLine(
        QPointF(centre.x() - half, centre.y() - half),
        QPointF(centre.x() + half, centre.y() + half),
    )
    painter.drawLine(
        QPointF(centre.x() - half, centre.y() + half),
        QPointF(centre.x() + half, centre.y() - half),
    )
    painter.restore()
