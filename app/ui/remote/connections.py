"""A window's SSH connections: one manager, the workspaces open, those connecting.

The manager (one SSH loop, asking with the window's dialogs) is made the first
time something connects, never for a conversation only shown: an imported
transcript's ``ssh://`` claim connects nowhere until the user asks.
"""

from __future__ import annotations

from concurrent.futures import CancelledError, Future
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QWidget

from app.ssh.errors import RemoteError
from app.ui.gui_thread import when_done
from app.workspace.choose import ssh_workspace
from app.workspace.protocol import Workspace

if TYPE_CHECKING:
    from app.remote.manager import RemoteManager
    from app.remote.workspace import RemoteWorkspace


class RemoteConnections(QObject):
    """Connects ``ssh://`` workspaces for one window and keeps them open.

    Each connected host is kept as one ``Workspace``, the one every caller
    of this window holds for that address.

    Signals:
        opened(Workspace): the user connected through the dialog.
        connected(str, Workspace): the address asked for by
            ``connect_to``, and its workspace, now open.
        failed(str): the sentence for a connection ``connect`` could not make.
    """

    opened = Signal(object)
    connected = Signal(str, object)
    failed = Signal(str)

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self._manager: RemoteManager | None = None
        self._workspaces: dict[str, Workspace] = {}
        self._connecting: dict[str, Future[RemoteWorkspace]] = {}

    def manager(self) -> RemoteManager:
        """The window's connections (one SSH loop), asking with dialogs; made once."""
        if self._manager is None:
            from app.remote.manager import RemoteManager
            from app.ui.remote.prompts import WindowPrompter

            self._manager = RemoteManager(prompter=WindowPrompter(self._window))
        return self._manager

    def workspace_for(self, address: str) -> Workspace | None:
        return self._workspaces.get(address)

    def keep(self, workspace: Workspace) -> Workspace:
        """Remember ``workspace`` unless one is open at its address already.

        The one kept for the address is returned: hold that one.
        """
        return self._workspaces.setdefault(workspace.address, workspace)

    def open_dialog(self, address: str | None = None, *, start: bool = True) -> QWidget:
        """The Open remote workspace dialog, filled in with ``address``.

        With ``start`` it connects at once (the user named the address);
        without, it waits for the user to press Connect. It is not modal to
        the event loop: the window keeps running.
        """
        from app.ui.remote.open_dialog import OpenRemoteDialog

        recent = [address] if address else []
        dialog = OpenRemoteDialog(self.manager(), recent=recent, parent=self._window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.opened.connect(self._on_dialog_opened)
        dialog.open()
        if address and start:
            dialog.start()
        return dialog

    def connect_to(self, address: str) -> Workspace | None:
        """The workspace open at ``address``, else ``None`` and connect to it.

        Connecting runs in the background; ``connected`` or ``failed`` says
        how it ended. Asking again while it connects starts nothing more.
        """
        workspace = self._workspaces.get(address)
        if workspace is not None or address in self._connecting:
            return workspace
        future = self.manager().open_workspace(address)
        self._connecting[address] = future
        when_done(self, future, lambda done: self._on_connected(address, done))
        return None

    def close(self) -> None:
        """Stop connecting, close every connection and forget the workspaces."""
        for future in self._connecting.values():
            future.cancel()
        self._connecting.clear()
        if self._manager is not None:
            self._manager.close()
            self._manager = None
        self._workspaces.clear()

    def _on_dialog_opened(self, remote: RemoteWorkspace) -> None:
        workspace = ssh_workspace(remote)
        self._workspaces[workspace.address] = workspace
        self.opened.emit(workspace)

    def _on_connected(self, address: str, done: Future[RemoteWorkspace]) -> None:
        self._connecting.pop(address, None)
        try:
            workspace = ssh_workspace(done.result())
        except CancelledError:
            return
        except RemoteError as error:
            self.failed.emit(error.message)
            return
        except Exception as error:  # a sentence, never a crash
            self.failed.emit(f"The connection failed: {error}.")
            return
        self._workspaces[address] = workspace
        self.connected.emit(address, workspace)
