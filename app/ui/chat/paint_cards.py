"""Painting of tool cards, deliverable cards, images and the turn actions row."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Final

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QTransform,
)

from app.core.chat.blocks import DeliverableBlock, ImageBlock, ToolCallBlock
from app.core.chat.tool_names import PRESENT, SHOW_IMAGE
from app.core.filetype import Kind
from app.core.filetype.sizes import counted, human_size
from app.core.trust.display_names import display_name, display_text
from app.core.trust.present_failure import parse_present_failure
from app.ui.cards.icons import kind_icon
from app.ui.chat.style import (
    ACTIONS_HEIGHT,
    CARD_GAP,
    CARD_HEIGHT,
    RADIUS,
    TOOL_HEADER,
    Colours,
    blend,
    column,
)

RESULT_LINES_LIMIT: Final = 80
ERROR_LINES_LIMIT: Final = 8
ICON_SIZE: Final = 36
MENU_WIDTH: Final = 34
ELIDE = Qt.TextElideMode.ElideRight
_ALIGN_LEFT_V = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
_WRAP = Qt.TextFlag.TextWordWrap | Qt.TextFlag.TextWrapAnywhere


def rounded(painter: QPainter, rect: QRect | QRectF, fill: object, pen: object) -> None:
    path = QPainterPath()
    path.addRoundedRect(QRectF(rect), RADIUS, RADIUS)
    painter.setPen(pen)
    painter.setBrush(fill)
    painter.drawPath(path)


_BACKGROUNDS: OrderedDict[tuple[int, int, int, int, float], QPixmap] = OrderedDict()
_BACKGROUNDS_MAX: Final = 32


def card_background(
    painter: QPainter, rect: QRect, fill: QColor, border: QColor
) -> None:
    """``rounded`` with a 1 px border, drawn from a pixmap kept per size and colours.

    Every card of a kind has the same size, and an antialiased rounded path
    costs several times what copying its pixels does.
    """
    transform = painter.worldTransform()
    translated = (
        transform.type().value <= QTransform.TransformationType.TxTranslate.value
    )
    if not translated or not (
        transform.dx().is_integer() and transform.dy().is_integer()
    ):
        rounded(painter, rect, fill, QPen(border, 1))
        return
    ratio = painter.device().devicePixelRatioF()
    key = (rect.width(), rect.height(), fill.rgba(), border.rgba(), ratio)
    pixmap = _BACKGROUNDS.get(key)
    if pixmap is None:
        # One pixel of margin holds the half of the border outside the rect.
        pixmap = QPixmap(
            math.ceil((rect.width() + 2) * ratio),
            math.ceil((rect.height() + 2) * ratio),
        )
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        tile = QPainter(pixmap)
        tile.setRenderHint(QPainter.RenderHint.Antialiasing)
        tile.translate(1, 1)
        rounded(tile, QRect(0, 0, rect.width(), rect.height()), fill, QPen(border, 1))
        tile.end()
        _BACKGROUNDS[key] = pixmap
        if len(_BACKGROUNDS) > _BACKGROUNDS_MAX:
            _BACKGROUNDS.popitem(last=False)
    else:
        _BACKGROUNDS.move_to_end(key)
    painter.drawPixmap(rect.left() - 1, rect.top() - 1, pixmap)


def small_font(font: QFont) -> QFont:
    small = QFont(font)
    small.setPointSizeF(max(6.0, font.pointSizeF() * 0.9))
    return small


def mono_font(font: QFont) -> QFont:
    mono = QFont("monospace")
    mono.setStyleHint(QFont.StyleHint.Monospace)
    mono.setPointSizeF(max(6.0, font.pointSizeF() * 0.88))
    return mono


# -- tool cards --------------------------------------------------------------


def tool_card_rect(row: QRect) -> QRect:
    col = column(row)
    return QRect(col.left(), row.top() + 3, col.width(), row.height() - 6)


def tool_body_text(block: ToolCallBlock, expanded: bool) -> str:
    """The text under a tool card's header: arguments, error, or the result.

    Tool output names files, so it reads as ``display_text`` shows it.
    """
    return display_text(_tool_body_text(block, expanded))


def _tool_body_text(block: ToolCallBlock, expanded: bool) -> str:
    if block.state == "running":
        return block.args_json_text
    if block.state == "error":
        failure = (
            parse_present_failure(block.result_text) if block.name == PRESENT else None
        )
        if failure is not None:
            # Every failing entry, as the user reads it; not the model's JSON.
            lines = failure.text().splitlines()
            kept = lines[: ERROR_LINES_LIMIT + 1]
            if len(lines) > len(kept):
                kept.append(f"… and {len(lines) - len(kept)} more")
            return "\n".join(kept)
        lines = block.result_text.splitlines()[:ERROR_LINES_LIMIT]
        return "\n".join(lines)
    if expanded:
        return "\n".join(block.result_text.splitlines()[:RESULT_LINES_LIMIT])
    return ""


def _is_present_failure(block: ToolCallBlock) -> bool:
    return (
        block.state == "error"
        and block.name == PRESENT
        and parse_present_failure(block.result_text) is not None
    )


def body_font(block: ToolCallBlock, font: QFont) -> QFont:
    """Prose for a failed present (read by people), monospace for tool output."""
    return font if _is_present_failure(block) else mono_font(font)


def tool_body_height(
    block: ToolCallBlock, expanded: bool, width: int, font: QFont
) -> int:
    text = tool_body_text(block, expanded)
    if not text:
        return 0
    metrics = QFontMetrics(body_font(block, font))
    if block.state == "running":
        return metrics.height() + 10
    bound = metrics.boundingRect(QRect(0, 0, max(40, width - 28), 1 << 20), _WRAP, text)
    return bound.height() + 14


def tool_summary(block: ToolCallBlock) -> str:
    """The one line a tool card shows: "✓ present — 8 files" style.

    Its text names files ("Wrote 21 bytes to …"), so it reads as
    ``display_name`` shows a name.
    """
    return display_name(_tool_summary(block))


def _tool_summary(block: ToolCallBlock) -> str:
    if block.state == "running":
        return block.name
    if block.state == "error":
        if block.name == PRESENT:
            return f"{block.name} — failed, nothing was presented"
        return f"{block.name} — failed"
    if block.state == "ended":
        return f"{block.name} — ended without a result"
    if block.name == PRESENT:
        # How many cards follow is the record's to say, not the tool's text.
        count = block.file_count
        if count is None:
            return block.name
        return f"{block.name} — {counted(count, 'file')}"
    if block.name == SHOW_IMAGE:
        return f"{block.name} — image shown"
    text = block.result_text.strip()
    lines = text.splitlines()
    first = lines[0] if lines else ""
    if not text:
        return block.name
    if first[:1] in "{[" or len(lines) > 1:
        return f"{block.name} — {counted(len(lines), 'line')}"
    return f"{block.name} — {first}"


def paint_tool_card(
    painter: QPainter,
    row: QRect,
    block: ToolCallBlock,
    expanded: bool,
    colours: Colours,
    font: QFont,
    spinner_phase: float,
) -> None:
    card = tool_card_rect(row)
    border = colours.error if block.state == "error" else colours.border
    card_background(painter, card, colours.card, border)
    header = QRect(card.left() + 12, card.top(), card.width() - 24, TOOL_HEADER)
    marker = QRectF(header.left(), header.center().y() - 8, 16, 16)
    if block.state == "running":
        _paint_spinner(painter, marker, colours, spinner_phase)
    else:
        glyph = {"error": "✕", "ended": "\u2013"}.get(block.state, "✓")
        painter.setPen(
            {"error": colours.error, "ended": colours.muted}.get(
                block.state, colours.accent
            )
        )
        bold = QFont(font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.drawText(marker, Qt.AlignmentFlag.AlignCenter, glyph)
    painter.setFont(font)
    painter.setPen(colours.text)
    text_rect = header.adjusted(26, 0, -24, 0)
    summary = QFontMetrics(font).elidedText(
        tool_summary(block), ELIDE, text_rect.width()
    )
    painter.drawText(text_rect, _ALIGN_LEFT_V, summary)
    if block.state == "finished" and block.result_text:
        painter.setPen(colours.muted)
        arrow = "▾" if expanded else "▸"
        painter.drawText(
            header.adjusted(0, 0, 0, 0),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            arrow,
        )
    text = tool_body_text(block, expanded)
    if not text:
        return
    mono = body_font(block, font)
    painter.setFont(mono)
    body = QRect(
        card.left() + 14,
        card.top() + TOOL_HEADER,
        card.width() - 28,
        card.height() - TOOL_HEADER - 6,
    )
    if block.state == "running":
        painter.setPen(colours.muted)
        line = QFontMetrics(mono).elidedText(
            " ".join(text.split()), ELIDE, body.width()
        )
        painter.drawText(
            body, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, line
        )
        return
    painter.setPen(colours.error if block.state == "error" else colours.muted)
    painter.drawText(
        body,
        int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop) | int(_WRAP),
        text,
    )


def _paint_spinner(
    painter: QPainter, rect: QRectF, colours: Colours, phase: float
) -> None:
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    centre = rect.center()
    for i in range(8):
        angle = (i / 8.0 + phase) * 2 * math.pi
        strength = (i + 1) / 8.0
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(blend(colours.card, colours.accent, strength))
        point = QPointF(
            centre.x() + 6 * math.cos(angle), centre.y() + 6 * math.sin(angle)
        )
        painter.drawEllipse(point, 1.8, 1.8)
    painter.restore()


# -- deliverable cards -------------------------------------------------------


def _paint_thumbnail(
    painter: QPainter, box: QRect, image: QImage, colours: Colours
) -> None:
    """``image`` fitted into ``box`` (aspect kept, centred), with a thin frame."""
    size = image.size().scaled(box.size(), Qt.AspectRatioMode.KeepAspectRatio)
    target = QRect(0, 0, max(size.width(), 1), max(size.height(), 1))
    target.moveCenter(box.center())
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
    painter.drawImage(target, image)
    painter.setPen(colours.border)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(target.adjusted(0, 0, -1, -1))
    painter.restore()


def deliverable_card_rect(row: QRect) -> QRect:
    col = column(row)
    return QRect(col.left(), row.top() + CARD_GAP // 2, col.width(), CARD_HEIGHT)


def menu_button_rect(row: QRect, block: DeliverableBlock) -> QRect | None:
    if block.entry is None:
        return None
    card = deliverable_card_rect(row)
    return QRect(card.right() - MENU_WIDTH - 8, card.center().y() - 15, MENU_WIDTH, 30)


def _badge(
    painter: QPainter,
    right: int,
    y: int,
    text: str,
    colour: object,
    colours: Colours,
    font: QFont,
) -> int:
    metrics = QFontMetrics(font)
    width = metrics.horizontalAdvance(text) + 14
    rect = QRectF(right - width, y, width, metrics.height() + 4)
    painter.setPen(QPen(colour, 1))  # type: ignore[call-overload]
    painter.setBrush(blend(colours.card, colour, 0.15))  # type: ignore[arg-type]
    painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
    painter.setFont(font)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
    return int(rect.left()) - 6


def paint_deliverable(
    painter: QPainter,
    row: QRect,
    block: DeliverableBlock,
    verdict: str | None,
    colours: Colours,
    font: QFont,
    hovered: bool,
    device_pixel_ratio: float,
    thumbnail: QImage | None = None,
) -> None:
    card = deliverable_card_rect(row)
    fill = colours.card_hover if hovered else colours.card
    card_background(painter, card, fill, colours.border)
    entry = block.entry
    kind = entry.kind_enum if entry is not None else None
    icon_y = card.center().y() - ICON_SIZE // 2
    if thumbnail is not None and not thumbnail.isNull():
        _paint_thumbnail(
            painter,
            QRect(card.left() + 14, icon_y, ICON_SIZE, ICON_SIZE),
            thumbnail,
            colours,
        )
    else:
        icon = kind_icon(
            kind if entry is not None else None, ICON_SIZE, device_pixel_ratio
        )
        painter.drawPixmap(card.left() + 14, icon_y, icon)
    text_left = card.left() + 14 + ICON_SIZE + 12
    menu = menu_button_rect(row, block)
    right = (menu.left() - 8) if menu is not None else card.right() - 12
    small = small_font(font)
    bold = QFont(font)
    bold.setBold(True)
    name_metrics = QFontMetrics(bold)
    top = card.top() + 10
    if entry is not None:
        description = _two_lines(entry.description, small, right - text_left)
        lines = description.count("\n") + 1 if description else 0
        content = name_metrics.height() + 3 + lines * QFontMetrics(small).height()
        top = card.center().y() - content // 2
    if entry is None:
        painter.setFont(bold)
        painter.setPen(colours.text)
        version = block.unsupported.version if block.unsupported is not None else None
        painter.drawText(
            QRect(text_left, top, right - text_left, name_metrics.height()),
            _ALIGN_LEFT_V,
            f"Unsupported record (version {version})",
        )
        painter.setFont(small)
        painter.setPen(colours.muted)
        painter.drawText(
            QRect(text_left, top + name_metrics.height() + 4, right - text_left, 20),
            _ALIGN_LEFT_V,
            "This app cannot read this record; it offers no file actions.",
        )
        return
    # Badges sit on the name line, right-aligned, so long names elide before them.
    badge_right = right
    if verdict:
        colour = colours.warning if verdict == "changed" else colours.error
        badge_right = _badge(
            painter,
            badge_right,
            top - 1,
            verdict.replace("_", " "),
            colour,
            colours,
            small,
        )
    if entry.hides_characters:
        # The name holds characters that reorder or hide letters; say so.
        badge_right = _badge(
            painter,
            badge_right,
            top - 1,
            "hidden characters",
            colours.warning,
            colours,
            small,
        )
    if entry.scope == "external":
        badge_right = _badge(
            painter, badge_right, top - 1, "external", colours.accent, colours, small
        )
    if entry.remote is not None:
        # The host it lives on: its actions go there, never to this computer.
        host = display_name(entry.remote.host)
        badge_right = _badge(
            painter, badge_right, top - 1, host, colours.accent, colours, small
        )
    # The name gets the room first; its folder (when another card shares
    # the name) and its size follow in what is left.
    size_text = human_size(entry.size)
    if block.folder:
        size_text = f"{display_name(block.folder)} \u00b7 {size_text}"
    small_metrics = QFontMetrics(small)
    room = max(20, badge_right - text_left)
    name = name_metrics.elidedText(
        entry.display_name, Qt.TextElideMode.ElideMiddle, room
    )
    drawn = name_metrics.horizontalAdvance(name)
    left_over = room - drawn - 10
    if small_metrics.horizontalAdvance(size_text) > left_over:
        # The nearest folder and the size are kept; the start is cut.
        size_text = small_metrics.elidedText(
            size_text, Qt.TextElideMode.ElideLeft, max(0, left_over)
        )
    painter.setFont(bold)
    painter.setPen(colours.text)
    painter.drawText(
        QRect(text_left, top, drawn + 2, name_metrics.height()), _ALIGN_LEFT_V, name
    )
    painter.setFont(small)
    painter.setPen(colours.muted)
    if left_over > 0 and size_text:
        painter.drawText(
            QRect(text_left + drawn + 10, top, left_over, name_metrics.height()),
            _ALIGN_LEFT_V,
            size_text,
        )
    description_rect = QRect(
        text_left,
        top + name_metrics.height() + 3,
        right - text_left,
        card.bottom() - top - name_metrics.height() - 10,
    )
    painter.drawText(
        description_rect,
        int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop),
        description,
    )
    if menu is not None:
        painter.setPen(colours.muted)
        painter.setFont(bold)
        painter.drawText(menu, Qt.AlignmentFlag.AlignCenter, "⋯")


def _two_lines(text: str, font: QFont, width: int) -> str:
    """``text`` as at most two lines, the second elided."""
    metrics = QFontMetrics(font)
    words = " ".join(text.split())
    if metrics.horizontalAdvance(words) <= width:
        return words
    first = ""
    for word in words.split(" "):
        trial = f"{first} {word}".strip()
        if metrics.horizontalAdvance(trial) > width:
            break
        first = trial
    if not first:
        return metrics.elidedText(words, ELIDE, width)
    rest = words[len(first) :].strip()
    return first + "\n" + metrics.elidedText(rest, ELIDE, width)


# -- images --------------------------------------------------------------------


def image_caption_height(block: ImageBlock, width: int, font: QFont) -> int:
    if not block.caption:
        return 0
    bound = QFontMetrics(small_font(font)).boundingRect(
        QRect(0, 0, width, 1 << 20), _WRAP, display_text(block.caption)
    )
    return bound.height() + 6


def paint_image(
    painter: QPainter,
    row: QRect,
    block: ImageBlock,
    image: object,
    colours: Colours,
    font: QFont,
) -> None:
    col = column(row)
    top = row.top() + 4
    if isinstance(image, QImage) and not image.isNull():
        dpr = painter.device().devicePixelRatioF() if painter.device() else 1.0
        width = min(image.width(), col.width())
        height = round(image.height() * width / max(1, image.width()))
        target = QRect(col.left(), top, width, height)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        clip = QPainterPath()
        clip.addRoundedRect(QRectF(target), 8, 8)
        painter.setClipPath(clip)
        painter.drawImage(target, image)
        painter.restore()
        del dpr
        top += height + 4
    else:
        box = QRect(col.left(), top, min(col.width(), 480), 56)
        rounded(
            painter, box, colours.card, QPen(colours.border, 1, Qt.PenStyle.DashLine)
        )
        if block.mime == "image/svg+xml":
            message = f"SVG image: {display_name(block.alt_text)}"
        elif isinstance(image, str):
            message = image
        else:
            message = f"Loading image: {display_name(block.alt_text)}"
        painter.setFont(small_font(font))
        painter.setPen(colours.error if isinstance(image, str) else colours.muted)
        inner = box.adjusted(12, 0, -12, 0)
        painter.drawText(
            inner,
            _ALIGN_LEFT_V,
            QFontMetrics(small_font(font)).elidedText(message, ELIDE, inner.width()),
        )
        top += 56 + 4
    if block.caption:
        painter.setFont(small_font(font))
        painter.setPen(colours.muted)
        painter.drawText(
            QRect(col.left(), top, col.width(), row.bottom() - top),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop) | int(_WRAP),
            display_text(block.caption),
        )


# -- turn actions ----------------------------------------------------------------

ACTION_LABELS: Final = (("copy", "Copy answer"), ("fork", "Fork from here"))


def action_button_rects(row: QRect, font: QFont) -> list[tuple[str, QRect]]:
    col = column(row)
    metrics = QFontMetrics(small_font(font))
    left = col.left()
    rects: list[tuple[str, QRect]] = []
    for name, label in ACTION_LABELS:
        width = metrics.horizontalAdvance(label) + 24
        rects.append((name, QRect(left, row.top() + 4, width, ACTIONS_HEIGHT - 8)))
        left += width + 8
    return rects


def paint_actions(
    painter: QPainter, row: QRect, colours: Colours, font: QFont, hovered: str | None
) -> None:
    small = small_font(font)
    painter.setFont(small)
    for (name, rect), (_, label) in zip(
        action_button_rects(row, font), ACTION_LABELS, strict=True
    ):
        fill = colours.card_hover if hovered == name else colours.base
        painter.setPen(QPen(colours.border, 1))
        painter.setBrush(fill)
        painter.drawRoundedRect(QRectF(rect), rect.height() / 2, rect.height() / 2)
        painter.setPen(colours.muted)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)


def kind_of(block: DeliverableBlock) -> Kind | None:
    return block.entry.kind_enum if block.entry is not None else None
