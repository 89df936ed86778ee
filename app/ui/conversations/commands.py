"""New, rename and delete a conversation: ask, change the store, show the result."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from app.core.store import Store
from app.core.trust.display_names import display_name
from app.ui.chat.input import ChatInputWidget
from app.ui.conversations import dialogs as conversation_dialogs
from app.ui.conversations.list_view import ConversationListView
from app.ui.notice import NoticeBarWidget


class ConversationHost(Protocol):
    """What the commands need of the window that shows conversations."""

    notice_bar: NoticeBarWidget
    conversations: ConversationListView
    chat_input: ChatInputWidget

    def current_conversation_id(self) -> str | None: ...
    def show_conversation(self, conversation_id: str) -> None: ...
    def show_no_conversation(self) -> None: ...
    def refresh_conversations(self) -> None: ...
    def is_busy(self) -> bool: ...
    def setWindowTitle(self, title: str) -> None: ...
    def dialog_parent(self) -> QWidget: ...


def new_title(folder: Path) -> str:
    return f"Chat in {folder.name or folder}"


class ConversationCommands(QObject):
    """What the File and Conversation menus and the list's own menu do.

    ``ask_folder``, ``ask_title`` and ``confirm_delete`` are attributes so a
    test can answer the questions instead of a person.
    """

    def __init__(self, window: ConversationHost, store: Store) -> None:
        super().__init__()
        self._window = window
        self._store = store
        self.ask_folder = conversation_dialogs.ask_folder
        self.ask_title = conversation_dialogs.ask_title
        self.confirm_delete = conversation_dialogs.confirm_delete

    def new_conversation(self) -> str | None:
        """Ask for a workspace folder and start an empty conversation in it."""
        current = self._window.current_conversation_id()
        start = os.path.expanduser("~")
        if current is not None:
            start = self._store.conversation(current).workspace or start
        folder = self.ask_folder(self._window.dialog_parent(), start)
        if folder is None:
            return None
        if not folder.is_dir():
            self._window.notice_bar.show_message(
                f"{display_name(str(folder))} is not a folder.", "warning"
            )
            return None
        conversation = self._store.create_conversation(
            new_title(folder), os.fspath(folder.resolve())
        )
        self._window.show_conversation(conversation.id)
        self._window.refresh_conversations()
        self._window.chat_input.focus_editor()
        return conversation.id

    def rename_current(self) -> None:
        current = self._window.current_conversation_id()
        if current is not None:
            self.rename(current)

    def delete_current(self) -> None:
        current = self._window.current_conversation_id()
        if current is not None:
            self.delete(current)

    def rename(self, conversation_id: str) -> None:
        try:
            conversation = self._store.conversation(conversation_id)
        except KeyError:
            return
        title = self.ask_title(self._window.dialog_parent(), conversation.title)
        if title is None or title == conversation.title:
            return
        self._store.rename_conversation(conversation_id, title)
        self._window.refresh_conversations()
        if conversation_id == self._window.current_conversation_id():
            self._window.setWindowTitle(f"{display_name(title)} — Deliverables")

    def delete(self, conversation_id: str) -> bool:
        """Ask, then delete; the next conversation in the list is shown."""
        try:
            conversation = self._store.conversation(conversation_id)
        except KeyError:
            return False
        shown = conversation_id == self._window.current_conversation_id()
        if shown and self._window.is_busy():
            self._window.notice_bar.show_message(
                "Stop the running turn before deleting this conversation.", "warning"
            )
            return False
        forks = sum(
            1 for c in self._store.conversations() if c.parent_id == conversation_id
        )
        if not self.confirm_delete(
            self._window.dialog_parent(), conversation.title, forks
        ):
            return False
        order = self._window.conversations.visible_ids()
        self._store.delete_conversation(conversation_id)
        remaining = [c.id for c in self._store.conversations()]
        if shown:
            following = _neighbour(order, conversation_id, set(remaining))
            if following is None and remaining:
                following = remaining[-1]
            if following is None:
                self._window.show_no_conversation()
            else:
                self._window.show_conversation(following)
        self._window.refresh_conversations()
        self._window.notice_bar.show_message(
            f"Deleted “{display_name(conversation.title)}”."
        )
        return True


def _neighbour(order: list[str], gone: str, remaining: set[str]) -> str | None:
    """The row after ``gone`` in the list (else the one before), if still there."""
    if gone not in order:
        return None
    at = order.index(gone)
    for candidate in order[at + 1 :] + order[:at][::-1]:
        if candidate in remaining:
            return candidate
    return None
