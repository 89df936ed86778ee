"""Above an imported conversation: the workspace in force, and the folder claimed.

The transcript's claim is shown as plain text ("the session says it worked in
…"); the workspace its files are verified in is one the user chose, here or
when importing. A claimed ``ssh://`` place is never connected to unless the
user presses Connect…, which opens the Open remote workspace dialog.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from app.core.store import Store
from app.core.store.import_store import ImportInfo, ImportStore
from app.core.trust.display_names import display_name
from app.core.trust.import_workspace import WorkspaceChoiceError
from app.ssh.address import is_remote_address
from app.ui.changes.import_workspace import SOURCES, ask_workspace, claim_text

UNCONFIRMED = (
    "No workspace is confirmed: its files cannot be verified until you choose "
    "the folder it worked in."
)


def describe(info: ImportInfo, workspace: str) -> str:
    """The bar's words for an import and the workspace now in force."""
    source = SOURCES.get(info.source, info.source)
    claim = claim_text(info.claimed_workspace)
    said = f"Imported from {source}. The session says it worked in {claim}."
    if workspace:
        return f"{said}\nWorkspace: {display_name(workspace)}"
    return f"{said}\n{UNCONFIRMED}"


class ImportedSessionBarWidget(QFrame):
    """The workspace of the imported conversation shown, with its claim.

    ``ask_workspace`` is an attribute so a test can answer for a person.

    Signals:
        workspaceConfirmed(str): the user chose a workspace for this
            conversation (its id); it is stored.
        refused(str): the folder chosen cannot be used; the sentence says why.
        connectRequested(str): Connect… was pressed for the claimed address.
    """

    workspaceConfirmed = Signal(str)
    refused = Signal(str)
    connectRequested = Signal(str)

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importedSessionBar")
        self.setAccessibleName("Imported session")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.ask_workspace = ask_workspace
        self._store = store
        self._conversation_id: str | None = None
        self._info: ImportInfo | None = None
        self._workspace = ""
        self.text = QLabel()
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.choose_button = QPushButton("Choose workspace…")
        self.connect_button = QPushButton("Connect…")
        self.connect_button.setToolTip("Open this remote workspace yourself")
        self.choose_button.clicked.connect(self._on_choose_clicked)
        self.connect_button.clicked.connect(self._on_connect_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 6)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.connect_button)
        layout.addWidget(self.choose_button)
        self.hide()

    def show_conversation(
        self, conversation_id: str | None, workspace: str
    ) -> ImportInfo | None:
        """Show the bar if the conversation is (or was forked from) an import.

        Returns that import, or ``None`` for a conversation made here.
        """
        self._conversation_id = conversation_id
        self._workspace = workspace
        found = None
        if conversation_id is not None:
            found = ImportStore(self._store).origin(conversation_id)
        self._info = found
        if found is None:
            self.hide()
            return None
        self.text.setText(describe(found, workspace))
        self.choose_button.setText(
            "Change workspace…" if workspace else "Choose workspace…"
        )
        claim = found.claimed_workspace
        self.connect_button.setVisible(bool(claim) and is_remote_address(claim))
        self.show()
        return found

    def choose_workspace(self) -> None:
        """Ask for the folder and store it as this conversation's workspace."""
        if self._conversation_id is None or self._info is None:
            return
        claim = self._info.claimed_workspace
        start = self._workspace or (claim if os.path.isdir(claim) else "")
        picked = self.ask_workspace(self, start or os.path.expanduser("~"))
        if not picked:
            return
        try:
            ImportStore(self._store).confirm_workspace(self._conversation_id, picked)
        except WorkspaceChoiceError as error:
            self.refused.emit(f"This folder cannot be the workspace: {error}.")
            return
        self.workspaceConfirmed.emit(self._conversation_id)

    def _on_choose_clicked(self) -> None:
        self.choose_workspace()

    def _on_connect_clicked(self) -> None:
        if self._info is not None:
            self.connectRequested.emit(self._info.claimed_workspace)
