"""MCP clients asking to work in a folder beyond their boundary: Approve or Ignore.

The request comes over the window's channel; only the user's click approves
it, and the approval is what the store keeps. Names and paths are shown as
plain text: they come from another process.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from app.core.channel.notify import FolderRequest

MARGIN = 14
WIDTH = 520


def request_text(request: FolderRequest) -> str:
    return (
        f"{request.label} asks to work in {request.folder}, outside "
        f"{request.boundary}, the folder it was started for. Approve lets it "
        "present files from there, in this session and later ones."
    )


class FolderRequestsWidget(QFrame):
    """Floats over the top right of a host, one request at a time, until answered.

    A request asked again while it waits is not queued twice.

    Signals:
        approved(object): the user approved this ``FolderRequest``.
        ignored(object): the user ignored this ``FolderRequest``.
    """

    approved = Signal(object)
    ignored = Signal(object)

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.setObjectName("folderRequest")
        self.setAccessibleName("Folder request")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self._host = host
        self._waiting: list[FolderRequest] = []

        self._text = QLabel(self)
        self._text.setTextFormat(Qt.TextFormat.PlainText)
        self._text.setWordWrap(True)
        self._text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.approve_button = QPushButton("Approve", self)
        self.approve_button.clicked.connect(self._on_approve_button_clicked)
        self.ignore_button = QPushButton("Ignore", self)
        self.ignore_button.clicked.connect(self._on_ignore_button_clicked)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.addWidget(self._text, 1)
        layout.addWidget(self.approve_button)
        layout.addWidget(self.ignore_button)
        host.installEventFilter(self)
        self.hide()

    def text(self) -> str:
        return self._text.text()

    def current(self) -> FolderRequest | None:
        return self._waiting[0] if self._waiting else None

    def ask(self, request: FolderRequest) -> bool:
        """Show ``request`` after those waiting; False if it already waits."""
        key = (request.client, request.folder)
        if any((r.client, r.folder) == key for r in self._waiting):
            return False
        self._waiting.append(request)
        self._show_first()
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._host and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _show_first(self) -> None:
        request = self.current()
        if request is None:
            self.hide()
            return
        text = request_text(request)
        self._text.setText(text)
        self.setAccessibleDescription(text)
        self.show()
        self._place()

    def _place(self) -> None:
        host = self._host
        width = max(240, min(WIDTH, host.width() - 2 * MARGIN))
        height = self.heightForWidth(width)
        if height <= 0:
            height = self.sizeHint().height()
        self.setGeometry(host.width() - width - MARGIN, MARGIN, width, height)
        self.raise_()

    def _answer(self) -> FolderRequest | None:
        request = self._waiting.pop(0) if self._waiting else None
        self._show_first()
        return request

    def _on_approve_button_clicked(self) -> None:
        request = self._answer()
        if request is not None:
            self.approved.emit(request)

    def _on_ignore_button_clicked(self) -> None:
        request = self._answer()
        if request is not None:
            self.ignored.emit(request)
