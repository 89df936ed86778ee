"""Keep the open window current with what other processes do: channel requests."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Final

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QGuiApplication

from app.core.channel.notify import (
    ChangedNotice,
    FolderRequest,
    OpenRequest,
    Request,
    ViewRequest,
)
from app.core.store import STORE_FAILURES, Store
from app.ui.channel.folder_requests import FolderRequestsWidget
from app.ui.channel.server import ChannelServer
from app.ui.window.main_window import MainWindow

_LOG = logging.getLogger(__name__)

# Notices that arrive together (an agent presenting several times in a row)
# cost one read of the store.
COALESCE_MS: Final = 30


class LiveUpdates(QObject):
    """Applies channel requests to one main window.

    A changed notice names a conversation, nothing more: the window rereads
    the store, whose MAC decides what is trusted, and a name the store does
    not know changes nothing. Paths to view go through the same checks as a
    command-line ``view``. A client asking for a folder beyond its boundary
    is shown to the user, whose Approve is what the store keeps.

    Signals:
        applied(str): the window is up to date with this conversation.
    """

    applied = Signal(str)

    def __init__(self, window: MainWindow, store: Store, data_dir: Path) -> None:
        super().__init__(window)
        self._window = window
        self._store = store
        self.channel = ChannelServer(data_dir, self.handle, self)
        self.folder_requests = FolderRequestsWidget(window.centralWidget() or window)
        self.folder_requests.approved.connect(self._on_folder_requests_approved)
        self._pending: dict[str, None] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(COALESCE_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def listen(self) -> bool:
        """Start taking requests; False (reason logged) if the channel is unusable."""
        if self.channel.listen():
            return True
        _LOG.warning("No live updates: %s", self.channel.problem)
        return False

    def close(self) -> None:
        self.channel.close()

    def handle(self, request: Request) -> str | None:
        """Carry out ``request``; ``None`` if done, else why not (for the reply)."""
        if isinstance(request, ChangedNotice):
            self._pending[request.conversation_id] = None
            if not self._timer.isActive():
                self._timer.start()
            return None
        if isinstance(request, OpenRequest):
            return self._open(request.conversation_id)
        if isinstance(request, FolderRequest):
            if self.folder_requests.ask(request):
                self._bring_forward()  # once per request, not at each retry
            return None
        self._view(request)
        return None

    def _on_folder_requests_approved(self, request: FolderRequest) -> None:
        try:
            self._store.approve_folder(request.client, request.folder)
        except (*STORE_FAILURES, ValueError) as error:
            self._window.notice_bar.show_message(
                f"The folder was not approved: {error}", "warning"
            )
            return
        self._window.notice_bar.show_message(
            f"{request.label} may now work in {request.folder}; its next call uses it."
        )

    def _open(self, conversation_id: str | None) -> str | None:
        if conversation_id is not None:
            if not self._known(conversation_id):
                return f"no conversation {conversation_id!r}"
            self._window.show_conversation(conversation_id)
        self._bring_forward()
        return None

    def _view(self, request: ViewRequest) -> None:
        paths = list(request.paths)
        workspace = (
            Path(request.workspace)
            if request.workspace is not None
            else Path(os.path.commonpath([os.path.dirname(p) for p in paths]))
        )
        # view_files opens each path through the policy door, exactly as the
        # command line's view does; a refused path is reported in the window.
        # A window in use keeps its panes and tabs; the files open beside.
        window = self._window
        in_use = window.current_conversation_id() is not None or bool(
            window.workspace.tab_count()
        )
        window.view_files(paths, workspace, beside=in_use)
        self._bring_forward()

    def _bring_forward(self) -> None:
        window = self._window
        if window.isMinimized():
            window.showNormal()
        window.show()
        # The offscreen platform has no stacking or focus, and says so.
        if QGuiApplication.platformName() != "offscreen":
            window.raise_()
            window.activateWindow()

    def _known(self, conversation_id: str) -> bool:
        try:
            self._store.conversation(conversation_id)
        except KeyError:
            return False
        return True

    def _on_timer_timeout(self) -> None:
        pending, self._pending = list(self._pending), {}
        for conversation_id in pending:
            try:
                self._apply(conversation_id)
            except STORE_FAILURES as error:
                # The next notice or the next start shows it; the window lives.
                _LOG.warning(
                    "Could not read conversation %s: %s", conversation_id, error
                )

    def _apply(self, conversation_id: str) -> None:
        if not self._known(conversation_id):
            return
        window = self._window
        if window.current_conversation_id() is None and not window.is_viewer():
            # An empty window shows the first thing an agent presents; a
            # viewer keeps showing the files it was asked to.
            window.show_conversation(conversation_id)
        else:
            window.refresh_from_store(conversation_id)
        self.applied.emit(conversation_id)
