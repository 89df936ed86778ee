"""Painting and hit-testing of an imported session's file card, with Verify."""

from __future__ import annotations

import os
from typing import Final

from PySide6.QtCore import QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPen

from app.core.chat.blocks import ImportedFileBlock
from app.core.filetype import kind_from_name
from app.core.trust.display_names import display_name
from app.ui.cards.icons import kind_icon
from app.ui.chat.model import ImportedState
from app.ui.chat.paint_cards import (
    ELIDE,
    ICON_SIZE,
    card_background,
    deliverable_card_rect,
    small_font,
)
from app.ui.chat.style import Colours

VERIFY_WIDTH: Final = 72
_LEFT_V = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter


def verify_button_rect(row: QRect) -> QRect:
    card = deliverable_card_rect(row)
    return QRect(
        card.right() - VERIFY_WIDTH - 12, card.center().y() - 14, VERIFY_WIDTH, 28
    )


def hit_imported(row: QRect, point: QPoint) -> str | None:
    """ "verify" on its button, "card" elsewhere on the card, or None."""
    if verify_button_rect(row).contains(point):
        return "verify"
    if deliverable_card_rect(row).contains(point):
        return "card"
    return None


def paint_imported(
    painter: QPainter,
    row: QRect,
    block: ImportedFileBlock,
    state: ImportedState,
    colours: Colours,
    font: QFont,
    hovered: str | None,
    device_pixel_ratio: float,
) -> None:
    card = deliverable_card_rect(row)
    fill = colours.card_hover if hovered == "card" else colours.card
    border = colours.warning if state.problem else colours.border
    card_background(painter, card, fill, border)
    icon = kind_icon(kind_from_name(block.file.resolved), ICON_SIZE, device_pixel_ratio)
    painter.drawPixmap(card.left() + 14, card.center().y() - ICON_SIZE // 2, icon)
    button = verify_button_rect(row)
    left = card.left() + 14 + ICON_SIZE + 12
    width = button.left() - 12 - left
    name = display_name(os.path.basename(block.file.path) or block.file.path)
    bold = QFont(font)
    bold.setBold(True)
    painter.setFont(bold)
    painter.setPen(colours.text)
    top = QRect(left, card.top() + 10, width, card.height() // 2 - 10)
    name = QFontMetrics(bold).elidedText(name, Qt.TextElideMode.ElideMiddle, width)
    painter.drawText(top, _LEFT_V, name)
    small = small_font(font)
    painter.setFont(small)
    painter.setPen(
        colours.warning if state.problem or not state.verified else colours.muted
    )
    bottom = QRect(left, card.center().y(), width, card.height() // 2 - 10)
    painter.drawText(bottom, _LEFT_V, state_line(state.message, block, small, width))
    painter.setPen(QPen(colours.border, 1))
    painter.setBrush(colours.card_hover if hovered == "verify" else colours.base)
    radius = button.height() / 2
    painter.drawRoundedRect(QRectF(button), radius, radius)
    painter.setPen(colours.muted if state.busy else colours.text)
    painter.drawText(
        button, Qt.AlignmentFlag.AlignCenter, "Verifying…" if state.busy else "Verify"
    )


def state_line(message: str, block: ImportedFileBlock, font: QFont, width: int) -> str:
    """The card's state, whole where it fits, then its path cut in the middle."""
    metrics = QFontMetrics(font)
    if metrics.horizontalAdvance(message) > width:
        return metrics.elidedText(message, ELIDE, width)
    separator = " \u00b7 "
    left = width - metrics.horizontalAdvance(message + separator)
    path = metrics.elidedText(
        display_name(block.file.path), Qt.TextElideMode.ElideMiddle, left
    )
    return message + separator + path if path else message
