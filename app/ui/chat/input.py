"""The message box under the chat: send, stop, the model in use, how to choose one."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.trust.display_names import display_name

NO_MODEL_HINT = (
    "No model is configured, so messages cannot be sent. Choose one in "
    "Settings, or start with 'deliverables chat --model provider:model "
    "--workspace DIR'."
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

    A sent message leaves the box at once; if sending fails before the agent
    answers (no provider, a bad model, no network) it comes back
    (``restore_unsent``), so nothing the user typed is lost.

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
        self._unsent = ""
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
        self.model_button = QToolButton(self)
        self.model_button.setAutoRaise(True)
        self.model_button.setAccessibleName("Model in use")
        self.model_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.model_button.clicked.connect(self.settingsRequested)
        buttons = QVBoxLayout()
        buttons.addWidget(self._send)
        buttons.addWidget(self._stop)
        buttons.addWidget(self._settings)
        buttons.addStretch(1)
        editor = QVBoxLayout()
        editor.setSpacing(2)
        editor.addWidget(self._edit)
        editor.addWidget(self.model_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 6)
        layout.addLayout(editor, 1)
        layout.addLayout(buttons)
        self.set_model("")

    def set_model(self, spec: str) -> None:
        """Show which model answers (or that none is chosen) and allow sending."""
        configured = bool(spec)
        self.model_button.setText(
            f"Model: {display_name(spec)}" if configured else "No model chosen"
        )
        self.model_button.setToolTip(
            "Change the model in Settings" if configured else NO_MODEL_HINT
        )
        self._edit.setReadOnly(not configured)
        self._send.setEnabled(configured)
        self._edit.setPlaceholderText(
            "Message the agent (Enter sends, Shift+Enter for a new line)"
            if configured
            else NO_MODEL_HINT
        )

    def set_model_configured(self, configured: bool) -> None:
        self.set_model("configured" if configured else "")

    def model_text(self) -> str:
        return self.model_button.text()

    def set_busy(self, busy: bool) -> None:
        self._send.setVisible(not busy)
        self._stop.setVisible(busy)
        self._edit.setReadOnly(busy or not self._send.isEnabled())

    def text(self) -> str:
        return self._edit.toPlainText()

    def focus_editor(self) -> None:
        self._edit.setFocus()

    def restore_unsent(self) -> None:
        """Put the last sent message back, unless the user typed something new."""
        if self._unsent and not self._edit.toPlainText().strip():
            self._edit.setPlainText(self._unsent)
            cursor = self._edit.textCursor()
            cursor.movePosition(cursor.MoveOperation.End)
            self._edit.setTextCursor(cursor)
        self._unsent = ""

    def forget_unsent(self) -> None:
        """The agent answered: the message is in the conversation now."""
        self._unsent = ""

    def _on_edit_submitted(self) -> None:
        text = self._edit.toPlainText().strip()
        if not text or self._edit.isReadOnly():
            return
        self._unsent = text
        self._edit.clear()
        self.sendRequested.emit(text)
