"""The chat view: a list view with its own height layout, built for long chats.

QListView lays out every row whenever one row's height changes, asking the
delegate (Python) for each size: with 60,000 rows that is a pause on every
streamed token or image. This view keeps heights in a flat array instead:
rows never shown get a cheap estimate, rows on screen are measured exactly
when painted, and offsets are prefix sums rebuilt in C (``accumulate``).
The rows on screen stay put when heights above them settle.
"""

from __future__ import annotations

import time
from array import array
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate
from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QFontMetrics,
    QGuiApplication,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QRegion,
)
from PySide6.QtWidgets import QAbstractItemView, QListView, QStyle, QStyleOptionViewItem

from app.core.deliverables import DeliverableRef
from app.core.policy import Policy, load_policy
from app.core.store import StoredMessage
from app.core.transcript import (
    DeliverableBlock,
    ImageBlock,
    ToolCallBlock,
    TurnActionsBlock,
)
from app.ui.chat import paint_cards as cards
from app.ui.chat.delegate import ChatDelegate
from app.ui.chat.images import ImageLoader, ImageResult
from app.ui.chat.model import ChatModel

SPINNER_MS: Final = 90
_Index = QModelIndex | QPersistentModelIndex
_BLOCK: Final = 256
_Cursor = QAbstractItemView.CursorAction


