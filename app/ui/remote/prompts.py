"""The window's answers to an SSH connection's questions: host keys, passwords, codes.

The connection asks on its loop thread and awaits a future; ``WindowPrompter``
carries the question to the GUI thread with a queued signal, shows a dialog,
and sets the future from there. A question the connection gives up on (it was
cancelled or timed out) closes its dialog. Nothing typed is kept: the answer
goes into the future and the dialog's fields are cleared.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ssh.prompts import (
    HostKeyDecision,
    HostKeyQuestion,
    KbdintRequest,
    PasswordRequest,
)


def _where(host: str, port: int) -> str:
    return host if port == 22 else f"{host} (port {port})"


class HostKeyDialog(QDialog):
    """An unknown host key: its fingerprint, and trust once, remember or refuse."""

    def __init__(
        self, question: HostKeyQuestion, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Unknown host key")
        self.decision = HostKeyDecision.REFUSE
        where = _where(question.host, question.port)
        text = QLabel(
            f"This is the first connection to {where}, or its key is not in "
            f"{question.known_hosts}. Check that the fingerprint below is the "
            "one the host's administrator gave you before you trust it."
        )
        text.setTextFormat(Qt.TextFormat.PlainText)
        text.setWordWrap(True)
        self.fingerprint = QLabel(f"{question.key_type}  {question.fingerprint}")
        self.fingerprint.setTextFormat(Qt.TextFormat.PlainText)
        self.fingerprint.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
        )
        font = self.fingerprint.font()
        font.setFamily("monospace")
        self.fingerprint.setFont(font)
        buttons = QDialogButtonBox()
        self.refuse_button = buttons.addButton(
            "Refuse", QDialogButtonBox.ButtonRole.RejectRole
        )
        self.once_button = buttons.addButton(
            "Trust this time", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.remember_button = buttons.addButton(
            "Trust and remember", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.refuse_button.setDefault(True)
        self.refuse_button.clicked.connect(self.reject)
        self.once_button.clicked.connect(lambda: self._decide(HostKeyDecision.ONCE))
        self.remember_button.clicked.connect(
            lambda: self._decide(HostKeyDecision.REMEMBER)
        )
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.fingerprint)
        layout.addWidget(buttons)

    def _decide(self, decision: HostKeyDecision) -> None:
        self.decision = decision
        self.accept()


class SecretDialog(QDialog):
    """A password or a keyboard-interactive challenge; the fields are cleared after."""

    def __init__(
        self,
        title: str,
        intro: str,
        prompts: list[tuple[str, bool]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        text = QLabel(intro)
        text.setTextFormat(Qt.TextFormat.PlainText)
        text.setWordWrap(True)
        form = QFormLayout()
        self.fields: list[QLineEdit] = []
        for label, echo in prompts:
            field = QLineEdit()
            if not echo:
                field.setEchoMode(QLineEdit.EchoMode.Password)
            # Secrets are never offered to the clipboard or an input method.
            field.setAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled, echo)
            self.fields.append(field)
            shown = QLabel(label.strip() or "Answer")
            shown.setTextFormat(Qt.TextFormat.PlainText)
            form.addRow(shown, field)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok_button: QPushButton = buttons.button(QDialogButtonBox.StandardButton.Ok)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def take_answers(self) -> tuple[str, ...]:
        """What was typed, once: the fields are emptied as it is taken."""
        answers = tuple(field.text() for field in self.fields)
        for field in self.fields:
            field.clear()
        return answers


class WindowPrompter(QObject):
    """A ``Prompter`` that asks with dialogs; create it on the GUI thread.

    ``dialogs`` holds the dialogs open now (tests answer them like a person).
    """

    _asked = Signal(object, object)  # (kind, question), future

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._window = parent
        self.dialogs: list[QDialog] = []
        self._asked.connect(self._show, Qt.ConnectionType.QueuedConnection)

    # -- called on the connection's loop thread ----------------------------------

    def ask_host_key(self, question: HostKeyQuestion) -> Future[HostKeyDecision]:
        return self._ask("host_key", question)

    def ask_password(self, request: PasswordRequest) -> Future[str | None]:
        return self._ask("password", request)

    def ask_kbdint(self, request: KbdintRequest) -> Future[tuple[str, ...] | None]:
        return self._ask("kbdint", request)

    def _ask(self, kind: str, question: object) -> Future[Any]:
        future: Future[Any] = Future()
        self._asked.emit((kind, question), future)
        return future

    # -- on the GUI thread -------------------------------------------------------

    def _show(self, asked: tuple[str, Any], future: Future[Any]) -> None:
        if not future.set_running_or_notify_cancel():
            return  # the connection gave up before the question arrived
        kind, question = asked
        dialog = self._dialog(kind, question)
        self.dialogs.append(dialog)

        def finished(result: int) -> None:
            if dialog in self.dialogs:
                self.dialogs.remove(dialog)
            if future.done():
                return
            future.set_result(self._answer(kind, dialog, result))

        dialog.finished.connect(finished)
        # A connection cancelled while the dialog is open closes it (queued:
        # the done-callback runs on the loop thread).
        closer = _Closer(dialog)
        future.add_done_callback(lambda _: closer.close_now.emit())
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.open()

    def _dialog(self, kind: str, question: Any) -> QDialog:
        if kind == "host_key":
            return HostKeyDialog(question, self._window)
        if kind == "password":
            request: PasswordRequest = question
            again = " That password was not accepted." if request.attempt > 1 else ""
            return SecretDialog(
                "Password",
                f"{request.user}@{_where(request.host, request.port)} asks for "
                f"the password of {request.user}.{again} It is used for this "
                "login only and never stored.",
                [("Password", False)],
                self._window,
            )
        challenge: KbdintRequest = question
        intro = " ".join(
            part
            for part in (
                f"{challenge.user}@{_where(challenge.host, challenge.port)} asks:",
                challenge.name,
                challenge.instructions,
            )
            if part
        )
        return SecretDialog(
            challenge.name or "Login",
            intro,
            [(prompt.text, prompt.echo) for prompt in challenge.prompts],
            self._window,
        )

    @staticmethod
    def _answer(kind: str, dialog: QDialog, result: int) -> Any:
        accepted = result == QDialog.DialogCode.Accepted
        if isinstance(dialog, HostKeyDialog):
            return dialog.decision if accepted else HostKeyDecision.REFUSE
        assert isinstance(dialog, SecretDialog)
        answers = dialog.take_answers()
        if not accepted:
            return None
        return answers[0] if kind == "password" else answers


class _Closer(QObject):
    """Closes a dialog from any thread, through a queued signal."""

    close_now = Signal()

    def __init__(self, dialog: QDialog) -> None:
        super().__init__(dialog)
        self.close_now.connect(dialog.reject, Qt.ConnectionType.QueuedConnection)
