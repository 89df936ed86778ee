"""The active tab's close button is a quiet cross, not a red warning."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QStyle, QStyleFactory, QStyleOption

from app.ui.window.style import AppStyle


def _close_button(style: QStyle, state: QStyle.StateFlag) -> QImage:
    image = QImage(32, 32, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    option = QStyleOption()
    option.rect = QRect(8, 8, 16, 16)
    option.state = state
    painter = QPainter(image)
    style.drawPrimitive(QStyle.PrimitiveElement.PE_IndicatorTabClose, option, painter)
    painter.end()
    return image


def _reddish(image: QImage) -> int:
    count = 0
    for y in range(image.height()):
        for x in range(image.width()):
            colour = image.pixelColor(x, y)
            if colour.red() > colour.green() + 60 and colour.red() > colour.blue() + 60:
                count += 1
    return count


def test_the_current_tab_close_button_is_not_red(qapp) -> None:
    selected = QStyle.StateFlag.State_Enabled | QStyle.StateFlag.State_Selected
    hovered = selected | QStyle.StateFlag.State_Raised
    fusion = QStyleFactory.create("Fusion")
    assert _reddish(_close_button(fusion, selected)) > 0  # what users saw before
    style = AppStyle()
    for state in (selected, hovered):
        image = _close_button(style, state)
        assert _reddish(image) == 0
        assert any(
            image.pixelColor(x, 16) != QColor(Qt.GlobalColor.white) for x in range(32)
        ), "a cross is drawn"