class ChatView(QListView):
    """One conversation's turns: text, tool cards, images, deliverable cards.

    Signals:
        deliverableActivated(DeliverableRef): a card was clicked or Enter pressed.
        deliverableMenuRequested(DeliverableRef, QPoint): "⋯", right click, Menu key.
        forkRequested(str, int): conversation id and fork position.
        notice(str): a short message for the status area.
        loaded(): the images on screen finished decoding.
    """

    deliverableActivated = Signal(object)
    deliverableMenuRequested = Signal(object, QPoint)
    forkRequested = Signal(str, int)
    notice = Signal(str)
    loaded = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._chat = ChatModel(self)
        self._delegate = ChatDelegate(self)
        self._heights = array("i")
        self._exact = bytearray()
        # Two-level prefix sums: one sum per block of rows, then offsets of the
        # blocks. A height change re-sums one block, not every row.
        self._block_sums = array("q")
        self._block_offsets = array("q", [0])
        self._dirty_blocks: set[int] = set()
        self._dirty = False  # rows were inserted or removed: re-sum every block
        self._width = 0
        self._stick_bottom = True
        self._press: tuple[int, str] | None = None
        self._policy_provider: Callable[[], Policy] | None = None
        self._images = ImageLoader(self)
        self._images.decoded.connect(self._on_images_decoded)
        self._pending: set[str] = set()
        self._generation = 0
        self._painted = False
        self._loaded_sent = False
        self._spinner = QTimer(self)
        self._spinner.setInterval(SPINNER_MS)
        self._spinner.timeout.connect(self._on_spinner_timeout)
        self.setModel(self._chat)
        self.setItemDelegate(self._delegate)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setFrameShape(QListView.Shape.NoFrame)
        self.setMouseTracking(True)
        self.setTabKeyNavigation(False)
        self.setAccessibleName("Chat")
        self.verticalScrollBar().setSingleStep(40)
        self._chat.runningChanged.connect(self._on_chat_running_changed)

    # -- public API --------------------------------------------------------------

    def chat_model(self) -> ChatModel:
        return self._chat

    def chat_delegate(self) -> ChatDelegate:
        return self._delegate

    def set_conversation(
        self, conversation_id: str, workspace: str, messages: list[StoredMessage]
    ) -> None:
        """Show a conversation, scrolled to its newest turn."""
        self._generation += 1
        self._pending.clear()
        self._painted = False
        self._loaded_sent = False
        self._stick_bottom = True
        self._delegate.documents.clear()
        self._chat.set_conversation(conversation_id, workspace, messages)

    def apply_event(self, event: object) -> None:
        self._chat.apply_event(event)

    def append_streaming_text(self, text: str) -> None:
        self._chat.append_streaming_text(text)

    def set_verdict(self, ref: DeliverableRef, verdict: str) -> None:
        self._chat.set_verdict(ref, verdict)

    def set_policy_provider(self, provider: Callable[[], Policy]) -> None:
        self._policy_provider = provider

    def is_loaded(self) -> bool:
        return self._painted and not self._pending

    def cached_height(self, row: int) -> tuple[int, bool]:
        """A row's height in the cache and whether it is exact (not an estimate)."""
        return self._heights[row], bool(self._exact[row])

    # -- geometry ----------------------------------------------------------------

    def _estimate(self, start: int, end: int) -> array[int]:
        metrics = QFontMetrics(self.font())
        line, char = metrics.lineSpacing(), max(1, metrics.averageCharWidth())
        width = self._width or self.viewport().width()
        estimate = ChatDelegate.estimate_height
        model = self._chat
        return array(
            "i",
            (estimate(model.block(r), width, line, char) for r in range(start, end)),
        )

    def _sync(self) -> None:
        heights = self._heights
        if self._dirty:
            self._block_sums = array(
                "q",
                (sum(heights[i : i + _BLOCK]) for i in range(0, len(heights), _BLOCK)),
            )
            self._dirty = False
            self._dirty_blocks.clear()
        elif self._dirty_blocks:
            for block in self._dirty_blocks:
                start = block * _BLOCK
                self._block_sums[block] = sum(heights[start : start + _BLOCK])
            self._dirty_blocks.clear()
        else:
            return
        self._block_offsets = array("q", accumulate(self._block_sums, initial=0))

    def _top(self, row: int) -> int:
        self._sync()
        block = row // _BLOCK
        return self._block_offsets[block] + sum(self._heights[block * _BLOCK : row])

    def _total(self) -> int:
        self._sync()
        return self._block_offsets[-1]

    def _row_at(self, y: int) -> int:
        self._sync()
        rows = len(self._heights)
        if rows == 0:
            return 0
        blocks = len(self._block_sums)
        block = max(0, min(blocks - 1, bisect_right(self._block_offsets, y) - 1))
        start = block * _BLOCK
        end = min(rows, start + _BLOCK)
        tops = list(
            accumulate(self._heights[start:end], initial=self._block_offsets[block])
        )
        return start + max(0, min(end - start - 1, bisect_right(tops, y) - 1))

    def _measure(self, row: int, option: QStyleOptionViewItem) -> None:
        if self._exact[row]:
            return
        index = self._chat.index(row)
        height = self._delegate.exact_height(
            index, self._width, option.font, option.palette
        )
        self._exact[row] = 1
        if height != self._heights[row]:
            self._heights[row] = height
            self._dirty_blocks.add(row // _BLOCK)

    def _layout_visible(self) -> None:
        """Measure the rows on screen exactly and keep the first of them in place."""
        rows = len(self._heights)
        bar = self.verticalScrollBar()
        width = self.viewport().width()
        if width != self._width:
            # Lazily: old heights stay as estimates until each row is painted.
            self._width = width
            self._exact = bytearray(rows)
        if rows == 0:
            self._set_range(0)
            return
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        height = self.viewport().height()
        if self._stick_bottom:
            row, covered = rows - 1, 0
            while row >= 0 and covered < height:
                self._measure(row, option)
                covered += self._heights[row]
                row -= 1
            self._set_range(max(0, self._total() - height), to_bottom=True)
            return
        anchor = self._row_at(bar.value())
        delta = bar.value() - self._top(anchor)
        row, covered = anchor, -delta
        while row < rows and covered < height:
            self._measure(row, option)
            covered += self._heights[row]
            row += 1
        self._set_range(self._top(anchor) + delta)

    def _set_range(self, value: int, *, to_bottom: bool = False) -> None:
        bar = self.verticalScrollBar()
        height = self.viewport().height()
        maximum = max(0, self._total() - height)
        blocked = bar.blockSignals(True)
        bar.setRange(0, maximum)
        bar.setPageStep(max(1, height))
        bar.setValue(maximum if to_bottom else min(value, maximum))
        bar.blockSignals(blocked)

    def updateGeometries(self) -> None:
        # QListView's version would size the scroll bar from its own layout.
        QAbstractItemView.updateGeometries(self)
        bar = self.verticalScrollBar()
        self._set_range(bar.value(), to_bottom=self._stick_bottom)

    def doItemsLayout(self) -> None:
        if len(self._heights) != self._chat.rowCount():
            self._reset_heights()
        QAbstractItemView.doItemsLayout(self)

    def reset(self) -> None:
        self._reset_heights()
        QAbstractItemView.reset(self)
        self.updateGeometries()

    def _reset_heights(self) -> None:
        self._width = self.viewport().width()
        rows = self._chat.rowCount()
        self._heights = self._estimate(0, rows)
        self._exact = bytearray(rows)
        self._dirty = True

    def rowsInserted(self, parent: _Index, start: int, end: int) -> None:
        bar = self.verticalScrollBar()
        above = start <= self._row_at(bar.value()) and len(self._heights) > 0
        new = self._estimate(start, end + 1)
        self._heights[start:start] = new
        self._exact[start:start] = bytes(len(new))
        self._dirty = True
        QAbstractItemView.rowsInserted(self, parent, start, end)
        value = bar.value() + (sum(new) if above else 0)
        self._set_range(value, to_bottom=self._stick_bottom)
        self.viewport().update()

    def rowsAboutToBeRemoved(self, parent: _Index, start: int, end: int) -> None:
        QAbstractItemView.rowsAboutToBeRemoved(self, parent, start, end)
        del self._heights[start : end + 1]
        del self._exact[start : end + 1]
        self._dirty = True
        QTimer.singleShot(0, self.updateGeometries)
        self.viewport().update()

    def dataChanged(
        self, top_left: _Index, bottom_right: _Index, roles: Any = ()
    ) -> None:
        # Only these rows are measured again, when next painted.
        for row in range(top_left.row(), bottom_right.row() + 1):
            if 0 <= row < len(self._exact):
                self._exact[row] = 0
        self.viewport().update()

    def visualRect(self, index: _Index) -> QRect:
        row = index.row() if index.isValid() else -1
        if not 0 <= row < len(self._heights):
            return QRect()
        top = self._top(row) - self.verticalScrollBar().value()
        return QRect(0, top, self.viewport().width(), self._heights[row])

    def indexAt(self, point: QPoint) -> QModelIndex:
        y = point.y() + self.verticalScrollBar().value()
        if not self._heights or not 0 <= y < self._total():
            return QModelIndex()
        return self._chat.index(self._row_at(y))

    def scrollTo(
        self,
        index: _Index,
        hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible,
    ) -> None:
        if not index.isValid():
            return
        bar = self.verticalScrollBar()
        top = self._top(index.row())
        bottom = top + self._heights[index.row()]
        height = self.viewport().height()
        value = bar.value()
        if hint == QAbstractItemView.ScrollHint.PositionAtTop or top < value:
            value = top
        elif (
            hint == QAbstractItemView.ScrollHint.PositionAtBottom
            or bottom > value + height
        ):
            value = bottom - height
        elif hint == QAbstractItemView.ScrollHint.PositionAtCenter:
            value = top - (height - (bottom - top)) // 2
        bar.setValue(max(0, value))

    def verticalOffset(self) -> int:
        return self.verticalScrollBar().value()

    def horizontalOffset(self) -> int:
        return 0

    def isIndexHidden(self, index: _Index) -> bool:
        return False

    def moveCursor(
        self, action: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        rows = self._chat.rowCount()
        if rows == 0:
            return QModelIndex()
        current = self.currentIndex().row() if self.currentIndex().isValid() else -1
        page = max(1, self.viewport().height() // 60)
        if action in (_Cursor.MoveUp, _Cursor.MovePrevious):
            row = current - 1 if current >= 0 else rows - 1
        elif action in (_Cursor.MoveDown, _Cursor.MoveNext):
            row = current + 1
        elif action == _Cursor.MovePageUp:
            row = current - page
        elif action == _Cursor.MovePageDown:
            row = current + page
        elif action == _Cursor.MoveHome:
            self._chat.load_all_history()
            row = 0
        elif action == _Cursor.MoveEnd:
            row = rows - 1
        else:
            row = current
        return self._chat.index(max(0, min(rows - 1, row)))

    def setSelection(
        self, rect: QRect, flags: QItemSelectionModel.SelectionFlag
    ) -> None:
        first = self.indexAt(rect.topLeft())
        last = self.indexAt(rect.bottomLeft())
        if not first.isValid():
            return
        last = last if last.isValid() else first
        selection = QItemSelection(first, last)
        self.selectionModel().select(selection, flags)

    def visualRegionForSelection(self, selection: QItemSelection) -> QRegion:
        region = QRegion()
        for index in selection.indexes():
            region = region.united(QRegion(self.visualRect(index)))
        return region

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        bar = self.verticalScrollBar()
        self._stick_bottom = bar.value() >= bar.maximum()
        self.viewport().update()

    def resizeEvent(self, event: Any) -> None:
        QAbstractItemView.resizeEvent(self, event)
        self.updateGeometries()

    # -- painting ----------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        self._layout_visible()
        painter = QPainter(self.viewport())
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        value = self.verticalScrollBar().value()
        area = event.rect()
        width = self.viewport().width()
        current = self.currentIndex()
        focused = self.hasFocus()
        selection = self.selectionModel()
        rows = len(self._heights)
        row = self._row_at(value + area.top()) if rows else 0
        top = self._top(row) - value if rows else 0
        while row < rows:
            if top > area.bottom():
                break
            index = self._chat.index(row)
            option.rect = QRect(0, top, width, self._heights[row])
            state = QStyle.StateFlag.State_Enabled
            if selection is not None and selection.isSelected(index):
                state |= QStyle.StateFlag.State_Selected
            if focused and index == current:
                state |= QStyle.StateFlag.State_HasFocus
            option.state = state
            self._delegate.paint(painter, option, index)
            self._request_image(row)
            top += self._heights[row]
            row += 1
        painter.end()
        if not self._painted:
            self._painted = True
        self._maybe_loaded()

    # -- images ------------------------------------------------------------------

    def _policy(self) -> Policy:
        if self._policy_provider is not None:
            return self._policy_provider()
        return load_policy(workspace=Path(self._chat.workspace))

    def _request_image(self, row: int) -> None:
        block = self._chat.block(row)
        if not isinstance(block, ImageBlock) or block.mime == "image/svg+xml":
            return
        key = block.tool_call_id
        if key in self._pending or self._chat.has_image(key):
            return
        if block.filename.lower().endswith(".svg"):
            return
        self._pending.add(key)
        self._images.request(
            key,
            self._generation,
            block.public_path,
            self._chat.workspace,
            self._policy(),
        )

    def _on_images_decoded(self, result: ImageResult) -> None:
        if result.generation != self._generation:
            return  # the conversation it was for is gone
        self._pending.discard(result.key)
        self._chat.set_image(
            result.key, result.image if result.image is not None else result.error
        )
        self._maybe_loaded()

    def _maybe_loaded(self) -> None:
        if self._painted and not self._pending and not self._loaded_sent:
            self._loaded_sent = True
            QTimer.singleShot(0, self.loaded.emit)

    # -- spinners ----------------------------------------------------------------

    def _on_chat_running_changed(self, running: bool) -> None:
        if running:
            self._spinner.start()
        else:
            self._spinner.stop()

    def _on_spinner_timeout(self) -> None:
        self._delegate.spinner_phase = (time.monotonic() * 1.2) % 1.0
        rows = self._chat.running_rows()
        if not rows:
            self._spinner.stop()
            return
        for row in rows:
            rect = self.visualRect(self._chat.index(row))
            if rect.intersects(self.viewport().rect()):
                self.viewport().update(rect)

    # -- interaction -------------------------------------------------------------

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
