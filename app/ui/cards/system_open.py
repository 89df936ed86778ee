"""Hand a file to the desktop: open it with its app, or show it in the file manager."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QProcess, QUrl, Signal
from PySide6.QtDBus import (
    QDBusConnection,
    QDBusMessage,
    QDBusPendingCall,
    QDBusPendingCallWatcher,
)
from PySide6.QtGui import QDesktopServices

FILE_MANAGER_SERVICE = "org.freedesktop.FileManager1"
FILE_MANAGER_PATH = "/org/freedesktop/FileManager1"
# Long enough for a file manager that D-Bus has to start first.
DBUS_TIMEOUT_MS = 10_000


def _default_bus() -> Any:
    return QDBusConnection.sessionBus()


class SystemOpener(QObject):
    """Opens files with the desktop's apps; every platform call is injectable.

    Callers must have revalidated the file just before: from here on the path
    goes to another program, which opens it by name.

    Signals:
        failed(str): a request that went out could not be carried out; the
            plain-text reason, for a notice.
    """

    failed = Signal(str)

    def __init__(
        self,
        *,
        platform: str = sys.platform,
        open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl,
        start_detached: Callable[[str, list[str]], bool] | None = None,
        session_bus: Callable[[], Any] = _default_bus,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._platform = platform
        self._open_url = open_url
        self._start_detached = start_detached or _start_detached
        self._session_bus = session_bus
        self._watchers: set[QDBusPendingCallWatcher] = set()

    def open_file(self, path: str) -> bool:
        """Open ``path`` with the app the desktop associates with it."""
        return bool(self._open_url(QUrl.fromLocalFile(path)))

    def show_in_file_manager(self, path: str) -> bool:
        """Show ``path`` selected in the file manager; ``False`` if nothing started."""
        if self._platform == "darwin":
            return self._start_detached("open", ["-R", path])
        if self._platform == "win32":
            # explorer parses "/select," and the path as one argument.
            return self._start_detached(
                "explorer", [f"/select,{os.path.normpath(path)}"]
            )
        return self._show_items_over_dbus(path)

    def _show_items_over_dbus(self, path: str) -> bool:
        bus = self._session_bus()
        if bus is None or not bus.isConnected():
            return self._open_parent(path)
        message = QDBusMessage.createMethodCall(
            FILE_MANAGER_SERVICE, FILE_MANAGER_PATH, FILE_MANAGER_SERVICE, "ShowItems"
        )
        message.setArguments([[QUrl.fromLocalFile(path).toString()], ""])
        # Asynchronous: starting a file manager can take seconds, and the window
        # must not freeze meanwhile. Errors fall back to the parent folder.
        pending: QDBusPendingCall = bus.asyncCall(message, DBUS_TIMEOUT_MS)
        if pending.isFinished():
            if pending.isError():
                return self._open_parent(path)
            return True
        watcher = QDBusPendingCallWatcher(pending, self)
        self._watchers.add(watcher)
        watcher.finished.connect(lambda done: self._on_show_items_finished(done, path))
        return True

    def _on_show_items_finished(
        self, watcher: QDBusPendingCallWatcher, path: str
    ) -> None:
        self._watchers.discard(watcher)
        watcher.deleteLater()
        if watcher.isError() and not self._open_parent(path):
            self.failed.emit("no file manager could be started")

    def _open_parent(self, path: str) -> bool:
        parent = os.path.dirname(path) or path
        return bool(self._open_url(QUrl.fromLocalFile(parent)))


def _start_detached(program: str, arguments: list[str]) -> bool:
    started, _pid = QProcess.startDetached(program, arguments)
    return bool(started)
