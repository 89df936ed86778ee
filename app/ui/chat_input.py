"""The message box under the chat: send, stop, or how to configure a model."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

NO_MODEL_HINT = (
    "No model is configured, so messages cannot be sent. Start with "
    "'deliverables chat --model provider:model --workspace DIR' "
    "(for example ollama:llama3.2), or choose a model in Settings."
)


class _MessageEdit(QPlainTextEdit):
    """Enter sends, Shift+Enter starts a new line."""

    submitted = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class ChatInputWidget(QWidget):
    """Where the user writes to the agent.

    Signals:
        sendRequested(str): the user sent a message.
        stopRequested(): the user wants the running turn stopped.
        settingsRequested(): the user wants to configure a model.
    """

    sendRequested = Signal(str)
    stopRequested = Signal()
    settingsRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._edit = _MessageEdit(self)
        self._edit.setAccessibleName("Message to the agent")
        self._edit.setTabChangesFocus(True)
        self._edit.setFixedHeight(72)
        self._edit.submitted.connect(self._on_edit_submitted)
        self._send = QPushButton("Send", self)
        self._send.setAccessibleName("Send message")
        self._send.clicked.connect(self._on_edit_submitted)
        self._stop = QPushButton("Stop", self)
        self._stop.setAccessibleName("Stop the running turn")
        self._stop.clicked.connect(self.stopRequested)
        self._stop.hide()
        self._settings = QPushButton("Settings…", self)
        self._settings.setAccessibleName("Model settings")
        self._settings.clicked.connect(self.settingsRequested)
        buttons = QVBoxLayout()
        buttons.addWidget(self._send)
        buttons.addWidget(self._stop)
        buttons.addWidget(self._settings)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 8)
        layout.addWidget(self._edit, 1)
        layout.addLayout(buttons)
        self.set_model_configured(False)

    def set_model_configured(self, configured: bool) -> None:
        self._edit.setReadOnly(not configured)
        self._send.setEnabled(configured)
        self._edit.setPlaceholderText(
            "Message the agent (Enter sends, Shift+Enter for a new line)"
            if configured
            else NO_MODEL_HINT
        )

    def set_busy(self, busy: bool) -> None:
        self._send.setVisible(not busy)
        self._stop.setVisible(busy)
        self._edit.setReadOnly(busy)

    def text(self) -> str:
        return self._edit.toPlainText()

    def focus_editor(self) -> None:
        self._edit.setFocus()

    def _on_edit_submitted(self) -> None:
        text = self._edit.toPlainText().strip()
        if not text or self._edit.isReadOnly():
            return
        self._edit.clear()
        self.sendRequested.emit(text)
