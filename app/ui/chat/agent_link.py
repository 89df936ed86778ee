"""The agent in the window: one bridge for the conversation shown, made when needed.

The bridge is made at the first message sent in a conversation and forgotten
when another conversation shows or the model changes. Where the agent works
is chosen here, once, from the conversation's workspace: a local folder or a
connected ``ssh://`` place; the agent's session never asks which it holds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from app.core.store import Store
from app.core.trust.policy import PermissionMode
from app.core.trust.records import Record, parse_record
from app.ssh.address import is_remote_address
from app.ui.chat.input import ChatInputWidget
from app.ui.chat.view import ChatView
from app.ui.notice import NoticeBarWidget
from app.workspace.choose import local_workspace
from app.workspace.protocol import Workspace

if TYPE_CHECKING:
    # The agent (and LangChain) loads with the first message, not the window.
    from app.ui.chat.agent_bridge import AgentBridge


class Window(Protocol):
    """What of the main window the agent acts through."""

    chat: ChatView
    chat_input: ChatInputWidget
    notice_bar: NoticeBarWidget

    def current_conversation_id(self) -> str | None: ...

    def current_workspace_text(self) -> str | None: ...

    def workspace_root(self) -> Path | None: ...

    def remote_workspace_for(self, address: str) -> Workspace | None: ...

    def model_spec(self) -> str: ...

    def dialog_parent(self) -> QWidget: ...


class AgentLink(QObject):
    """Sends what the user writes to the agent and shows what it does.

    Signals:
        recordStored(): the agent stored a trusted record; its files may be new.
    """

    recordStored = Signal()

    def __init__(
        self,
        window: Window,
        store: Store,
        mode: Callable[[], PermissionMode],
        model_factory: Callable[[str], object] | None = None,
    ) -> None:
        super().__init__(window.dialog_parent())
        self._window = window
        self._store = store
        self._mode = mode
        self._model_factory = model_factory
        self._bridge: AgentBridge | None = None
        window.chat_input.sendRequested.connect(self.send)
        window.chat_input.stopRequested.connect(self.stop)

    def busy(self) -> bool:
        """Whether an agent turn is running in the conversation shown."""
        return self._bridge is not None and self._bridge.busy

    def forget(self) -> None:
        """Another conversation or model: the next message makes a new bridge."""
        self._bridge = None

    def send(self, text: str) -> None:
        window = self._window
        conversation_id = window.current_conversation_id()
        if not window.model_spec() or conversation_id is None:
            window.chat_input.restore_unsent()
            window.notice_bar.show_message(
                "Choose a model in Settings before sending messages.", "warning"
            )
            return
        bridge = self._bridge
        if bridge is None:
            where = self.workspace()
            if where is None:
                window.chat_input.restore_unsent()
                window.notice_bar.show_message(self._no_workspace_reason(), "warning")
                return
            bridge = self._make_bridge(conversation_id, where)
        bridge.send(text)

    def stop(self) -> None:
        if self._bridge is not None:
            self._bridge.cancel()

    def workspace(self) -> Workspace | None:
        """Where the agent of the conversation shown works (None: not connected)."""
        address = self._window.current_workspace_text()
        if address is not None and is_remote_address(address):
            return self._window.remote_workspace_for(address)
        root = self._window.workspace_root()
        return local_workspace(root) if root is not None else None

    def _make_bridge(self, conversation_id: str, where: Workspace) -> AgentBridge:
        from app.ui.chat.agent_bridge import AgentBridge

        bridge = AgentBridge(
            self._store,
            conversation_id,
            where,
            self._window.model_spec(),
            self._mode,
            self,
            model_factory=self._model_factory,
        )
        bridge.runEvent.connect(self._on_bridge_event)
        bridge.busyChanged.connect(self._window.chat_input.set_busy)
        bridge.failed.connect(self._on_bridge_failed)
        bridge.policyChanged.connect(self._on_bridge_policy_changed)
        self._bridge = bridge
        return bridge

    def _no_workspace_reason(self) -> str:
        if not self._window.current_workspace_text():
            return (
                "This conversation has no workspace yet: choose the folder its "
                "session worked in (Choose workspace… above the chat)."
            )
        return (
            "The remote workspace is not connected yet; wait for it or "
            "open it again with File → Open remote workspace…."
        )

    def _on_bridge_failed(self, message: str) -> None:
        # Nothing was sent: what the user wrote goes back in the box.
        self._window.chat_input.restore_unsent()
        self._window.notice_bar.show_message(message, "warning")

    def _on_bridge_event(self, event: object) -> None:
        from app.agent.events import MessageStored, RunFailed, RunFinished

        self._window.chat.apply_event(event)
        if isinstance(event, RunFailed):
            self._window.chat_input.restore_unsent()
        elif isinstance(event, RunFinished) and not event.cancelled:
            self._window.chat_input.forget_unsent()
        record = event.record if isinstance(event, MessageStored) else None
        if record is not None and isinstance(parse_record(record), Record):
            self.recordStored.emit()

    def _on_bridge_policy_changed(self, path: str) -> None:
        self._window.notice_bar.show_message(
            f"Your read-deny policy file {path} changed while the agent was "
            "working. Check it: rules removed there apply to every conversation.",
            "warning",
        )
