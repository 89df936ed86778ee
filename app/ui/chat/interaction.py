"""Mouse and keyboard on the chat: cards open, menus pop up, text is selected.

Text is selected on the painted rows themselves: a press on a message's text
hit-tests that row's laid-out document, a drag extends the selection (over
several messages, scrolling at the edges), a double click selects a word and
a triple click a paragraph. Ctrl+C and the context menu copy it as plain text.
"""

from __future__ import annotations

from typing import Any, Final

from PySide6.QtCore import QElapsedTimer, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QTextDocument,
)
from PySide6.QtWidgets import QApplication, QListView, QMenu

from app.core.chat.blocks import (
    ChangesBlock,
    DeliverableBlock,
    ImportedFileBlock,
    ToolCallBlock,
    TurnActionsBlock,
)
from app.core.store.deliverables import DeliverableRef
from app.ui.chat import paint_cards as cards
from app.ui.chat.delegate import ChatDelegate
from app.ui.chat.model import ChatModel
from app.ui.chat.selection import End, paragraph_at, selected_text, word_at

AUTOSCROLL_MS: Final = 40
SLACK: Final = 4  # pixels around a text block where a press still selects


class ChatInteractionView(QListView):
    """What a click or a key on a row means; the subclass owns model and delegate.

    Signals:
        deliverableActivated(DeliverableRef): a card was clicked or Enter pressed.
        deliverableMenuRequested(DeliverableRef, QPoint): "⋯", right click, Menu key.
        deliverableDragged(DeliverableRef): a card is being dragged out.
        forkRequested(str, int): conversation id and fork position.
        changeActivated(ChangeRef): a file of "Changed files (N)" was clicked.
        changeDiffRequested(ChangeRef): its "Diff" was clicked.
        importedActivated(ImportedFileRef): an imported card was clicked.
        verifyRequested(ImportedFileRef): its "Verify" was clicked.
        notice(str): a short message for the status area.
    """

    deliverableActivated = Signal(object)
    deliverableMenuRequested = Signal(object, QPoint)
    deliverableDragged = Signal(object)
    forkRequested = Signal(str, int)
    changeActivated = Signal(object)
    changeDiffRequested = Signal(object)
    importedActivated = Signal(object)
    verifyRequested = Signal(object)
    notice = Signal(str)

    _chat: ChatModel
    _delegate: ChatDelegate
    _press: tuple[int, str] | None
    _press_point: QPoint | None
    _selecting: bool
    _autoscroll: QTimer
    _last_double: QElapsedTimer
    _pointer: QPoint

    def _init_interaction(self) -> None:
        """Called by the subclass once the model and delegate exist."""
        self._press = None
        self._press_point = None
        self._selecting = False
        self._pointer = QPoint()
        self._last_double = QElapsedTimer()
        self._autoscroll = QTimer(self)
        self._autoscroll.setInterval(AUTOSCROLL_MS)
        self._autoscroll.timeout.connect(self._on_autoscroll_timeout)

    # -- what is under the pointer -------------------------------------------------

    def _part_at(self, point: QPoint) -> tuple[int, str] | None:
        index = self.indexAt(point)
        if not index.isValid():
            return None
        part = self._delegate.hit(index, self.visualRect(index), point, self.font())
        return (index.row(), part) if part else None

    def document_for_row(self, row: int) -> QTextDocument | None:
        """The laid-out text of ``row`` at the current width, if it has text."""
        index = self._chat.index(row)
        found = self._delegate.text_document(
            index, self.visualRect(index), self.font(), self.palette()
        )
        return found[0] if found is not None else None

    def _text_hit(self, point: QPoint, *, strict: bool) -> End | None:
        index = self.indexAt(point)
        if not index.isValid():
            return None
        found = self._delegate.text_document(
            index, self.visualRect(index), self.font(), self.palette()
        )
        if found is None:
            return None
        document, origin = found
        local = QPointF(point) - origin
        if strict:
            width = min(document.textWidth(), document.idealWidth() + SLACK)
            area = QRectF(0, 0, width, document.size().height())
            if not area.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(local):
                return None
        position = document.documentLayout().hitTest(local, Qt.HitTestAccuracy.FuzzyHit)
        return index.row(), max(0, position)

    # -- selecting text ----------------------------------------------------------------

    def selected_text(self) -> str:
        """The selected text, plain; messages are separated by a blank line."""
        return selected_text(self._delegate.selection, self.document_for_row)

    def copy_selection(self) -> bool:
        text = self.selected_text()
        if text:
            QGuiApplication.clipboard().setText(text)
        return bool(text)

    def select_all_text(self) -> None:
        rows = [
            row
            for row in range(self._chat.rowCount())
            if self.document_for_row(row) is not None
        ]
        if not rows:
            return
        last = self.document_for_row(rows[-1])
        assert last is not None
        self._delegate.selection.select(
            (rows[0], 0), (rows[-1], last.characterCount() - 1)
        )
        self.viewport().update()

    def select_text(self, anchor: tuple[int, int], cursor: tuple[int, int]) -> None:
        """Select from ``anchor`` to ``cursor``, each (row, character position)."""
        self._delegate.selection.select(anchor, cursor)
        self.viewport().update()

    def clear_text_selection(self) -> None:
        if self._delegate.selection.anchor is not None:
            self._delegate.selection.clear()
            self.viewport().update()

    def _extend_to(self, point: QPoint) -> None:
        clamped = QPoint(
            point.x(), max(0, min(self.viewport().height() - 1, point.y()))
        )
        hit = self._text_hit(clamped, strict=False)
        if hit is not None:
            self._delegate.selection.extend(hit)
            self.viewport().update()

    def _on_autoscroll_timeout(self) -> None:
        if not self._selecting:
            self._autoscroll.stop()
            return
        y = self._pointer.y()
        height = self.viewport().height()
        step = y if y < 0 else y - height if y >= height else 0
        if not step:
            self._autoscroll.stop()
            return
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + max(-80, min(80, step)))
        self._extend_to(self._pointer)

    # -- mouse -------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        point = event.position().toPoint()
        part = self._part_at(point)
        if event.button() == Qt.MouseButton.LeftButton and part is None:
            hit = self._text_hit(point, strict=True)
            if hit is not None:
                self.setFocus(Qt.FocusReason.MouseFocusReason)
                tripled = (
                    self._last_double.isValid()
                    and self._last_double.elapsed()
                    < QApplication.styleHints().mouseDoubleClickInterval()
                )
                self._last_double.invalidate()
                document = self.document_for_row(hit[0])
                if tripled and document is not None:
                    start, end = paragraph_at(document, hit[1])
                    self._delegate.selection.select((hit[0], start), (hit[0], end))
                else:
                    self._delegate.selection.start(hit)
                self._selecting = not tripled
                self._press = None
                self.viewport().update()
                return
        if event.button() == Qt.MouseButton.LeftButton:
            self.clear_text_selection()
        super().mousePressEvent(event)
        self._press = part
        self._press_point = point if part is not None else None

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        point = event.position().toPoint()
        hit = self._text_hit(point, strict=True)
        document = self.document_for_row(hit[0]) if hit is not None else None
        if hit is None or document is None or self._part_at(point) is not None:
            super().mouseDoubleClickEvent(event)
            return
        start, end = word_at(document, hit[1])
        self._delegate.selection.select((hit[0], start), (hit[0], end))
        self._last_double.start()
        self._selecting = False
        self.viewport().update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._selecting:
            self._selecting = False
            self._autoscroll.stop()
            if self._delegate.selection.is_empty():
                self._delegate.selection.clear()
            return
        super().mouseReleaseEvent(event)
        press, self._press = self._press, None
        self._press_point = None
        if event.button() != Qt.MouseButton.LeftButton or press is None:
            return
        point = event.position().toPoint()
        if self._part_at(point) != press:
            return
        self._act(press[0], press[1], self.viewport().mapToGlobal(point))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        point = event.position().toPoint()
        self._pointer = point
        if self._selecting:
            self._extend_to(point)
            outside = point.y() < 0 or point.y() >= self.viewport().height()
            if outside and not self._autoscroll.isActive():
                self._autoscroll.start()
            return
        if self._maybe_drag(event, point):
            return
        super().mouseMoveEvent(event)
        hover = self._part_at(point)
        if hover != self._delegate.hover:
            for old in (self._delegate.hover, hover):
                if old is not None:
                    self.viewport().update(self.visualRect(self._chat.index(old[0])))
            self._delegate.hover = hover
        if hover:
            shape = Qt.CursorShape.PointingHandCursor
        elif self._text_hit(point, strict=True) is not None:
            shape = Qt.CursorShape.IBeamCursor
        else:
            shape = Qt.CursorShape.ArrowCursor
        self.viewport().setCursor(shape)

    def _maybe_drag(self, event: QMouseEvent, point: QPoint) -> bool:
        """A card pressed and moved far enough is dragged out, not clicked."""
        press, start = self._press, self._press_point
        if (
            press is None
            or start is None
            or press[1] != "card"
            or not event.buttons() & Qt.MouseButton.LeftButton
        ):
            return False
        distance = (point - start).manhattanLength()
        if distance < QApplication.startDragDistance():
            return False
        self._press = self._press_point = None
        block = self._chat.block(press[0])
        if isinstance(block, DeliverableBlock) and block.entry is not None:
            self.deliverableDragged.emit(block.ref)
        return True

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
            return
        if index.isValid() and self.document_for_row(index.row()) is not None:
            self._text_menu(event.globalPos())
            event.accept()

    def _text_menu(self, position: QPoint) -> None:
        menu = QMenu(self)
        menu.setAccessibleName("Text actions")
        copy = menu.addAction("Copy")
        copy.setShortcut(QKeySequence(QKeySequence.StandardKey.Copy))
        copy.setEnabled(not self._delegate.selection.is_empty())
        select_all = menu.addAction("Select all")
        chosen = menu.exec(position)
        if chosen is copy:
            self.copy_selection()
        elif chosen is select_all:
            self.select_all_text()
        menu.deleteLater()

    # -- keys --------------------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy) and self.copy_selection():
            event.accept()
            return
        if event.matches(QKeySequence.StandardKey.SelectAll):
            self.select_all_text()
            event.accept()
            return
        if event.key() == Qt.Key.Key_Escape and not (
            self._delegate.selection.is_empty()
        ):
            self.clear_text_selection()
            event.accept()
            return
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
            if isinstance(block, DeliverableBlock | ImportedFileBlock):
                self._act(row, "card", QPoint())
            elif isinstance(block, ToolCallBlock | ChangesBlock):
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
        elif isinstance(block, ChangesBlock):
            self._act_on_changes(row, block, part)
        elif isinstance(block, ImportedFileBlock):
            if part == "verify":
                self.verifyRequested.emit(block.ref)
            elif part == "card":
                self.importedActivated.emit(block.ref)
        elif isinstance(block, TurnActionsBlock):
            if part == "copy":
                QGuiApplication.clipboard().setText(block.answer_text)
                self.notice.emit("Answer copied")
            elif part == "fork":
                self.forkRequested.emit(self._chat.conversation_id, block.fork_position)

    def _act_on_changes(self, row: int, block: ChangesBlock, part: str) -> None:
        if part == "toggle":
            self._chat.toggle_expanded(row)
            return
        kind, _, number = part.partition(":")
        if not number.isdigit():
            return
        ref = block.changes.ref(int(number))
        if kind == "file":
            self.changeActivated.emit(ref)
        elif kind == "diff":
            self.changeDiffRequested.emit(ref)
