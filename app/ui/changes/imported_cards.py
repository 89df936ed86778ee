"""Imported cards' state, and Verify run off the GUI thread (it reads the file)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from app.core.imported.verify import (
    VerificationState,
    VerifyResult,
    VerifyVerdict,
    verification_state,
    verify_imported,
)
from app.core.store import Store
from app.core.store.imported_files import ImportedFile, ImportedFileRef
from app.core.trust.policy import PermissionMode, Policy
from app.ui.chat.model import ImportedState

_PROBLEMS = (VerifyVerdict.MODIFIED, VerifyVerdict.MISSING, VerifyVerdict.REFUSED)


def state_of(found: VerificationState | VerifyResult) -> ImportedState:
    """What a card shows for a stored verification or a fresh Verify."""
    verified = found.verified
    return ImportedState(verified, found.message, found.verdict in _PROBLEMS)


class _Signals(QObject):
    done = Signal(object, object)  # ImportedFileRef, VerifyResult | str


class _VerifyJob(QRunnable):
    def __init__(self, work: Callable[[], VerifyResult], ref: ImportedFileRef) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.signals = _Signals()
        self._work = work
        self._ref = ref

    def run(self) -> None:
        try:
            result: VerifyResult | str = self._work()
        except Exception as error:  # a failure is a sentence on the card
            result = f"refused (it could not be checked: {error})"
        self.signals.done.emit(self._ref, result)


class ImportedCards(QObject):
    """Reads the cards' states from the store and runs Verify in the pool.

    Signals:
        changed(ImportedFileRef, ImportedState): show this on that card.
    """

    changed = Signal(object, object)

    def __init__(
        self,
        store: Store,
        policy_provider: Callable[[str], Policy],
        mode_provider: Callable[[], PermissionMode],
        *,
        pool: QThreadPool | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._policy_provider = policy_provider
        self._mode_provider = mode_provider
        self._pool = pool or QThreadPool.globalInstance()
        self._jobs: dict[ImportedFileRef, _VerifyJob] = {}

    def states(
        self, conversation_id: str, files: list[ImportedFile]
    ) -> dict[ImportedFileRef, ImportedState]:
        """The stored state of each card (verified before, or not)."""
        found: dict[ImportedFileRef, ImportedState] = {}
        for file in files:
            ref = ImportedFileRef(conversation_id, file.entry_id)
            found[ref] = state_of(verification_state(self._store, ref))
        return found

    def verify(self, ref: ImportedFileRef, current: ImportedState) -> None:
        """Run Verify for ``ref``: "verifying" now, the verdict when done."""
        if ref in self._jobs:
            return
        try:
            workspace = self._store.conversation(ref.conversation_id).workspace
        except KeyError:
            workspace = ""
        # Read on this thread: the policy provider may show a notice.
        policy = self._policy_provider(workspace)
        mode = self._mode_provider()
        store = self._store
        job = _VerifyJob(lambda: verify_imported(store, ref, policy, mode=mode), ref)
        job.signals.done.connect(self._on_job_done)
        self._jobs[ref] = job
        self.changed.emit(ref, current._replace(busy=True))
        self._pool.start(job)

    def busy(self) -> bool:
        return bool(self._jobs)

    def _on_job_done(self, ref: ImportedFileRef, result: object) -> None:
        self._jobs.pop(ref, None)
        if isinstance(result, VerifyResult):
            self.changed.emit(ref, state_of(result))
        else:
            self.changed.emit(ref, ImportedState(False, str(result), True))
