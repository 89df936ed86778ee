"""The window's end of the notification channel: a user-only local socket.

Each connection may send one frame and gets one reply. A peer that is another
user (Linux checks the socket's peer credentials), sends no valid frame in
time, sends too much, or lacks the token is refused and disconnected; no
input can raise out of here. What a request asks for is decided by the
handler, which applies the app's own checks.

When every slot is taken, a newcomer is let in and the peer that has been
silent longest is dropped: silent peers that keep coming back can then only
crowd each other out, never a sender that speaks at once. A frame that has
already arrived is answered before anyone is dropped.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from app.core.channel.files import ChannelError, channel_paths, write_token
from app.core.channel.notify import (
    FrameReader,
    MessageError,
    Request,
    parse_request,
    peer_uid,
    reply_frame,
)

_LOG = logging.getLogger(__name__)

MAX_CONNECTIONS: Final = 8
FRAME_TIMEOUT_MS: Final = 2000

EVICTED: Final = "a silent peer made room for a newer one"

# Returns None when the request was carried out, else why it was not.
Handler = Callable[[Request], "str | None"]


@dataclass
class _Peer:
    """A connection holding a slot: its socket, its frame so far, when it spoke."""

    connection: QLocalSocket
    reader: FrameReader = field(default_factory=FrameReader)
    heard: float = field(default_factory=time.monotonic)


class ChannelServer(QObject):
    """Listens on the channel of one store's window.

    Signals:
        received(object): a request (``app.core.channel.notify.Request``) that was
            handed to the handler.
        refused(str): a connection or message was refused; the reason.
    """

    received = Signal(object)
    refused = Signal(str)

    def __init__(
        self, data_dir: Path, handler: Handler, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._data_dir = data_dir
        self._handler = handler
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.setMaxPendingConnections(MAX_CONNECTIONS)
        self._server.newConnection.connect(self._on_server_new_connection)
        self._token = ""
        self._lock_fd: int | None = None
        # Keyed by a number, not the socket: a socket being destroyed must
        # not be touched to find its entry (its ``destroyed`` forgets it).
        self._peers: dict[int, _Peer] = {}
        self._connections = 0
        self.problem: str | None = None
        self.socket_path: Path | None = None

    def listen(self) -> bool:
        """Start listening; False (with ``problem`` set) if the channel is unusable.

        Only one window per store listens: the one holding the channel's lock.
        A socket file left by a window that died is replaced.
        """
        if not hasattr(socket, "AF_UNIX"):
            self.problem = "local sockets are not available on this system"
            return False
        try:
            paths = channel_paths(self._data_dir)
            if not self._lock(paths.lock):
                self.problem = "another window of this store is listening"
                return False
            # We hold the lock, so a socket file there is a dead window's.
            QLocalServer.removeServer(os.fspath(paths.socket))
            self._token = write_token(paths.token)
        except (ChannelError, OSError) as error:
            self.problem = str(error)
            self._unlock()
            return False
        if not self._server.listen(os.fspath(paths.socket)):
            self.problem = f"cannot listen: {self._server.errorString()}"
            self._unlock()
            return False
        self.socket_path = paths.socket
        return True

    def close(self) -> None:
        """Stop listening and remove the socket and token."""
        if self.socket_path is None:
            return
        self._server.close()
        try:
            paths = channel_paths(self._data_dir)
            paths.token.unlink(missing_ok=True)
        except (ChannelError, OSError) as error:
            _LOG.warning("Channel token not removed: %s", error)
        self.socket_path = None
        self._unlock()

    # -- the lock ------------------------------------------------------------

    def _lock(self, path: Path) -> bool:
        import fcntl

        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(path, flags, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._lock_fd = fd
        return True

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing releases the flock
            self._lock_fd = None

    # -- connections ---------------------------------------------------------

    def _on_server_new_connection(self) -> None:
        while self._server.hasPendingConnections():
            connection = self._server.nextPendingConnection()
            if connection is None:
                return
            connection.disconnected.connect(connection.deleteLater)
            reason = self._admission(connection)
            if reason is not None:
                self._refuse(connection, reason, answer=False)
                continue
            if len(self._peers) >= MAX_CONNECTIONS:
                self._make_room()
            self._connections += 1
            key = self._connections
            self._peers[key] = _Peer(connection)
            connection.destroyed.connect(lambda _=None, k=key: self._forget(k))
            connection.readyRead.connect(
                lambda c=connection, k=key: self._on_ready_read(c, k)
            )
            # A peer that connects and says nothing must not hold a slot.
            QTimer.singleShot(FRAME_TIMEOUT_MS, connection, connection.abort)
            if connection.bytesAvailable():
                self._on_ready_read(connection, key)

    def _admission(self, connection: QLocalSocket) -> str | None:
        descriptor = int(connection.socketDescriptor())
        if descriptor < 0:
            return "no socket"
        try:
            with socket.socket(fileno=os.dup(descriptor)) as peer:
                uid = peer_uid(peer)
        except OSError as error:
            return f"peer unknown ({error.strerror})"
        if uid is not None and uid != os.getuid():
            return f"a process of another user (uid {uid})"
        return None

    def _make_room(self) -> None:
        """Free a slot: answer frames already here, else drop the longest silent."""
        connected = QLocalSocket.LocalSocketState.ConnectedState
        for peer in list(self._peers.values()):
            # Reads what the system holds for the peer now (without waiting)
            # and runs its readyRead here, so a complete frame is answered.
            if peer.connection.state() == connected:
                peer.connection.waitForReadyRead(0)
        if len(self._peers) < MAX_CONNECTIONS:
            return
        key = min(self._peers, key=lambda k: self._peers[k].heard)
        peer = self._peers.pop(key)
        self._refuse(peer.connection, EVICTED, answer=False)

    def _forget(self, key: int) -> None:
        self._peers.pop(key, None)

    def _on_ready_read(self, connection: QLocalSocket, key: int) -> None:
        peer = self._peers.get(key)
        if peer is None:
            return  # answered already; anything more is ignored
        peer.heard = time.monotonic()
        try:
            body = peer.reader.feed(bytes(connection.readAll().data()))
            if body is None:
                return
            request = parse_request(body, self._token)
        except MessageError as error:
            self._forget(key)
            self._refuse(connection, str(error))
            return
        self._forget(key)
        try:
            problem = self._handler(request)
        except Exception:  # a handler bug must not take the window down
            _LOG.exception("Channel request failed")
            problem = "the window could not carry out the request"
        self._answer(connection, problem)
        self.received.emit(request)

    def _refuse(
        self, connection: QLocalSocket, reason: str, answer: bool = True
    ) -> None:
        self.refused.emit(reason)
        if answer:
            self._answer(connection, reason)
        else:
            connection.abort()

    def _answer(self, connection: QLocalSocket, problem: str | None) -> None:
        connection.write(reply_frame(problem))
        connection.flush()
        connection.disconnectFromServer()
