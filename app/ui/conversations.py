"""The conversations list: title, workspace and date, forks under their parent."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QTreeView, QWidget

from app.core.names import display_name
from app.core.store import Conversation

CONVERSATION_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class ConversationListView(QTreeView):
    """Lists stored conversations; forks are children of the conversation they fork.

    Signals:
        conversationSelected(str): the user picked a conversation (its id).
    """

    conversationSelected = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = QStandardItemModel(self)
        self.setModel(self._model)
        self.setHeaderHidden(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setUniformRowHeights(False)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setAccessibleName("Conversations")
        self.setMinimumWidth(180)
        self.selectionModel().currentChanged.connect(self._on_selection_current_changed)

    def set_conversations(
        self, conversations: list[Conversation], current: str | None = None
    ) -> None:
        """Show ``conversations`` (given oldest first) newest on top; select one."""
        # Refreshed while the user may be scrolling it (another agent added a
        # conversation): the list keeps its place.
        scrolled = self.verticalScrollBar().value() if self._model.rowCount() else None
        self._model.clear()
        items: dict[str, QStandardItem] = {}
        for conversation in conversations:
            stamp = conversation.created_at.astimezone().strftime("%Y-%m-%d %H:%M")
            folder = Path(conversation.workspace).name or conversation.workspace
            # Item text is plain in item views; titles may come from a model.
            title, folder = display_name(conversation.title), display_name(folder)
            item = QStandardItem(f"{title}\n{folder} · {stamp}")
            item.setData(conversation.id, CONVERSATION_ID_ROLE)
            # Plain text: titles and paths may come from a model or a file name.
            item.setToolTip(_plain_tooltip(f"{conversation.workspace}\n{stamp}"))
            item.setData(
                f"{conversation.title}, {stamp}", Qt.ItemDataRole.AccessibleTextRole
            )
            items[conversation.id] = item
        for conversation in reversed(conversations):
            item = items[conversation.id]
            parent = items.get(conversation.parent_id or "")
            if parent is not None:
                parent.appendRow(item)
            else:
                self._model.appendRow(item)
        self.expandAll()
        if current is not None and current in items:
            self.setCurrentIndex(items[current].index())
        if scrolled is not None:
            self.verticalScrollBar().setValue(scrolled)

    def current_conversation_id(self) -> str | None:
        value = self.currentIndex().data(CONVERSATION_ID_ROLE)
        return value if isinstance(value, str) else None

    def _on_selection_current_changed(
        self, current: QModelIndex, _previous: QModelIndex
    ) -> None:
        value = current.data(CONVERSATION_ID_ROLE)
        if isinstance(value, str):
            self.conversationSelected.emit(value)


def _plain_tooltip(text: str) -> str:
    """A tooltip Qt will not read as rich text, whatever the string holds."""
    from html import escape

    return "<p style='white-space:pre'>" + escape(text) + "</p>"
