"""Kind icons for deliverable cards, drawn with QPainter (no image files)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPainterPath, QPixmap

from app.core.filetype import Kind

# Tile colours are fixed per kind so a file type looks the same in every theme;
# the label is drawn on the tile, never on the window background.
_KIND_STYLE: dict[Kind, tuple[str, str]] = {
    Kind.HTML: ("#e3702d", "HTML"),
    Kind.MARKDOWN: ("#4a6ee0", "MD"),
    Kind.TEXT: ("#7a8594", "TXT"),
    Kind.CODE: ("#2f9e6e", "</>"),
    Kind.JSON: ("#b58a00", "{ }"),
    Kind.CSV: ("#1f8f4e", "CSV"),
    Kind.IMAGE: ("#9b51e0", "IMG"),
    Kind.PDF: ("#d64545", "PDF"),
    Kind.AUDIO: ("#d0488f", "♪"),
    Kind.VIDEO: ("#6b4fd8", "▶"),
    Kind.OTHER: ("#68707c", "FILE"),
}
_UNSUPPORTED = ("#8a8f98", "?")

_CACHE: dict[tuple[str, int, float], QPixmap] = {}


def kind_colour(kind: Kind | None) -> QColor:
    return QColor(_KIND_STYLE.get(kind, _UNSUPPORTED)[0] if kind else _UNSUPPORTED[0])


def kind_icon(kind: Kind | None, size: int, device_pixel_ratio: float) -> QPixmap:
    """A rounded tile with the kind's short label; cached per size and scale."""
    colour, label = _KIND_STYLE.get(kind, _UNSUPPORTED) if kind else _UNSUPPORTED
    key = (label + colour, size, device_pixel_ratio)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    pixmap = QPixmap(round(size * device_pixel_ratio), round(size * device_pixel_ratio))
    pixmap.setDevicePixelRatio(device_pixel_ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    rect = QRectF(0, 0, size, size)
    fold = size * 0.28
    path = QPainterPath()
    path.moveTo(rect.left() + 3, rect.top() + 1)
    path.lineTo(rect.right() - fold, rect.top() + 1)
    path.lineTo(rect.right() - 3, rect.top() + fold)
    path.lineTo(rect.right() - 3, rect.bottom() - 1)
    path.lineTo(rect.left() + 3, rect.bottom() - 1)
    path.closeSubpath()
    painter.fillPath(path, QColor(colour))
    corner = QPainterPath()
    corner.moveTo(rect.right() - fold, rect.top() + 1)
    corner.lineTo(rect.right() - fold, rect.top() + fold)
    corner.lineTo(rect.right() - 3, rect.top() + fold)
    corner.closeSubpath()
    painter.fillPath(corner, QColor(255, 255, 255, 90))
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(7, int(size * (0.26 if len(label) > 3 else 0.3))))
    painter.setFont(font)
    painter.setPen(QColor(255, 255, 255))
    label_rect = QRectF(rect.left() + 3, rect.top() + size * 0.35, size - 6, size * 0.5)
    painter.drawText(label_rect, Qt.AlignmentFlag.AlignCenter, label)
    painter.end()
    _CACHE[key] = pixmap
    return pixmap


_FILE_ICONS: dict[str, QIcon] = {}


def painted_icon(draw: Callable[[QPainter, QColor], None], colour: QColor) -> QIcon:
    """An icon at 16 and 32 pixels, ``draw`` painting on a 16-pixel grid."""
    icon = QIcon()
    for size in (16, 32):
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.scale(size / 16, size / 16)
        draw(painter, colour)
        painter.end()
        icon.addPixmap(pixmap)
    return icon


def _draw_page(painter: QPainter, colour: QColor) -> None:
    fold = 4.5
    page = QPainterPath()
    page.moveTo(3, 1.5)
    page.lineTo(13 - fold, 1.5)
    page.lineTo(13, 1.5 + fold)
    page.lineTo(13, 14.5)
    page.lineTo(3, 14.5)
    page.closeSubpath()
    painter.fillPath(page, colour)
    corner = QPainterPath()
    corner.moveTo(13 - fold, 1.5)
    corner.lineTo(13 - fold, 1.5 + fold)
    corner.lineTo(13, 1.5 + fold)
    corner.closeSubpath()
    painter.fillPath(corner, QColor(255, 255, 255, 110))
    painter.fillRect(QRectF(5, 8.5, 6, 1.2), QColor(255, 255, 255, 170))
    painter.fillRect(QRectF(5, 11, 4.5, 1.2), QColor(255, 255, 255, 170))


def kind_file_icon(kind: Kind | None) -> QIcon:
    """A small page in the kind's colour, for lists such as the file tree.

    No label: at 16 pixels letters are noise; the colour matches the cards'.
    """
    colour = kind_colour(kind).name()
    icon = _FILE_ICONS.get(colour)
    if icon is not None:
        return icon
    icon = painted_icon(_draw_page, QColor(colour))
    _FILE_ICONS[colour] = icon
    return icon
