"""Open remote workspace…: an ``ssh://`` address, checked as it is typed, connected.

Connecting runs on the SSH loop thread; the dialog stays responsive, shows what
it waits for, can be cancelled at any time, and says what went wrong in the
connection layer's own sentence (host key changed, no key accepted, …).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import CancelledError, Future

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.remote.manager import RemoteManager
from app.remote.workspace import RemoteWorkspace
from app.ssh.address import AddressError, parse_address
from app.ssh.errors import RemoteError

EXAMPLE = "ssh://me@devbox/home/me/work"


class _Relay(QObject):
    done = Signal(object)


class OpenRemoteDialog(QDialog):
    """Asks for an address and connects; ``opened`` carries the workspace.

    Signals:
        opened(RemoteWorkspace): connected; the dialog has accepted.
        failed(str): the sentence shown for a failed attempt.
    """

    opened = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        manager: RemoteManager,
        *,
        recent: Sequence[str] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Open remote workspace")
        self._manager = manager
        self._pending: Future[RemoteWorkspace] | None = None
        self.workspace: RemoteWorkspace | None = None
        intro = QLabel(
            "The folder on another machine, as ssh://[user@]host[:port]/path. "
            "Hosts, users, ports and keys from ~/.ssh/config and the ssh agent "
            "are used."
        )
        intro.setWordWrap(True)
        self.address = QComboBox()
        self.address.setEditable(True)
        self.address.addItems(list(recent))
        self.address.setCurrentText(recent[0] if recent else "")
        line = self.address.lineEdit()
        assert line is not None
        line.setPlaceholderText(EXAMPLE)
        line.setClearButtonEnabled(True)
        self.status = QLabel("")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.connect_button = QPushButton("Connect")
        self.connect_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.connect_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self._cancel)
        self.address.editTextChanged.connect(self._check)
        self._relay = _Relay(self)
        self._relay.done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.connect_button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.address)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        self.resize(560, 180)
        self._check()

    def _check(self) -> bool:
        """Whether the address can be used; says why not under the field."""
        if self._pending is not None:
            return False
        text = self.address.currentText().strip()
        if not text:
            self.status.setText("")
            self.connect_button.setEnabled(False)
            return False
        try:
            parse_address(text)
        except AddressError as error:
            self.status.setText(f"This address cannot be used: {error}.")
            self.connect_button.setEnabled(False)
            return False
        self.status.setText("")
        self.connect_button.setEnabled(True)
        return True

    def start(self) -> None:
        if self._pending is not None or not self._check():
            return
        text = self.address.currentText().strip()
        host = parse_address(text).host
        self.status.setText(f"Connecting to {host}… (Cancel stops waiting)")
        self.connect_button.setEnabled(False)
        self.address.setEnabled(False)
        future = self._manager.open_workspace(text)
        self._pending = future
        future.add_done_callback(self._relay.done.emit)

    def busy(self) -> bool:
        return self._pending is not None

    def _cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            return
        self.reject()

    def _on_done(self, future: Future[RemoteWorkspace]) -> None:
        if future is not self._pending:
            return
        self._pending = None
        self.address.setEnabled(True)
        try:
            workspace = future.result()
        except CancelledError:
            self._fail("Connecting was cancelled.")
            return
        except RemoteError as error:
            self._fail(error.message)
            return
        except Exception as error:  # a sentence, never a crash
            self._fail(f"The connection failed: {error}.")
            return
        self.workspace = workspace
        self.status.setText(f"Connected to {workspace.address}.")
        self.opened.emit(workspace)
        self.accept()

    def _fail(self, sentence: str) -> None:
        self.status.setText(sentence)
        self._check_after_failure()
        self.failed.emit(sentence)

    def _check_after_failure(self) -> None:
        text = self.address.currentText().strip()
        try:
            parse_address(text)
        except AddressError:
            self.connect_button.setEnabled(False)
            return
        self.connect_button.setEnabled(True)

    def reject(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
        super().reject()
