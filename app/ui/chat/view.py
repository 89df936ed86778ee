"""The chat view: a list view with its own height layout, built for long chats.

QListView lays out every row whenever one row's height changes, asking the
delegate (Python) for each size: with 60,000 rows that is a pause on every
streamed token or image. This view keeps heights in a flat array instead:
rows never shown get a cheap estimate, rows on screen are measured exactly
when painted, and offsets are prefix sums rebuilt in C (``accumulate``).
The rows on screen stay put when heights above them settle. While the event
loop is idle, the rows a page above and below the screen are measured (and
their Markdown laid out) a few at a time, so the next page paints from caches;
then every other answer's Markdown is rendered, so a jump anywhere parses none.
"""

from __future__ import annotations

import os
import time
from array import array
from collections.abc import Callable
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
    QImage,
    QPainter,
    QPaintEvent,
    QRegion,
)
from PySide6.QtWidgets import QAbstractItemView, QListView, QStyle, QStyleOptionViewItem

from app.core.chat.blocks import (
    ImageBlock,
    UserBlock,
)
from app.core.filetype import SVG_MIME, is_svg
from app.core.store import StoredMessage
from app.core.store.deliverables import DeliverableRef
from app.core.store.imported_files import ImportedFile
from app.core.trust.policy import Policy, current_policy
from app.ssh.address import is_remote_address
from app.ui.chat.delegate import ChatDelegate
from app.ui.chat.empty_state import paint_empty_state
from app.ui.chat.heights import RowHeights
from app.ui.chat.images import ImageLoader, ImageResult
from app.ui.chat.interaction import ChatInteractionView
from app.ui.chat.model import ChatModel
from app.ui.chat.warm import AnswerWarmer
from app.workspace.choose import local_workspace
from app.workspace.protocol import Workspace

SPINNER_MS: Final = 90
OLDER_FALLBACK_MS: Final = 250
PREPARE_PAGES: Final = 1  # pages measured ahead either side while idle
PREPARE_BUDGET_S: Final = 0.004  # work per idle tick, so input stays responsive
_Index = QModelIndex | QPersistentModelIndex
_Cursor = QAbstractItemView.CursorAction


