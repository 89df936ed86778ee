"""The listed items' states, re-checked in the background from metadata alone.

Like the cards' badges (``app.ui.cards.checks``): each presented item's record
is read again and its file looked at with ``peek`` (lstat, its folders, the
policy; never opened). What is found is kept in the index, so the state
filter can use it, and shown at once. An imported item stays "not verified":
only Verify says more of it, and what it found (kept under the store's MAC)
is shown. Actions still run their full check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from app.core.imported.verify import VerifyVerdict, verification_state
from app.core.store import Store
from app.core.store.deliverables import DeliverableRef, look_up
from app.core.store.imported_files import ImportedFileRef
from app.core.store.library import UNCHECKED, Library, LibraryItem, LibraryKey
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.revalidate import Verdict, peek

STATE_OF: Final = {
    Verdict.OK: "unchanged",
    Verdict.CHANGED: "modified",
    Verdict.MISSING: "missing",
}


_VERIFIED: Final = {
    VerifyVerdict.UNCHANGED: "unchanged",
    VerifyVerdict.UNRECORDED: "unchanged",
    VerifyVerdict.MODIFIED: "modified",
    VerifyVerdict.MISSING: "missing",
}


class _Relay(QObject):
    done = Signal(int, object)  # generation, {LibraryKey: state}


class _StateJob(QRunnable):
    def __init__(
        self,
        relay: _Relay,
        generation: int,
        store: Store,
        items: tuple[LibraryItem, ...],
        policy_for: Callable[[str], Policy],
        mode: PermissionMode | None,
    ) -> None:
        super().__init__()
        self._relay = relay
        self._args = (generation, store, items, policy_for, mode)

    def run(self) -> None:
        generation, store, items, policy_for, mode = self._args
        states: dict[LibraryKey, str] = {}
        try:
            for item in items:
                key = item.key
                if item.imported:
                    states[key] = _verified_state(store, item)
                    continue
                if item.changed:
                    continue  # its check hashes the file: opening it tells
                ref = DeliverableRef(key.conversation_id, key.ref, key.entry)
                lookup = look_up(store, ref)
                if lookup.entry is None or lookup.entry.remote is not None:
                    continue  # no local file to look at
                policy = policy_for(item.workspace)
                check = peek(lookup.entry, policy, trusted=lookup.trusted, mode=mode)
                states[key] = STATE_OF.get(check.verdict, "refused")
            changed = [(k, s) for k, s in states.items() if s != _state(items, k)]
            Library(store).set_states(changed)
        except Exception:  # a closed store at exit: the states simply stay
            return
        self._relay.done.emit(generation, states)


def _verified_state(store: Store, item: LibraryItem) -> str:
    """What Verify found, kept under the store's MAC; "unchecked" if nothing."""
    ref = ImportedFileRef(item.key.conversation_id, item.key.ref)
    found = verification_state(store, ref)
    if not found.verified or found.verdict is None:
        return UNCHECKED
    return _VERIFIED.get(found.verdict, "refused")


def _state(items: Sequence[LibraryItem], key: LibraryKey) -> str:
    return next((item.state for item in items if item.key == key), "")


class StateChecker(QObject):
    """Checks listed items off the GUI thread; only the newest request answers.

    Signals:
        checked(object): ``{LibraryKey: state}`` for the newest request.
    """

    checked = Signal(object)

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

    def check(self, items: Sequence[LibraryItem]) -> None:
        self._generation += 1
        presented = tuple(items)
        if not presented:
            return
        job = _StateJob(
            self._relay,
            self._generation,
            self._store,
            presented,
            self._policy_for,
            self._mode(),
        )
        QThreadPool.globalInstance().start(job)

    def _on_relay_done(self, generation: int, states: object) -> None:
        if generation == self._generation and isinstance(states, dict):
            self.checked.emit(states)
