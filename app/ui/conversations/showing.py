"""The conversation shown: its chat, its workspace, its files, kept in step.

Showing a conversation fills the chat, the imported session bar and the
workspace pane from the store. A remote workspace is never looked up on this
computer's disk; only a place the user opened is connected to, never one an
imported transcript claims. Records are read back from the store, whose MAC
decides whether they are trusted.
"""

from __future__ import annotations

import contextlib
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget

from app.core.store import Conversation, Store, StoredMessage
from app.core.store.import_store import ImportStore
from app.core.trust.records import FileEntry, Record, parse_record
from app.ssh.address import is_remote_address
from app.ui.changes.imported_session import ImportedSessionBarWidget
from app.ui.changes.window_link import ChangesLink
from app.ui.chat.agent_link import AgentLink
from app.ui.chat.input import ChatInputWidget
from app.ui.chat.view import ChatView
from app.ui.conversations.list_view import ConversationListView
from app.ui.notice import NoticeBarWidget
from app.ui.remote.connections import RemoteConnections
from app.ui.workspace.widget import WorkspaceWidget
from previewers.registry import needs_web_engine, prepare_web_engine

if TYPE_CHECKING:
    from app.workspace.protocol import Workspace


class Window(Protocol):
    """What of the main window a conversation is shown in."""

    chat: ChatView
    chat_input: ChatInputWidget
    workspace: WorkspaceWidget
    conversations: ConversationListView
    imported_session: ImportedSessionBarWidget
    changes: ChangesLink
    agent: AgentLink
    connections: RemoteConnections
    notice_bar: NoticeBarWidget

    def show_conversation(self, conversation_id: str) -> None: ...

    def refresh_conversations(self) -> None: ...

    def dialog_parent(self) -> QWidget: ...


