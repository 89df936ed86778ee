"""Card badges kept current: the cards shown are re-checked in the background.

When a conversation is shown and when the window is active again, every card
of it is checked from metadata alone (``app.core.trust.revalidate.peek``: lstat, its
folders, the policy; the file is never opened) on the thread pool. A result
for a conversation that is no longer shown, or for an older request, is
dropped. Actions still run their full check; this only keeps badges honest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from app.core.store import Store
from app.core.store.deliverables import DeliverableRef, look_up
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.revalidate import peek


class _Relay(QObject):
    done = Signal(int, str, object)  # generation, conversation, verdicts


class _CheckJob(QRunnable):
    def __init__(
        self,
        relay: _Relay,
        generation: int,
        store: Store,
        conversation_id: str,
        refs: tuple[DeliverableRef, ...],
        policy: Policy,
        mode: PermissionMode | None,
    ) -> None:
        super().__init__()
        self._relay = relay
        self._args = (generation, store, conversation_id, refs, policy, mode)

    def run(self) -> None:
        generation, store, conversation_id, refs, policy, mode = self._args
        verdicts: dict[DeliverableRef, str] = {}
        try:
            for ref in refs:
                lookup = look_up(store, ref)
                if lookup.entry is None or lookup.entry.remote is not None:
                    continue  # no local file to look at: nothing to badge
                check = peek(lookup.entry, policy, trusted=lookup.trusted, mode=mode)
                verdicts[ref] = check.verdict.value
        except Exception:  # a closed store at exit: the badges simply stay
            return
        self._relay.done.emit(generation, conversation_id, verdicts)


class CardChecker(QObject):
    """Checks a conversation's cards off the GUI thread.

    Signals:
        checked(str, object): the conversation id and ``{DeliverableRef:
            verdict}`` for the newest request; emitted on the GUI thread.
    """

    checked = Signal(str, object)

    def __init__(
        self,
        store: Store,
        policy_for: Callable[[str], Policy],
        mode: Callable[[], PermissionMode | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._policy_for = policy_for
        self._mode = mode
        self._generation = 0
        self._relay = _Relay(self)
        self._relay.done.connect(self._on_relay_done)

    def check(
        self, conversation_id: str, workspace: str, refs: Sequence[DeliverableRef]
    ) -> None:
        """Re-check ``refs``; an answer to an earlier request is dropped."""
        self._generation += 1
        if not refs:
            return
        # Asked here, on the GUI thread: the window's provider is not thread-safe.
        policy = self._policy_for(workspace)
        job = _CheckJob(
            self._relay,
            self._generation,
            self._store,
            conversation_id,
            tuple(refs),
            policy,
            self._mode(),
        )
        QThreadPool.globalInstance().start(job)

    def cancel(self) -> None:
        """Forget every request made so far."""
        self._generation += 1

    def _on_relay_done(
        self, generation: int, conversation_id: str, verdicts: object
    ) -> None:
        if generation == self._generation:
            self.checked.emit(conversation_id, verdicts)
