"""Painting and hit-testing of a turn's "Changed files (N)" row."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPen

from app.core.changes.change import Operation
from app.core.changes.index import ChangedFile
from app.core.chat.blocks import ChangesBlock
from app.core.filetype.sizes import counted
from app.core.trust.display_names import display_name
from app.ui.chat.paint_cards import ELIDE, card_background, small_font, tool_card_rect
from app.ui.chat.style import TOOL_HEADER, Colours

FILE_ROW: Final = 28
DIFF_WIDTH: Final = 52
MINUS: Final = "\u2212"
_LEFT_V = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
_RIGHT_V = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def changes_title(block: ChangesBlock) -> str:
    return f"Changed files ({block.changes.count})"


def _lines(block: ChangesBlock) -> int:
    return block.changes.count + (1 if block.changes.unsupported else 0)


def changes_height(block: ChangesBlock, expanded: bool) -> int:
    body = _lines(block) * FILE_ROW + 6 if expanded else 0
    return TOOL_HEADER + body + 6


def change_summary(changed: ChangedFile) -> str:
    """The change in words: "created, +12", "modified, +3 \u22121".

    Host edits record line counts before and after, not the lines added and
    removed: a modified file then says "2 \u2192 3 lines" (the diff has the rest).
    """
    words = changed.operation.value
    added, removed = changed.lines_added, changed.lines_removed
    before, after = changed.lines_before, changed.lines_after
    if changed.operation is Operation.CREATED and added is None:
        added, removed = after, 0
    elif changed.operation is Operation.DELETED and removed is None:
        added, removed = 0, before
    if added is not None and removed is not None:
        return f"{words}, +{added} {MINUS}{removed}"
    if before is not None and after is not None:
        return f"{words}, {before} \u2192 {counted(after, 'line')}"
    return words


def _file_rect(row: QRect, index: int) -> QRect:
    card = tool_card_rect(row)
    top = card.top() + TOOL_HEADER + index * FILE_ROW
    return QRect(card.left() + 8, top, card.width() - 16, FILE_ROW)


def diff_button_rect(row: QRect, index: int) -> QRect:
    line = _file_rect(row, index)
    return QRect(line.right() - DIFF_WIDTH, line.top() + 3, DIFF_WIDTH, FILE_ROW - 6)


def hit_changes(
    row: QRect, block: ChangesBlock, expanded: bool, point: QPoint
) -> str | None:
    """What ``point`` hits: "toggle" (the header), "file:I", "diff:I", or None."""
    card = tool_card_rect(row)
    if not card.contains(point):
        return None
    if point.y() < card.top() + TOOL_HEADER:
        return "toggle"
    if not expanded:
        return None
    for changed in block.changes.files:
        if diff_button_rect(row, changed.index).contains(point):
            if changed.operation is Operation.DELETED:
                return None
            return f"diff:{changed.index}"
        if _file_rect(row, changed.index).contains(point):
            return f"file:{changed.index}"
    return None


def paint_changes(
    painter: QPainter,
    row: QRect,
    block: ChangesBlock,
    expanded: bool,
    colours: Colours,
    font: QFont,
    hovered: str | None,
) -> None:
    card = tool_card_rect(row)
    card_background(painter, card, colours.card, colours.border)
    header = QRect(card.left() + 12, card.top(), card.width() - 24, TOOL_HEADER)
    painter.setFont(font)
    painter.setPen(colours.muted)
    painter.drawText(
        QRect(header.left(), header.top(), 16, TOOL_HEADER),
        Qt.AlignmentFlag.AlignCenter,
        "▾" if expanded else "▸",
    )
    painter.setPen(colours.text)
    painter.drawText(header.adjusted(26, 0, 0, 0), _LEFT_V, changes_title(block))
    if not expanded:
        return
    small = small_font(font)
    metrics = QFontMetrics(font)
    small_metrics = QFontMetrics(small)
    for changed in block.changes.files:
        line = _file_rect(row, changed.index)
        part = f"file:{changed.index}"
        if hovered == part:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colours.card_hover)
            painter.drawRoundedRect(QRectF(line), 6, 6)
        summary = change_summary(changed)
        if changed.presented:
            summary = f"presented · {summary}"
        summary_width = small_metrics.horizontalAdvance(summary) + 12
        text = line.adjusted(18, 0, -(DIFF_WIDTH + 8 + summary_width), 0)
        painter.setFont(font)
        painter.setPen(
            colours.muted if changed.operation is Operation.DELETED else colours.text
        )
        path = metrics.elidedText(display_name(changed.path), ELIDE, text.width())
        painter.drawText(text, _LEFT_V, path)
        painter.setFont(small)
        painter.setPen(colours.accent if changed.presented else colours.muted)
        place = QRect(text.right() + 6, line.top(), summary_width, FILE_ROW)
        painter.drawText(place, _LEFT_V, summary)
        if changed.operation is Operation.DELETED:
            continue
        button = diff_button_rect(row, changed.index)
        diff_part = f"diff:{changed.index}"
        painter.setPen(QPen(colours.border, 1))
        painter.setBrush(colours.card_hover if hovered == diff_part else colours.base)
        radius = button.height() / 2
        painter.drawRoundedRect(QRectF(button), radius, radius)
        painter.setPen(colours.muted)
        painter.drawText(button, Qt.AlignmentFlag.AlignCenter, "Diff")
    if block.changes.unsupported:
        line = _file_rect(row, block.changes.count)
        painter.setFont(small)
        painter.setPen(colours.muted)
        count = len(block.changes.unsupported)
        painter.drawText(
            line.adjusted(18, 0, 0, 0),
            _LEFT_V,
            f"{count} change(s) of an unknown version, kept but not shown",
        )
