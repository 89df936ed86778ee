"""Paints chat rows and measures them: exact heights on screen, estimates elsewhere."""

from __future__ import annotations

from typing import Any, Final

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QFont,
    QFontMetrics,
    QImage,
    QPainter,
    QPalette,
    QPen,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.core.chat.blocks import (
    AssistantTextBlock,
    Block,
    ChangesBlock,
    DeliverableBlock,
    ImageBlock,
    ImportedFileBlock,
    RunErrorBlock,
    ToolCallBlock,
    TurnActionsBlock,
    UserBlock,
)
from app.ui.chat import paint_cards as cards
from app.ui.chat import paint_changes, paint_imported
from app.ui.chat.markdown import DocumentCache, SafeTextDocument
from app.ui.chat.model import (
    BlockRole,
    ExpandedRole,
    ImageRole,
    ThumbnailRole,
    VerdictRole,
)
from app.ui.chat.selection import TextSelection
from app.ui.chat.style import (
    ACTIONS_HEIGHT,
    BUBBLE_PAD_X,
    BUBBLE_PAD_Y,
    CARD_GAP,
    CARD_HEIGHT,
    IMAGE_PLACEHOLDER,
    TOOL_HEADER,
    TURN_GAP,
    Colours,
    column,
)

_Index = QModelIndex | QPersistentModelIndex
_WRAP: Final = Qt.TextFlag.TextWordWrap
TEXT_GAP: Final = 10
USER_SHARE: Final = 0.78  # widest a user bubble gets, as a share of the column


