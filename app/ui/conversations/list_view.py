"""The conversations list: title, workspace and date, forks under their parent."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QFocusEvent,
    QKeyEvent,
    QStandardItem,
    QStandardItemModel,
)
from PySide6.QtWidgets import QAbstractItemView, QMenu, QTreeView, QWidget

from app.core.store import Conversation
from app.core.trust.display_names import display_name
from app.ui.conversations.rows import (
    DATE_ROLE,
    FOLDER_ROLE,
    TITLE_ROLE,
    ConversationRowDelegate,
)
from previewers.widgets import plain_tooltip

CONVERSATION_ID_ROLE = Qt.ItemDataRole.UserRole + 1
FILTER_ROLE = Qt.ItemDataRole.UserRole + 5


def short_date(moment: datetime, now: datetime | None = None) -> str:
    """A date that fits a narrow column: the time today, else day and month."""
    local = moment.astimezone()
    today = (now or datetime.now().astimezone()).astimezone()
    if local.date() == today.date():
        return local.strftime("%H:%M")
    if local.year == today.year:
        return f"{local.day} {local.strftime('%b')}"
    return local.strftime("%Y-%m-%d")


class ConversationListView(QTreeView):
    """Lists stored conversations; forks are children of the conversation they fork.

    Signals:
        conversationSelected(str): the user picked a conversation (its id).
        renameRequested(str): rename this conversation (its id).
        deleteRequested(str): delete this conversation (its id).
    """

    conversationSelected = Signal(str)
    renameRequested = Signal(str)
    deleteRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = QStandardItemModel(self)
        self._proxy = QSortFilterProxyModel(self)
        self._proxy.setSourceModel(self._model)
        self._proxy.setFilterRole(FILTER_ROLE)
        self._proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._proxy.setRecursiveFilteringEnabled(True)
        self.setModel(self._proxy)
        self.setItemDelegate(ConversationRowDelegate(self))
        self.setHeaderHidden(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setUniformRowHeights(True)
        self.setIndentation(14)
        self.setAccessibleName("Conversations")
        self.setMinimumWidth(180)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._on_self_context_menu_requested)
        self._focusing = False
        self.selectionModel().currentChanged.connect(self._on_selection_current_changed)

    def set_conversations(
        self,
        conversations: list[Conversation],
        current: str | None = None,
        active: Mapping[str, datetime] | None = None,
    ) -> None:
        """Show ``conversations`` (given oldest first) newest on top; select one.

        ``active`` says when each last got a message: a conversation that an
        agent keeps continuing shows that, not the day it was started.
        """
        # Refreshed while the user may be scrolling it (another agent added a
        # conversation): the list keeps its place.
        scrolled = self.verticalScrollBar().value() if self._model.rowCount() else None
        blocked = self.selectionModel().blockSignals(True)
        self._model.clear()
        items: dict[str, QStandardItem] = {}
        for conversation in conversations:
            items[conversation.id] = _item(
                conversation, (active or {}).get(conversation.id)
            )
        for conversation in reversed(conversations):
            item = items[conversation.id]
            parent = items.get(conversation.parent_id or "")
            if parent is not None:
                parent.appendRow(item)
            else:
                self._model.appendRow(item)
        self.expandAll()
        if current is not None and current in items:
            self.setCurrentIndex(self._proxy.mapFromSource(items[current].index()))
        self.selectionModel().blockSignals(blocked)
        if scrolled is not None:
            self.verticalScrollBar().setValue(scrolled)

    def set_filter(self, text: str) -> None:
        """Show only conversations whose title or folder holds ``text``."""
        self._proxy.setFilterFixedString(text.strip())
        self.expandAll()

    def visible_ids(self) -> list[str]:
        """The ids of the rows the filter lets through, top to bottom."""
        found: list[str] = []

        def walk(parent: QModelIndex) -> None:
            for row in range(self._proxy.rowCount(parent)):
                index = self._proxy.index(row, 0, parent)
                value = index.data(CONVERSATION_ID_ROLE)
                if isinstance(value, str):
                    found.append(value)
                walk(index)

        walk(QModelIndex())
        return found

    def current_conversation_id(self) -> str | None:
        value = self.currentIndex().data(CONVERSATION_ID_ROLE)
        return value if isinstance(value, str) else None

    def focusInEvent(self, event: QFocusEvent) -> None:
        # Qt makes the first row current when the list first gets the focus;
        # that is not the user choosing a conversation.
        self._focusing = True
        try:
            super().focusInEvent(event)
        finally:
            self._focusing = False

    def keyPressEvent(self, event: QKeyEvent) -> None:
        chosen = self.current_conversation_id()
        if chosen is not None and event.key() == Qt.Key.Key_F2:
            self.renameRequested.emit(chosen)
            return
        if chosen is not None and event.key() == Qt.Key.Key_Delete:
            self.deleteRequested.emit(chosen)
            return
        super().keyPressEvent(event)

    def _on_selection_current_changed(
        self, current: QModelIndex | QPersistentModelIndex, _previous: object
    ) -> None:
        value = current.data(CONVERSATION_ID_ROLE)
        if isinstance(value, str) and not self._focusing:
            self.conversationSelected.emit(value)

    def _on_self_context_menu_requested(self, position: QPoint) -> None:
        index = self.indexAt(position)
        value = index.data(CONVERSATION_ID_ROLE)
        if not isinstance(value, str):
            return
        menu = QMenu(self)
        menu.setAccessibleName("Conversation actions")
        rename = menu.addAction("Rename…")
        delete = menu.addAction("Delete…")
        chosen = menu.exec(self.viewport().mapToGlobal(position))
        if chosen is rename:
            self.renameRequested.emit(value)
        elif chosen is delete:
            self.deleteRequested.emit(value)
        menu.deleteLater()


def _item(conversation: Conversation, active: datetime | None) -> QStandardItem:
    last = max(active, conversation.created_at) if active else conversation.created_at
    stamp = last.astimezone().strftime("%Y-%m-%d %H:%M")
    started = conversation.created_at.astimezone().strftime("%Y-%m-%d %H:%M")
    when = stamp if started == stamp else f"last active {stamp}, started {started}"
    # An imported session has none until the user confirms the folder.
    folder = Path(conversation.workspace).name or conversation.workspace
    folder = folder or "no workspace"
    # Item text is plain in item views; titles may come from a model.
    title, folder = display_name(conversation.title), display_name(folder)
    item = QStandardItem(f"{title}\n{folder} · {stamp}")
    item.setEditable(False)
    item.setData(conversation.id, CONVERSATION_ID_ROLE)
    item.setData(title, TITLE_ROLE)
    item.setData(folder, FOLDER_ROLE)
    item.setData(short_date(last), DATE_ROLE)
    item.setData(f"{title}\n{conversation.workspace}", FILTER_ROLE)
    # Plain text: titles and paths may come from a model or a file name.
    item.setToolTip(
        plain_tooltip(f"{title}\n{display_name(conversation.workspace)}\n{when}")
    )
    item.setData(f"{title}, {folder}, {stamp}", Qt.ItemDataRole.AccessibleTextRole)
    return item
