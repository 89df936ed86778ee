"""What an empty chat says: how to start, in which folder, with which model."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette

from app.core.trust.display_names import display_name

NO_CONVERSATION = (
    "No conversation yet",
    "Start one with File > New conversation (Ctrl+N) and choose the folder the "
    "agent works in, or run “deliverables demo” to see what it looks like.",
)
EMPTY_CONVERSATION = (
    "Ask the agent for something",
    "Write below what you need. The files the agent presents appear here as "
    "cards: click one to preview it beside the chat, or use its ⋯ menu to copy "
    "its path, save a copy or open it with another app.",
)
MODEL_HINT = (
    "No model is chosen yet: choose one in Settings, or start with "
    "“deliverables chat --model provider:model --workspace DIR”."
)


def empty_state_lines(
    *, conversation: bool, workspace: str, model: str
) -> tuple[str, str, list[str]]:
    """The heading, the explanation and the facts an empty chat shows."""
    if not conversation:
        heading, text = NO_CONVERSATION
        return heading, text, []
    heading, text = EMPTY_CONVERSATION
    facts = []
    if workspace:
        name = Path(workspace).name or workspace
        facts.append(f"Workspace: {display_name(name)} ({display_name(workspace)})")
    facts.append(f"Model: {display_name(model)}" if model else MODEL_HINT)
    return heading, text, facts


def paint_empty_state(
    painter: QPainter,
    area: QRect,
    palette: QPalette,
    font: QFont,
    *,
    conversation: bool,
    workspace: str,
    model: str,
) -> None:
    heading, text, facts = empty_state_lines(
        conversation=conversation, workspace=workspace, model=model
    )
    width = min(520, area.width() - 48)
    if width <= 40:
        return
    left = area.left() + (area.width() - width) // 2
    wrap = int(Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap)
    big = QFont(font)
    big.setPointSizeF(font.pointSizeF() * 1.35)
    big.setWeight(QFont.Weight.DemiBold)
    blocks = [(heading, big, QPalette.ColorRole.Text)]
    blocks.append((text, font, QPalette.ColorRole.PlaceholderText))
    blocks.extend((fact, font, QPalette.ColorRole.Text) for fact in facts)
    heights = [
        QFontMetrics(f).boundingRect(QRect(0, 0, width, 1 << 16), wrap, t).height()
        for t, f, _ in blocks
    ]
    gap = 12
    top = area.top() + max(24, (area.height() - sum(heights) - gap * 3) // 2 - 40)
    painter.save()
    for (line, line_font, role), height in zip(blocks, heights, strict=True):
        painter.setFont(line_font)
        painter.setPen(palette.color(role))
        painter.drawText(QRect(left, top, width, height), wrap, line)
        top += height + gap
    painter.restore()