class ShownConversation(QObject):
    """Owns which conversation is shown and the local folder it works in."""

    def __init__(self, window: Window, store: Store) -> None:
        super().__init__(window.dialog_parent())
        self._window = window
        self._store = store
        self.conversation_id: str | None = None
        self.workspace_root: Path | None = None
        self._web_engine_scheduled = False
        window.connections.opened.connect(self._on_connections_opened)
        window.connections.connected.connect(self._on_connections_connected)
        window.agent.recordStored.connect(self._on_agent_record_stored)
        window.workspace.webFilesListed.connect(self.prepare_web_engine_when_idle)
        window.chat.forkRequested.connect(self._on_chat_fork_requested)

    def show(self, conversation_id: str) -> Conversation:
        """Show ``conversation_id`` in the chat and the workspace; it is returned."""
        window = self._window
        conversation = self._store.conversation(conversation_id)
        self.conversation_id = conversation_id
        remote = is_remote_address(conversation.workspace)
        # A remote workspace is never looked up on this computer's disk, and
        # an imported session whose workspace is not confirmed has none.
        local = not remote and bool(conversation.workspace)
        self.workspace_root = Path(conversation.workspace) if local else None
        imported_from = window.imported_session.show_conversation(
            conversation_id, conversation.workspace
        )
        messages = self._store.messages(conversation_id)
        imported = ImportStore(self._store).files(conversation_id)
        window.chat.set_conversation(
            conversation_id, conversation.workspace, messages, imported
        )
        window.changes.show_imported_states(conversation_id, imported)
        window.workspace.set_root(self.workspace_root)
        # Only a place the user opened is connected to: nothing an imported
        # transcript says opens a connection (its claim has a Connect… button).
        if remote and imported_from is None:
            # Else it connects in the background; the tree shows when it answers.
            workspace = window.connections.connect_to(conversation.workspace)
            if workspace is not None:
                window.workspace.set_remote(workspace)
        self._show_record_files(trusted_files(messages))
        window.agent.forget()
        window.chat_input.set_busy(False)
        if window.conversations.current_conversation_id() != conversation_id:
            window.refresh_conversations()
        return conversation

    def show_none(self) -> None:
        """Nothing is chosen (the last conversation was deleted)."""
        window = self._window
        self.conversation_id = None
        self.workspace_root = None
        window.imported_session.show_conversation(None, "")
        window.agent.forget()
        window.chat.clear_conversation()
        window.workspace.set_root(None)
        window.workspace.set_external_entries([])

    def workspace_text(self) -> str | None:
        """The workspace the conversation shown names (a folder or ``ssh://``)."""
        if self.conversation_id is None:
            return None
        try:
            return self._store.conversation(self.conversation_id).workspace
        except KeyError:
            return None

    def append_from_store(self, conversation_id: str) -> bool:
        """Add what another process stored; ``False`` if it is not the one shown.

        The chat gets only the messages added since (its scroll position kept
        unless it was at the bottom).
        """
        if conversation_id != self.conversation_id:
            return False
        chat = self._window.chat
        new = self._store.messages(conversation_id, start=chat.next_position())
        if not new:
            return True
        chat.append_stored(new)
        files = trusted_files(new)
        if any(entry.scope == "external" for entry in files):
            # The node lists the whole conversation's external files.
            self._show_record_files(
                trusted_files(self._store.messages(conversation_id))
            )
        elif any(needs_web_engine(entry.kind, entry.name) for entry in files):
            self.prepare_web_engine_when_idle()
        return True

    def prepare_web_engine_when_idle(self) -> None:
        """Start the web engine soon, once: a page or an SVG is in sight.

        It can start only on the GUI thread, so it starts while the window is
        idle, and the first page opened later shows in tens of milliseconds.
        """
        if not self._web_engine_scheduled:
            self._web_engine_scheduled = True
            QTimer.singleShot(1500, self, _prepare_web_engine)

    def _show_record_files(self, files: list[FileEntry]) -> None:
        """Fill the External files node; start the web engine if a page is here."""
        self._window.workspace.set_external_entries(
            [entry for entry in files if entry.scope == "external"]
        )
        if any(needs_web_engine(entry.kind, entry.name) for entry in files):
            self.prepare_web_engine_when_idle()

    def _on_agent_record_stored(self) -> None:
        if self.conversation_id is not None:
            messages = self._store.messages(self.conversation_id)
            self._show_record_files(trusted_files(messages))

    def _on_chat_fork_requested(self, conversation_id: str, position: int) -> None:
        fork = self._store.fork(conversation_id, position)
        self._window.show_conversation(fork.id)
        self._window.refresh_conversations()
        self._window.notice_bar.show_message("Forked the conversation from that turn.")

    def _on_connections_opened(self, workspace: Workspace) -> None:
        # Opening a workspace again continues its newest conversation, as an
        # editor reopens a folder; "+ New" starts another one there.
        earlier = [
            conversation
            for conversation in self._store.conversations()
            if conversation.workspace == workspace.address
        ]
        if earlier:
            conversation = earlier[-1]
        else:
            host = workspace.host
            name = PurePosixPath(workspace.root).name or workspace.root
            conversation = self._store.create_conversation(
                f"{name} on {host}", workspace.address
            )
        self._window.show_conversation(conversation.id)
        self._window.refresh_conversations()
        self._window.chat_input.focus_editor()

    def _on_connections_connected(self, address: str, workspace: Workspace) -> None:
        if self.workspace_text() == address:
            self._window.workspace.set_remote(workspace)


def trusted_files(messages: list[StoredMessage]) -> list[FileEntry]:
    """Every file of this conversation's trusted records, each record read once."""
    entries: list[FileEntry] = []
    for stored in messages:
        if stored.record is None or not stored.record.trusted:
            continue
        record = parse_record(stored.record.raw)
        if isinstance(record, Record):
            entries.extend(record.files)
    return entries


def _prepare_web_engine() -> None:
    # An engine tied to an older server: its pages say so when opened.
    with contextlib.suppress(RuntimeError):
        prepare_web_engine()
