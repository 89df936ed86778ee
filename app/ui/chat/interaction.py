"""Mouse and keyboard on the chat: cards open, menus pop up, tool cards fold."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QListView

from app.core.revalidate import DeliverableRef
from app.core.transcript import DeliverableBlock, ToolCallBlock, TurnActionsBlock
from app.ui.chat import paint_cards as cards
from app.ui.chat.delegate import ChatDelegate
from app.ui.chat.model import ChatModel


class ChatInteractionView(QListView):
    """What a click or a key on a row means; the subclass owns model and delegate.

    Signals:
        deliverableActivated(DeliverableRef): a card was clicked or Enter pressed.
        deliverableMenuRequested(DeliverableRef, QPoint): "⋯", right click, Menu key.
        forkRequested(str, int): conversation id and fork position.
        notice(str): a short message for the status area.
    """

    deliverableActivated = Signal(object)
    deliverableMenuRequested = Signal(object, QPoint)
    forkRequested = Signal(str, int)
    notice = Signal(str)

    _chat: ChatModel
    _delegate: ChatDelegate
    _press: tuple[int, str] | None

    def _part_at(self, point: QPoint) -> tuple[int, str] | None:
        index = self.indexAt(point)
        if not index.isValid():
            return None
        part = self._delegate.hit(index, self.visualRect(index), point, self.font())
        return (index.row(), part) if part else None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        super().mousePressEvent(event)
        self._press = self._part_at(event.position().toPoint())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        press, self._press = self._press, None
        if event.button() != Qt.MouseButton.LeftButton or press is None:
            return
        point = event.position().toPoint()
        if self._part_at(point) != press:
            return
        self._act(press[0], press[1], self.viewport().mapToGlobal(point))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        super().mouseMoveEvent(event)
        hover = self._part_at(event.position().toPoint())
        if hover != self._delegate.hover:
            for old in (self._delegate.hover, hover):
                if old is not None:
                    self.viewport().update(self.visualRect(self._chat.index(old[0])))
            self._delegate.hover = hover
            shape = (
                Qt.CursorShape.PointingHandCursor
                if hover
                else Qt.CursorShape.ArrowCursor
            )
            self.viewport().setCursor(shape)

    def leaveEvent(self, event: Any) -> None:
        super().leaveEvent(event)
        if self._delegate.hover is not None:
            self.viewport().update(
                self.visualRect(self._chat.index(self._delegate.hover[0]))
            )
            self._delegate.hover = None

    def contextMenuEvent(self, event: Any) -> None:
        index = self.indexAt(event.pos())
        if index.isValid() and self._menu_ref(index.row()) is not None:
            self.setCurrentIndex(index)
            self._act(index.row(), "menu", event.globalPos())
            event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        row = self.currentIndex().row() if self.currentIndex().isValid() else -1
        key = event.key()
        menu_key = key == Qt.Key.Key_Menu or (
            key == Qt.Key.Key_F10
            and event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        )
        if row >= 0 and menu_key and self._menu_ref(row) is not None:
            rect = self.visualRect(self._chat.index(row))
            block = self._chat.block(row)
            assert isinstance(block, DeliverableBlock)
            button = cards.menu_button_rect(rect, block) or rect
            self._act(row, "menu", self.viewport().mapToGlobal(button.bottomLeft()))
            event.accept()
            return
        if row >= 0 and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            block = self._chat.block(row)
            if isinstance(block, DeliverableBlock):
                self._act(row, "card", QPoint())
            elif isinstance(block, ToolCallBlock):
                self._act(row, "toggle", QPoint())
            event.accept()
            return
        super().keyPressEvent(event)

    def _menu_ref(self, row: int) -> DeliverableRef | None:
        block = self._chat.block(row)
        if isinstance(block, DeliverableBlock) and block.entry is not None:
            return block.ref
        return None

    def _act(self, row: int, part: str, global_point: QPoint) -> None:
        block = self._chat.block(row)
        if isinstance(block, DeliverableBlock) and block.entry is not None:
            if part == "menu":
                self.deliverableMenuRequested.emit(block.ref, global_point)
            elif part == "card":
                self.deliverableActivated.emit(block.ref)
        elif isinstance(block, ToolCallBlock) and part == "toggle":
            if block.state == "finished" and block.result_text:
                self._chat.toggle_expanded(row)
        elif isinstance(block, TurnActionsBlock):
            if part == "copy":
                QGuiApplication.clipboard().setText(block.answer_text)
                self.notice.emit("Answer copied")
            elif part == "fork":
                self.forkRequested.emit(self._chat.conversation_id, block.fork_position)