class ChatView(ChatInteractionView):
    """One conversation's turns: text, tool cards, images, deliverable cards.

    Signals: those of ``ChatInteractionView``, and
        loaded(): the images on screen finished decoding.
    """

    loaded = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._chat = ChatModel(self)
        self._delegate = ChatDelegate(self)
        self._rows = RowHeights()
        self._width = 0
        self._stick_bottom = True
        # The row whose top the first paint puts at the top: the last turn's
        # start, so a long answer is read from its beginning.
        self._anchor_row: int | None = None
        # While set, the list may scroll this row to the top even when what
        # follows is shorter than the screen (space is left below it).
        self._pad_row: int | None = None
        self._model_spec = ""
        self._policy_provider: Callable[[], Policy] | None = None
        self._workspace_lookup: Callable[[str], Workspace | None] = self._local_only
        self._images = ImageLoader(self)
        self._images.decoded.connect(self._on_images_decoded)
        self._pending: set[str] = set()
        self._generation = 0
        self._painted = False
        self._loaded_sent = False
        self._spinner = QTimer(self)
        self._spinner.setInterval(SPINNER_MS)
        self._spinner.timeout.connect(self._on_spinner_timeout)
        # Idle pass: rows just off screen are laid out between frames, so a
        # page scrolled into view is painted from the caches.
        self._prepare = QTimer(self)
        self._prepare.setSingleShot(True)
        self._prepare.setInterval(0)
        self._prepare.timeout.connect(self._on_prepare_timeout)
        self._warmer = AnswerWarmer()
        self._older_fallback = QTimer(self)
        self._older_fallback.setSingleShot(True)
        self._older_fallback.setInterval(OLDER_FALLBACK_MS)
        self._older_fallback.timeout.connect(self._on_older_fallback_timeout)
        self._init_interaction()
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
        self,
        conversation_id: str,
        workspace: str,
        messages: list[StoredMessage],
        imported: list[ImportedFile] | None = None,
    ) -> None:
        """Show a conversation, scrolled to its newest turn."""
        self._generation += 1
        self._pending.clear()
        self._painted = False
        self._loaded_sent = False
        self._stick_bottom = True
        self._delegate.documents.clear()
        self._delegate.plain_documents.clear()
        self._delegate.selection.clear()
        self._warmer.restart()
        self._chat.set_conversation(conversation_id, workspace, messages, imported)
        self._anchor_row = self._last_turn_row()
        self._pad_row = self._anchor_row
        # Older turns are built after the first paint, whose event would
        # otherwise wait behind them; the fallback covers a view never shown.
        self._chat.defer_older()
        self._older_fallback.start()

    def clear_conversation(self) -> None:
        """Show no conversation at all (the empty state says how to start one)."""
        self.set_conversation("", "", [])

    def set_model(self, spec: str) -> None:
        """The model the empty state names."""
        self._model_spec = spec
        self._chat.model_spec = spec
        self.viewport().update()

    def _last_turn_row(self) -> int | None:
        model = self._chat
        for row in range(model.rowCount() - 1, -1, -1):
            if isinstance(model.block(row), UserBlock):
                return row
        return None

    def apply_event(self, event: object) -> None:
        self._chat.apply_event(event)

    def append_stored(self, messages: list[StoredMessage]) -> None:
        """Add messages stored elsewhere; what the user reads stays where it is."""
        self._chat.add_stored(messages)

    def next_position(self) -> int:
        return self._chat.next_position()

    def append_streaming_text(self, text: str) -> None:
        self._chat.append_streaming_text(text)

    def set_verdict(self, ref: DeliverableRef, verdict: str) -> None:
        self._chat.set_verdict(ref, verdict)

    def set_verdicts(self, verdicts: dict[DeliverableRef, str]) -> None:
        self._chat.set_verdicts(verdicts)

    def set_thumbnail(self, ref: DeliverableRef, image: object) -> None:
        """Show ``image`` (a QImage) on ``ref``'s card, or its icon for ``None``."""
        self._chat.set_thumbnail(ref, image if isinstance(image, QImage) else None)

    def deliverable_refs(self) -> list[DeliverableRef]:
        """The cards built so far that point at a file (newest turns first built)."""
        return self._chat.deliverable_refs()

    def set_policy_provider(self, provider: Callable[[], Policy]) -> None:
        self._policy_provider = provider

    def set_workspace_lookup(self, lookup: Callable[[str], Workspace | None]) -> None:
        """How to reach a workspace by its address, for its images.

        ``None`` from ``lookup``: the workspace is not reachable now (a host
        not connected yet). Without one, only folders on this computer are.
        """
        self._workspace_lookup = lookup

    def _local_only(self, address: str) -> Workspace | None:
        if is_remote_address(address):
            return None
        return local_workspace(address, policy_loader=self._policy)

    def is_loaded(self) -> bool:
        return self._painted and not self._pending

    def cached_height(self, row: int) -> tuple[int, bool]:
        """A row's height in the cache and whether it is exact (not an estimate)."""
        return self._rows.heights[row], bool(self._rows.exact[row])

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

    def _measure(self, row: int, option: QStyleOptionViewItem) -> None:
        if self._rows.exact[row]:
            return
        index = self._chat.index(row)
        height = self._delegate.exact_height(
            index, self._width, option.font, option.palette
        )
        self._rows.set_exact(row, height)

    def _layout_visible(self) -> None:
        """Measure the rows on screen exactly and keep the first of them in place."""
        rows = len(self._rows)
        bar = self.verticalScrollBar()
        width = self.viewport().width()
        if width != self._width:
            # Lazily: old heights stay as estimates until each row is painted.
            self._width = width
            self._rows.forget_exact()
        if rows == 0:
            self._set_range(0)
            return
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        height = self.viewport().height()
        if self._anchor_row is not None and width > 0:
            self._place_anchor(self._anchor_row, option, height)
        if self._stick_bottom:
            row, covered = rows - 1, 0
            while row >= 0 and covered < height:
                self._measure(row, option)
                covered += self._rows.heights[row]
                row -= 1
            self._set_range(max(0, self._content_height() - height), to_bottom=True)
            return
        anchor = self._rows.row_at(bar.value())
        delta = bar.value() - self._rows.top(anchor)
        row, covered = anchor, -delta
        while row < rows and covered < height:
            self._measure(row, option)
            covered += self._rows.heights[row]
            row += 1
        self._set_range(self._rows.top(anchor) + delta)

    def _place_anchor(
        self, anchor: int, option: QStyleOptionViewItem, height: int
    ) -> None:
        """Put ``anchor`` (the last turn's start) at the top of the screen.

        A turn shorter than the screen leaves room below it rather than show
        the end of the turn before, cut at the top.
        """
        self._anchor_row = None
        if not 0 <= anchor < len(self._rows):
            return
        row, covered = anchor, 0
        while row < len(self._rows) and covered <= height:
            self._measure(row, option)
            covered += self._rows.heights[row]
            row += 1
        top = self._rows.top(anchor)
        self._set_range(top)
        bar = self.verticalScrollBar()
        self._stick_bottom = bar.value() >= bar.maximum()

    def _content_height(self) -> int:
        """The rows' height, and the room left below a short last turn."""
        total = self._rows.total()
        row = self._pad_row
        if row is None or not 0 <= row < len(self._rows):
            return total
        below = total - self._rows.top(row)
        return total + max(0, self.viewport().height() - below)

    def _set_range(self, value: int, *, to_bottom: bool = False) -> None:
        bar = self.verticalScrollBar()
        height = self.viewport().height()
        maximum = max(0, self._content_height() - height)
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
        if len(self._rows) != self._chat.rowCount():
            self._reset_heights()
        QAbstractItemView.doItemsLayout(self)

    def reset(self) -> None:
        self._reset_heights()
        QAbstractItemView.reset(self)
        self.updateGeometries()

    def _reset_heights(self) -> None:
        self._width = self.viewport().width()
        self._rows.reset(self._estimate(0, self._chat.rowCount()))

    def rowsInserted(self, parent: _Index, start: int, end: int) -> None:
        bar = self.verticalScrollBar()
        above = start <= self._rows.row_at(bar.value()) and len(self._rows) > 0
        new = self._estimate(start, end + 1)
        self._rows.insert(start, new)
        count = end - start + 1
        self._delegate.selection.rows_inserted(start, count)
        if self._pad_row is not None and start <= self._pad_row:
            self._pad_row += count
        if self._anchor_row is not None and start <= self._anchor_row:
            self._anchor_row += count
        QAbstractItemView.rowsInserted(self, parent, start, end)
        value = bar.value() + (sum(new) if above else 0)
        self._set_range(value, to_bottom=self._stick_bottom)
        self.viewport().update()

    def rowsAboutToBeRemoved(self, parent: _Index, start: int, end: int) -> None:
        QAbstractItemView.rowsAboutToBeRemoved(self, parent, start, end)
        self._rows.remove(start, end)
        self._delegate.selection.rows_removed(start, end)
        pad = self._pad_row
        if pad is not None and start <= pad:
            self._pad_row = None if pad <= end else pad - (end - start + 1)
        QTimer.singleShot(0, self.updateGeometries)
        self.viewport().update()

    def dataChanged(
        self, top_left: _Index, bottom_right: _Index, roles: Any = ()
    ) -> None:
        # Only these rows are measured again, when next painted.
        for row in range(top_left.row(), bottom_right.row() + 1):
            self._rows.forget_exact(row)
        self.viewport().update()

    def visualRect(self, index: _Index) -> QRect:
        row = index.row() if index.isValid() else -1
        if not 0 <= row < len(self._rows):
            return QRect()
        top = self._rows.top(row) - self.verticalScrollBar().value()
        return QRect(0, top, self.viewport().width(), self._rows.heights[row])

    def indexAt(self, point: QPoint) -> QModelIndex:
        y = point.y() + self.verticalScrollBar().value()
        if not len(self._rows) or not 0 <= y < self._rows.total():
            return QModelIndex()
        return self._chat.index(self._rows.row_at(y))

    def scrollTo(
        self,
        index: _Index,
        hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible,
    ) -> None:
        if not index.isValid():
            return
        bar = self.verticalScrollBar()
        top = self._rows.top(index.row())
        bottom = top + self._rows.heights[index.row()]
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
        if not len(self._rows):
            paint_empty_state(
                painter,
                self.viewport().rect(),
                self.palette(),
                self.font(),
                conversation=bool(self._chat.conversation_id),
                workspace=self._chat.workspace,
                model=self._model_spec,
            )
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        value = self.verticalScrollBar().value()
        area = event.rect()
        width = self.viewport().width()
        current = self.currentIndex()
        focused = self.hasFocus()
        selection = self.selectionModel()
        rows = len(self._rows)
        row = self._rows.row_at(value + area.top()) if rows else 0
        top = self._rows.top(row) - value if rows else 0
        while row < rows:
            if top > area.bottom():
                break
            index = self._chat.index(row)
            option.rect = QRect(0, top, width, self._rows.heights[row])
            state = QStyle.StateFlag.State_Enabled
            if selection is not None and selection.isSelected(index):
                state |= QStyle.StateFlag.State_Selected
            if focused and index == current:
                state |= QStyle.StateFlag.State_HasFocus
            option.state = state
            self._delegate.paint(painter, option, index)
            self._request_image(row)
            top += self._rows.heights[row]
            row += 1
        painter.end()
        if not self._painted:
            self._painted = True
            self._older_fallback.stop()
            self._chat.resume_older()
        self._maybe_loaded()
        if not self._prepare.isActive():
            self._prepare.start()

    def _on_older_fallback_timeout(self) -> None:
        self._chat.resume_older()

    # -- idle preparation --------------------------------------------------------

    def _on_prepare_timeout(self) -> None:
        """Measure rows a page below and above the screen, a bounded slice per tick."""
        rows = len(self._rows)
        if (
            rows == 0
            or rows != self._chat.rowCount()
            or not self.isVisible()
            or self.viewport().width() != self._width
        ):
            return
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        deadline = time.perf_counter() + PREPARE_BUDGET_S
        bar = self.verticalScrollBar()
        value = bar.value()
        height = self.viewport().height()
        reach = height * PREPARE_PAGES
        row = self._rows.row_at(value + height - 1) + 1
        covered = 0
        while row < rows and covered < reach:
            if not self._rows.exact[row]:
                self._measure(row, option)
                if time.perf_counter() > deadline:
                    self._set_range(value, to_bottom=self._stick_bottom)
                    self._prepare.start()
                    return
            covered += self._rows.heights[row]
            row += 1
        if self._stick_bottom:
            # Rows above cannot move a view held at the bottom.
            self._set_range(value, to_bottom=True)
            self._prepare_answers(deadline)
            return
        row, covered, shift = self._rows.row_at(value) - 1, 0, 0
        finished = True
        while row >= 0 and covered < reach:
            if not self._rows.exact[row]:
                before = self._rows.heights[row]
                self._measure(row, option)
                shift += self._rows.heights[row] - before
                if time.perf_counter() > deadline:
                    finished = False
                    break
            covered += self._rows.heights[row]
            row -= 1
        # Rows above that settled move the range with them: the screen stays put.
        self._set_range(value + shift)
        if not finished:
            self._prepare.start()
        else:
            self._prepare_answers(deadline)

    def _prepare_answers(self, deadline: float) -> None:
        """With the pages either side ready, render the other answers' Markdown."""
        if not self._warmer.step(self._chat, deadline):
            self._prepare.start()

    def answers_prepared(self) -> bool:
        """Whether every answer's Markdown is rendered ahead of its first paint."""
        return self._warmer.finished()

    # -- images ------------------------------------------------------------------

    def _policy(self) -> Policy:
        if self._policy_provider is not None:
            return self._policy_provider()
        return current_policy(self._chat.workspace or None)

    def _request_image(self, row: int) -> None:
        block = self._chat.block(row)
        # Untrusted SVG is never decoded (QtSvg loads the files it names).
        if not isinstance(block, ImageBlock) or block.mime == SVG_MIME:
            return
        key = block.tool_call_id
        if key in self._pending or self._chat.has_image(key):
            return
        if is_svg(block.filename):
            return
        # The image is read through its workspace, from whichever host holds
        # it; until that host answers there is nothing to show.
        workspace = self._workspace_lookup(self._chat.workspace)
        if workspace is None:
            self._chat.set_image(
                key, "Image not shown: the remote host is not connected yet"
            )
            return
        self._pending.add(key)
        self._images.request(
            key, self._generation, os.path.basename(block.public_path), workspace
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
