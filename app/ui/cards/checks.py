"""Card badges kept current: the cards shown are re-checked in the background.

When a conversation is shown and when the window is active again, every card
of it is checked from metadata alone (``app.core.trust.revalidate.peek``: lstat, its
folders, the policy; the file is never opened) on the thread pool. A result
for a conversation that is no longer shown, or for an older request, is
dropped. Actions still run their full check; this only keeps badges honest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future

from PySide6.QtCore import QObject, Signal

from app.core.store import Store
from app.core.store.deliverables import DeliverableRef, look_up
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.revalidate import peek
from app.ui.gui_thread import run


def _check_all(
    store: Store,
    refs: tuple[DeliverableRef, ...],
    policy: Policy,
    mode: PermissionMode | None,
) -> dict[DeliverableRef, str]:
    """On a worker: each local card's verdict, from metadata alone."""
    verdicts: dict[DeliverableRef, str] = {}
    for ref in refs:
        lookup = look_up(store, ref)
        if lookup.entry is None or lookup.entry.remote is not None:
            continue  # no local file to look at: nothing to badge
        check = peek(lookup.entry, policy, trusted=lookup.trusted, mode=mode)
        verdicts[ref] = check.verdict.value
    return verdicts


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

    def check(
        self, conversation_id: str, workspace: str, refs: Sequence[DeliverableRef]
    ) -> None:
        """Re-check ``refs``; an answer to an earlier request is dropped."""
        self._generation += 1
        if not refs:
            return
        # Asked here, on the GUI thread: the window's provider is not thread-safe.
        policy = self._policy_for(workspace)
        store, generation, mode = self._store, self._generation, self._mode()
        checked = tuple(refs)
        run(
            self,
            lambda: _check_all(store, checked, policy, mode),
            lambda done: self._on_checked(generation, conversation_id, done),
        )

    def cancel(self) -> None:
        """Forget every request made so far."""
        self._generation += 1

    def _on_checked(
        self,
        generation: int,
        conversation_id: str,
        done: Future[dict[DeliverableRef, str]],
    ) -> None:
        if generation != self._generation or done.exception() is not None:
            return  # older request, or a closed store at exit: badges stay
        self.checked.emit(conversation_id, done.result())