class ChatDelegate(QStyledItemDelegate):
    """Paints every kind of chat row; the view owns the height cache.

    ``spinner_phase`` (0..1) turns running tool spinners; ``hover`` is the
    (row, part) under the mouse; ``selection`` is the text the user selected,
    painted over the rows it spans. User messages and answers are laid out as
    documents (``text_document``), so both are hit-tested and selected alike.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.documents = DocumentCache()
        self.plain_documents = DocumentCache(plain=True)
        self.spinner_phase = 0.0
        self.hover: tuple[int, str] | None = None
        self.selection = TextSelection()
        self._colours: tuple[int, Colours] | None = None

    # -- measuring -------------------------------------------------------------

    def colours(self, palette: QPalette) -> Colours:
        key = palette.cacheKey()
        if self._colours is None or self._colours[0] != key:
            self._colours = (key, Colours.of(palette))
        return self._colours[1]

    def document(
        self, block: AssistantTextBlock, width: int, font: QFont, palette: QPalette
    ) -> SafeTextDocument:
        return self.documents.get(block.text, max(40, width), font, palette)

    def user_document(self, text: str, col: int, font: QFont) -> QTextDocument:
        inner = max(40, self._bubble_width(col) - 2 * BUBBLE_PAD_X)
        return self.plain_documents.get(text, inner, font, QPalette())

    def text_document(
        self, index: _Index, rect: QRect, font: QFont, palette: QPalette
    ) -> tuple[QTextDocument, QPointF] | None:
        """The laid-out text of a message row and where it is drawn in ``rect``.

        ``None`` for rows that hold no selectable text (cards, tool calls).
        """
        block = index.data(BlockRole)
        col = column(rect)
        if isinstance(block, AssistantTextBlock):
            answer = self.document(block, col.width(), font, palette)
            return answer, QPointF(col.left(), rect.top() + 4)
        if isinstance(block, UserBlock):
            message = self.user_document(block.text, col.width(), font)
            bubble = self._bubble_rect(rect, message)
            return message, QPointF(
                bubble.left() + BUBBLE_PAD_X, bubble.top() + BUBBLE_PAD_Y
            )
        return None

    def exact_height(
        self, index: _Index, width: int, font: QFont, palette: QPalette
    ) -> int:
        block = index.data(BlockRole)
        col = column(QRect(0, 0, width, 1)).width()
        if isinstance(block, UserBlock):
            document = self.user_document(block.text, col, font)
            height = round(document.size().height()) + 2 * BUBBLE_PAD_Y
            return TURN_GAP + height + TEXT_GAP
        if isinstance(block, AssistantTextBlock):
            document = self.document(block, col, font, palette)
            return round(document.size().height()) + TEXT_GAP + 4
        if isinstance(block, ToolCallBlock):
            expanded = bool(index.data(ExpandedRole))
            body = cards.tool_body_height(block, expanded, col, font)
            return TOOL_HEADER + body + 6
        if isinstance(block, ImageBlock):
            return self._image_height(block, index.data(ImageRole), col, font)
        if isinstance(block, DeliverableBlock | ImportedFileBlock):
            return CARD_HEIGHT + CARD_GAP
        if isinstance(block, ChangesBlock):
            expanded = bool(index.data(ExpandedRole))
            return paint_changes.changes_height(block, expanded)
        if isinstance(block, TurnActionsBlock):
            return ACTIONS_HEIGHT + 6
        if isinstance(block, RunErrorBlock):
            metrics = QFontMetrics(font)
            box = metrics.boundingRect(
                QRect(0, 0, col - 28, 1 << 20), _WRAP, block.text
            )
            return box.height() + 2 * BUBBLE_PAD_Y + TEXT_GAP
        return 1

    @staticmethod
    def estimate_height(block: Block, width: int, line_height: int, char: int) -> int:
        """A cheap guess for a row never shown: only character counts and metrics."""
        col = min(820, max(120, width - 40))
        if isinstance(block, DeliverableBlock | ImportedFileBlock):
            return CARD_HEIGHT + CARD_GAP
        if isinstance(block, ToolCallBlock):
            if block.state == "running":
                return TOOL_HEADER + line_height + 16
            return TOOL_HEADER + 6 + (4 * line_height if block.state == "error" else 0)
        if isinstance(block, TurnActionsBlock):
            return ACTIONS_HEIGHT + 6
        if isinstance(block, ChangesBlock):
            return paint_changes.changes_height(block, False)
        if isinstance(block, ImageBlock):
            return IMAGE_PLACEHOLDER + 2 * line_height
        if isinstance(block, UserBlock):
            per_line = max(10, int(col * USER_SHARE - 2 * BUBBLE_PAD_X) // char)
            lines = len(block.text) // per_line + 1 + block.text.count("\n")
            return TURN_GAP + lines * line_height + 2 * BUBBLE_PAD_Y + TEXT_GAP
        text = block.text
        per_line = max(10, col // char)
        lines = len(text) // per_line + 1 + text.count("\n")
        return int(lines * line_height * 1.1) + TEXT_GAP + 4

    def _bubble_width(self, col: int) -> int:
        return int(col * USER_SHARE)

    def _bubble_rect(self, rect: QRect, document: QTextDocument) -> QRect:
        col = column(rect)
        inner_max = self._bubble_width(col.width()) - 2 * BUBBLE_PAD_X
        inner = min(inner_max, int(document.idealWidth()) + 2)
        width = inner + 2 * BUBBLE_PAD_X
        return QRect(
            col.right() - width,
            rect.top() + TURN_GAP,
            width,
            rect.height() - TURN_GAP - TEXT_GAP,
        )

    def _image_height(
        self, block: ImageBlock, image: object, col: int, font: QFont
    ) -> int:
        caption = cards.image_caption_height(block, col, font)
        if isinstance(image, QImage) and not image.isNull():
            width = min(image.width(), col)
            height = round(image.height() * width / max(1, image.width()))
            return 4 + height + 4 + caption + TEXT_GAP
        return 4 + 56 + 4 + caption + TEXT_GAP

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        width = option.rect.width() or 600
        return QSize(
            width, self.exact_height(index, width, option.font, option.palette)
        )

    # -- hit testing -------------------------------------------------------------

    def hit(self, index: _Index, rect: QRect, point: QPoint, font: QFont) -> str | None:
        """Which part of the row at ``rect`` is under ``point``.

        "card", "menu", "toggle", "copy", "fork", "file:I", "diff:I", or None
        for empty space.
        """
        block = index.data(BlockRole)
        if isinstance(block, DeliverableBlock):
            menu = cards.menu_button_rect(rect, block)
            if menu is not None and menu.contains(point):
                return "menu"
            if cards.deliverable_card_rect(rect).contains(point):
                return "card"
            return None
        if isinstance(block, ToolCallBlock):
            if cards.tool_card_rect(rect).contains(point):
                return "toggle"
            return None
        if isinstance(block, ChangesBlock):
            expanded = bool(index.data(ExpandedRole))
            return paint_changes.hit_changes(rect, block, expanded, point)
        if isinstance(block, ImportedFileBlock):
            return paint_imported.hit_imported(rect, point)
        if isinstance(block, TurnActionsBlock):
            for name, button in cards.action_button_rects(rect, font):
                if button.contains(point):
                    return name
        return None

    # -- painting ----------------------------------------------------------------

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: _Index
    ) -> None:
        block = index.data(BlockRole)
        rect = QRect(option.rect)
        colours = self.colours(option.palette)
        font = option.font
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        hover = self.hover[1] if self.hover and self.hover[0] == index.row() else None
        if isinstance(block, UserBlock):
            self._paint_user(painter, rect, block, colours, option, index.row())
        elif isinstance(block, AssistantTextBlock):
            self._paint_text(painter, rect, block, option, index.row())
        elif isinstance(block, ToolCallBlock):
            expanded = bool(index.data(ExpandedRole))
            cards.paint_tool_card(
                painter, rect, block, expanded, colours, font, self.spinner_phase
            )
        elif isinstance(block, ImageBlock):
            cards.paint_image(
                painter, rect, block, index.data(ImageRole), colours, font
            )
        elif isinstance(block, DeliverableBlock):
            ratio = painter.device().devicePixelRatioF()
            verdict = index.data(VerdictRole)
            cards.paint_deliverable(
                painter,
                rect,
                block,
                verdict,
                colours,
                font,
                hover is not None,
                ratio,
                index.data(ThumbnailRole),
            )
        elif isinstance(block, ChangesBlock):
            expanded = bool(index.data(ExpandedRole))
            paint_changes.paint_changes(
                painter, rect, block, expanded, colours, font, hover
            )
        elif isinstance(block, ImportedFileBlock):
            paint_imported.paint_imported(
                painter,
                rect,
                block,
                index.data(VerdictRole),
                colours,
                font,
                hover,
                painter.device().devicePixelRatioF(),
            )
        elif isinstance(block, TurnActionsBlock):
            cards.paint_actions(painter, rect, colours, font, hover)
        elif isinstance(block, RunErrorBlock):
            self._paint_error(painter, rect, block, colours, font)
        if option.state & QStyle.StateFlag.State_HasFocus:
            self._paint_focus(painter, rect, block, colours)
        painter.restore()

    def _paint_user(
        self,
        painter: QPainter,
        rect: QRect,
        block: UserBlock,
        colours: Colours,
        option: QStyleOptionViewItem,
        row: int,
    ) -> None:
        document = self.user_document(block.text, column(rect).width(), option.font)
        bubble = self._bubble_rect(rect, document)
        cards.rounded(painter, bubble, colours.bubble, Qt.PenStyle.NoPen)
        painter.translate(bubble.left() + BUBBLE_PAD_X, bubble.top() + BUBBLE_PAD_Y)
        self._draw_document(painter, document, option.palette, colours.text, row)

    def _paint_text(
        self,
        painter: QPainter,
        rect: QRect,
        block: AssistantTextBlock,
        option: QStyleOptionViewItem,
        row: int,
    ) -> None:
        col = column(rect)
        document = self.document(block, col.width(), option.font, option.palette)
        painter.translate(col.left(), rect.top() + 4)
        text = option.palette.color(QPalette.ColorRole.Text)
        self._draw_document(painter, document, option.palette, text, row)

    def _draw_document(
        self,
        painter: QPainter,
        document: QTextDocument,
        palette: QPalette,
        text: Any,
        row: int,
    ) -> None:
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = QPalette(palette)
        context.palette.setColor(QPalette.ColorRole.Text, text)
        span = self.selection.span(row, document.characterCount() - 1)
        if span is not None:
            cursor = QTextCursor(document)
            cursor.setPosition(span[0])
            cursor.setPosition(span[1], QTextCursor.MoveMode.KeepAnchor)
            chosen = QAbstractTextDocumentLayout.Selection()
            chosen.cursor = cursor
            highlight = QTextCharFormat()
            highlight.setBackground(palette.color(QPalette.ColorRole.Highlight))
            highlight.setForeground(palette.color(QPalette.ColorRole.HighlightedText))
            chosen.format = highlight
            context.selections = [chosen]
        document.documentLayout().draw(painter, context)

    def _paint_error(
        self,
        painter: QPainter,
        rect: QRect,
        block: RunErrorBlock,
        colours: Colours,
        font: QFont,
    ) -> None:
        col = column(rect)
        box = QRect(col.left(), rect.top() + 2, col.width(), rect.height() - TEXT_GAP)
        cards.rounded(painter, box, colours.card, QPen(colours.error, 1))
        painter.setPen(colours.error)
        painter.setFont(font)
        inner = box.adjusted(14, BUBBLE_PAD_Y, -14, -BUBBLE_PAD_Y)
        painter.drawText(
            inner,
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop) | int(_WRAP),
            block.text,
        )

    def _paint_focus(
        self, painter: QPainter, rect: QRect, block: Block, colours: Colours
    ) -> None:
        col = column(rect)
        if isinstance(block, DeliverableBlock | ImportedFileBlock):
            ring = cards.deliverable_card_rect(rect)
        elif isinstance(block, ToolCallBlock | ChangesBlock):
            ring = cards.tool_card_rect(rect)
        else:
            ring = QRect(
                col.left() - 4, rect.top() + 1, col.width() + 8, rect.height() - 2
            )
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(colours.focus, 2))
        painter.drawRoundedRect(ring.adjusted(-1, -1, 1, 1), 11, 11)
