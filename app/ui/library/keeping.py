"""Save copies of library items, or export a conversation, off the GUI thread.

The copying and its checks are ``app.core.library``'s; this asks for the
folder, runs the work on the thread pool and says what happened.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from app.core.library.export import Export, export_conversation
from app.core.library.keeping import Kept, PolicyFor, save_copies
from app.core.store import STORE_FAILURES, Store
from app.core.store.library import LibraryItem
from app.core.trust.policy import PermissionMode
from app.ui.gui_thread import run


def summary(kept: Sequence[Kept]) -> str:
    """One line on what a save did: how many copies, and the first refusal."""
    saved = sum(1 for k in kept if k.target is not None)
    text = f"Saved {saved} of {len(kept)} copies."
    refused = [k for k in kept if k.target is None]
    if refused:
        first = refused[0]
        text += f" {first.item.name} was not saved: {first.reason}."
        if len(refused) > 1:
            text += f" ({len(refused) - 1} more not saved.)"
    return text


class Keeper(QObject):
    """Saves copies and exports, one at a time, reporting on the GUI thread.

    Signals:
        finished(str, bool): what happened, and whether everything was kept.
    """

    finished = Signal(str, bool)

    def __init__(
        self,
        store: Store,
        policy_for: PolicyFor,
        mode: Callable[[], PermissionMode | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._policy_for = policy_for
        self._mode = mode
        self._cancel = threading.Event()
        self.busy = False

    def choose_folder(self, parent: QWidget, title: str) -> str:
        """The folder the user picks; empty when they cancel."""
        return QFileDialog.getExistingDirectory(parent, title)

    def save(self, items: Sequence[LibraryItem], folder: str) -> bool:
        """Copy ``items`` into ``folder`` in the background; ``False`` if busy."""
        store, policy_for, mode = self._store, self._policy_for, self._mode()
        chosen = list(items)
        return self._start(
            lambda: save_copies(
                store, chosen, folder, policy_for, mode=mode, cancelled=self._cancel
            )
        )

    def export(self, conversation_id: str, parent: str) -> bool:
        """Export a conversation's deliverables under ``parent`` in the background."""
        store, policy_for, mode = self._store, self._policy_for, self._mode()
        return self._start(
            lambda: export_conversation(
                store,
                conversation_id,
                parent,
                policy_for,
                mode=mode,
                cancelled=self._cancel,
            )
        )

    def cancel(self) -> None:
        self._cancel.set()

    def _start(self, work: Callable[[], object]) -> bool:
        if self.busy:
            return False
        self.busy = True
        self._cancel.clear()
        run(self, work, self._on_done)
        return True

    def _on_done(self, done: Future[object]) -> None:
        self.busy = False
        try:
            result = done.result()
        except (OSError, *STORE_FAILURES) as error:
            self.finished.emit(f"Nothing more could be saved: {error}", False)
            return
        if isinstance(result, Export):
            kept = list(result.kept)
            text = f"Exported to {result.folder}. {summary(kept)}"
            self.finished.emit(text, all(k.target for k in kept))
        elif isinstance(result, list):
            self.finished.emit(summary(result), all(k.target for k in result))
