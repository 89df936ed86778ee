"""The folder a session's transcript claims, beside the workspace the user confirms.

Used by the import dialog for the session chosen there. The claim is plain
text: an ``ssh://`` place is never connected to unless the user presses
Connect…, which opens the usual Open remote workspace dialog.
"""

from __future__ import annotations

import os
from typing import Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from app.core.trust.display_names import display_name
from app.core.trust.import_workspace import WorkspaceChoiceError, chosen_workspace
from app.ssh.address import is_remote_address

SOURCES: Final = {"claude-code": "Claude Code", "codex": "Codex"}
NO_CLAIM: Final = "no folder (the transcript names none)"
WITHOUT: Final = (
    "Import without a workspace: its files cannot be verified until one is chosen"
)


def claim_text(claim: str) -> str:
    """How a claimed folder is shown: as the transcript wrote it, plain."""
    return display_name(claim) if claim else NO_CLAIM


def ask_workspace(parent: QWidget, start: str) -> str | None:
    """The folder the user picks as a session's workspace, or ``None``."""
    chosen = QFileDialog.getExistingDirectory(
        parent,
        "Choose the folder the session worked in",
        start,
        QFileDialog.Option.ShowDirsOnly,
    )
    return chosen or None


def workspace_problem(choice: str | None) -> str:
    """Why ``choice`` cannot be imported with ("" when it can).

    ``None`` is the user's choice of no workspace; "" is no choice yet.
    """
    if choice is None:
        return ""
    if not choice:
        return "Choose the folder it worked in, or import it without a workspace."
    try:
        chosen_workspace(choice)
    except WorkspaceChoiceError as error:
        return f"This folder cannot be used: {error}."
    return ""


class ImportWorkspaceWidget(QWidget):
    """The claim and the workspace field of one session.

    ``ask_workspace`` is an attribute so a test can answer for a person.

    Signals:
        changed(object): the user's choice: a folder (str, "" for none yet),
            or ``None`` to import without a workspace.
        connectRequested(str): Connect… was pressed for the claimed address.
    """

    changed = Signal(object)
    connectRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ask_workspace = ask_workspace
        self._claim = ""
        self.claim = QLabel()
        self.claim.setTextFormat(Qt.TextFormat.PlainText)
        self.claim.setWordWrap(True)
        self.claim.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.connect_button = QPushButton("Connect…")
        self.connect_button.setToolTip("Open this remote workspace yourself")
        self.connect_button.hide()
        self.folder = QLineEdit()
        self.folder.setPlaceholderText("The folder on this computer it worked in")
        self.folder.setClearButtonEnabled(True)
        self.folder.setAccessibleName("Workspace")
        self.claim.setAccessibleName("The folder the session says it worked in")
        self.choose_button = QPushButton("Choose…")
        self.without = QCheckBox(WITHOUT)
        self.problem = QLabel()
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)

        self.folder.textEdited.connect(self._on_folder_edited)
        self.choose_button.clicked.connect(self._on_choose_clicked)
        self.without.toggled.connect(self._on_without_toggled)
        self.connect_button.clicked.connect(
            lambda: self.connectRequested.emit(self._claim)
        )

        claimed = QHBoxLayout()
        claimed.addWidget(self.claim, 1)
        claimed.addWidget(self.connect_button)
        chosen = QHBoxLayout()
        chosen.addWidget(self.folder, 1)
        chosen.addWidget(self.choose_button)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("The session says it worked in:", claimed)
        form.addRow("Workspace:", chosen)
        form.addRow("", self.without)
        form.addRow("", self.problem)
        self.set_session(None, "")

    def set_session(self, claim: str | None, choice: str | None) -> None:
        """Show one session (``claim`` None: none chosen); emits nothing."""
        self._claim = claim or ""
        remote = bool(claim) and is_remote_address(self._claim)
        self.claim.setText("—" if claim is None else claim_text(self._claim))
        self.connect_button.setVisible(remote)
        for widget in (self.folder, self.choose_button, self.without):
            widget.setEnabled(claim is not None)
        self.without.blockSignals(True)
        self.without.setChecked(choice is None)
        self.without.blockSignals(False)
        self.folder.setText(choice or "")
        self.folder.setEnabled(claim is not None and choice is not None)
        self.choose_button.setEnabled(self.folder.isEnabled())
        self._show_problem()

    def choice(self) -> str | None:
        return None if self.without.isChecked() else self.folder.text().strip()

    def _show_problem(self) -> None:
        self.problem.setText(
            workspace_problem(self.choice()) if self.folder.isEnabled() else ""
        )

    def _on_folder_edited(self, _text: str) -> None:
        self._show_problem()
        self.changed.emit(self.choice())

    def _on_choose_clicked(self) -> None:
        current = self.folder.text().strip()
        start = current or (self._claim if os.path.isabs(self._claim) else "")
        picked = self.ask_workspace(self, start or os.path.expanduser("~"))
        if picked:
            self.folder.setText(picked)
            self._on_folder_edited(picked)

    def _on_without_toggled(self, checked: bool) -> None:
        self.folder.setEnabled(not checked)
        self.choose_button.setEnabled(not checked)
        self._show_problem()
        self.changed.emit(self.choice())
