"""Run agent turns on a worker thread and hand their events to the GUI thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.core.store import Store
from app.core.trust.policy import PermissionMode, policy_file_state, user_policy_path
from app.workspace.protocol import Workspace


class AgentBridge(QObject):
    """Owns one conversation's runner; ``send`` returns at once.

    LangChain and the model load on the first message, never at start-up.

    Signals:
        runEvent(object): a runner event (MessageStored, ToolCallStarted, ...),
            delivered on the GUI thread.
        busyChanged(bool): a turn started or ended.
        failed(str): the model could not be set up; the text says what to do.
        policyChanged(str): the user's policy file changed while a turn ran;
            the file's path.
    """

    runEvent = Signal(object)
    busyChanged = Signal(bool)
    failed = Signal(str)
    policyChanged = Signal(str)

    def __init__(
        self,
        store: Store,
        conversation_id: str,
        workspace: Workspace,
        model_spec: str,
        mode: Callable[[], PermissionMode],
        parent: QObject | None = None,
        *,
        model_factory: Callable[[str], Any] | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._conversation_id = conversation_id
        self._workspace = workspace
        self._model_spec = model_spec
        self._mode = mode
        self._runner: Any = None
        self._model_factory = model_factory
        self._permission: Any = None
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def send(self, text: str) -> None:
        """Start a turn for ``text`` on a worker thread."""
        if self.busy:
            return
        self.busyChanged.emit(True)
        self._thread = threading.Thread(
            target=self._work, args=(text,), name="agent-turn", daemon=True
        )
        self._thread.start()

    def set_mode(self, mode: PermissionMode) -> None:
        """Switch the mode for the next tool call; schemas and prompt stay the same."""
        if self._permission is not None:
            self._permission.set(mode)

    def cancel(self) -> None:
        if self._runner is not None:
            self._runner.cancel()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _work(self, text: str) -> None:
        try:
            runner = self._runner or self._make_runner()
        except Exception as error:  # a missing provider package or key
            self.failed.emit(str(error))
            self.busyChanged.emit(False)
            return
        self._runner = runner
        # The agent's tools cannot write the policy file, but other programs
        # the agent may drive can: a change made during a turn is the user's
        # to review, since rules removed there apply everywhere.
        before = policy_file_state()
        try:
            runner.run(text, self.runEvent.emit)
        finally:
            if policy_file_state() != before:
                self.policyChanged.emit(str(user_policy_path()))
            self.busyChanged.emit(False)

    def _make_runner(self) -> Any:
        from app.agent.models import load_chat_model
        from app.agent.runner import AgentRunner
        from app.agent.tools import AgentSession, PermissionSetting

        model = (self._model_factory or load_chat_model)(self._model_spec)
        self._permission = PermissionSetting(self._mode())
        session = AgentSession(workspace=self._workspace, permission=self._permission)
        return AgentRunner(self._store, self._conversation_id, model, session)
