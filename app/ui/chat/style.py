"""Chat geometry and colours, all derived from the palette and the font."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QPalette

from previewers.context import ColorScheme

COLUMN_MAX: Final = 820  # a readable line length, centred in wide windows
SIDE: Final = 20
TURN_GAP: Final = 18  # space above a user message
CARD_HEIGHT: Final = 68
CARD_GAP: Final = 6
TOOL_HEADER: Final = 34
ACTIONS_HEIGHT: Final = 34
BUBBLE_PAD_X: Final = 14
BUBBLE_PAD_Y: Final = 9
IMAGE_PLACEHOLDER: Final = 64
RADIUS: Final = 10.0


def blend(a: QColor, b: QColor, amount: float) -> QColor:
    """``a`` moved ``amount`` (0..1) of the way towards ``b``."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * amount),
        round(a.green() + (b.green() - a.green()) * amount),
        round(a.blue() + (b.blue() - a.blue()) * amount),
    )


def column(rect: QRect) -> QRect:
    """The centred content column inside a row's rectangle."""
    width = min(COLUMN_MAX, max(120, rect.width() - 2 * SIDE))
    left = rect.left() + max(SIDE, (rect.width() - width) // 2)
    return QRect(left, rect.top(), width, rect.height())


@dataclass(frozen=True)
class Colours:
    """The chat's colours for one palette (light or dark alike)."""

    text: QColor
    muted: QColor
    base: QColor
    card: QColor
    card_hover: QColor
    border: QColor
    bubble: QColor
    accent: QColor
    error: QColor
    warning: QColor
    focus: QColor

    @classmethod
    def of(cls, palette: QPalette) -> Colours:
        role = QPalette.ColorRole
        text = palette.color(role.Text)
        base = palette.color(role.Base)
        accent = palette.color(role.Highlight)
        dark = ColorScheme.of(palette) is ColorScheme.DARK
        return cls(
            text=text,
            muted=blend(text, base, 0.42),
            base=base,
            card=blend(base, text, 0.045),
            card_hover=blend(base, text, 0.08),
            border=blend(base, text, 0.16),
            bubble=blend(base, accent, 0.22 if dark else 0.14),
            accent=accent,
            error=QColor("#ff7b72" if dark else "#c62828"),
            warning=QColor("#e3a33b" if dark else "#b26a00"),
            focus=accent,
        )
