"""Filling the library's index for what was stored before it, off the GUI thread.

The first open after an upgrade fills the index for every stored record (about
6 s for 100,000 deliverables). The store does it on a connection of its own
(``Library.prepare``), so the window keeps reading conversations meanwhile;
the library pane says it is being prepared until it is done.
"""

from __future__ import annotations

from concurrent.futures import Future

from PySide6.QtCore import QObject, Signal

from app.core.store import STORE_FAILURES
from app.core.store.library import Library
from app.ui.gui_thread import run


class LibraryPreparer(QObject):
    """Fills the index in the background once, if the store asks for it.

    Signals:
        finished(str): done; empty if the index is ready, else why it is not.
    """

    finished = Signal(str)

    def __init__(self, library: Library, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._library = library
        self.running = False

    def start(self) -> bool:
        """Start filling if it is needed; whether it was."""
        try:
            needed = self._library.pending()
        except STORE_FAILURES:
            needed = False  # the pane says why when it reads the store
        if needed and not self.running:
            self.running = True
            run(self, self._library.prepare, self._on_prepared)
        return needed

    def _on_prepared(self, done: Future[None]) -> None:
        self.running = False
        try:
            done.result()
        except STORE_FAILURES as error:
            # Nothing is lost: the request stays, and the next open fills it.
            self.finished.emit(f"The library could not be prepared: {error}")
            return
        self.finished.emit("")
