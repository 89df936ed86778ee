"""Changes and imported sessions in the window: diffs, Verify, Import session….

A change's diff and an imported file's Verify run off the GUI thread and read
the file only through the checks ``app.core`` makes; an imported session's
claimed ``ssh://`` place is connected to only when the user asks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QWidget

from app.core.changes.index import ChangeRef, look_up_change
from app.core.store import Store
from app.core.store.imported_files import ImportedFile, ImportedFileRef
from app.core.trust.policy import PermissionMode, Policy
from app.ui.cards.actions import FileActions
from app.ui.changes.imported_cards import ImportedCards
from app.ui.changes.imported_session import ImportedSessionBarWidget
from app.ui.chat.model import ImportedState
from app.ui.chat.view import ChatView
from app.ui.notice import NoticeBarWidget
from previewers.context import ColorScheme

if TYPE_CHECKING:
    # The dialogs load when first asked for, not with the window.
    from app.importers.session import ImportSummary
    from app.ui.changes.diff_view import DiffDialog
    from app.ui.changes.import_dialog import ImportDialog


class Window(Protocol):
    """What of the main window changes and imported sessions act through."""

    chat: ChatView
    file_actions: FileActions
    notice_bar: NoticeBarWidget
    imported_session: ImportedSessionBarWidget

    def current_conversation_id(self) -> str | None: ...

    def show_conversation(self, conversation_id: str) -> None: ...

    def refresh_conversations(self) -> None: ...

    def open_remote_workspace(
        self, address: str | None = None, *, start: bool = True
    ) -> QWidget: ...

    def dialog_parent(self) -> QWidget: ...


class ChangesLink(QObject):
    """Wires the chat's change and imported cards, and the session bar, to actions."""

    def __init__(
        self,
        window: Window,
        store: Store,
        policy_for: Callable[[str], Policy],
        mode: Callable[[], PermissionMode],
    ) -> None:
        super().__init__(window.dialog_parent())
        self._window = window
        self._store = store
        self._policy_for = policy_for
        self._mode = mode
        self.diff_dialog: DiffDialog | None = None
        self.import_dialog: ImportDialog | None = None
        self.imported_cards = ImportedCards(store, policy_for, mode, parent=self)
        self.imported_cards.changed.connect(self._on_imported_cards_changed)
        bar = window.imported_session
        bar.workspaceConfirmed.connect(self._on_bar_workspace_confirmed)
        bar.refused.connect(self._refuse)
        bar.connectRequested.connect(self._on_claim_connect_requested)
        chat = window.chat
        chat.changeActivated.connect(window.file_actions.open_change)
        chat.changeDiffRequested.connect(self._on_chat_change_diff_requested)
        chat.verifyRequested.connect(self._on_chat_verify_requested)
        chat.importedActivated.connect(window.file_actions.open_imported)

    def show_imported_states(
        self, conversation_id: str, imported: list[ImportedFile]
    ) -> None:
        """Put each imported card's stored state (verified before, or not) on it."""
        model = self._window.chat.chat_model()
        for ref, state in self.imported_cards.states(conversation_id, imported).items():
            model.set_imported_state(ref, state)

    def open_import_dialog(
        self, *, home: Path | None = None, env: dict[str, str] | None = None
    ) -> ImportDialog:
        """File → Import session…; ``home`` and ``env`` say where to look."""
        from app.ui.changes.import_dialog import ImportDialog

        parent = self._window.dialog_parent()
        dialog = ImportDialog(self._store, home=home, env=env, parent=parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.imported.connect(self._on_import_dialog_imported)
        dialog.connectRequested.connect(self._on_claim_connect_requested)
        dialog.show()
        self.import_dialog = dialog
        return dialog

    def _refuse(self, message: str) -> None:
        self._window.notice_bar.show_message(message, "warning")

    def _on_chat_verify_requested(self, ref: ImportedFileRef) -> None:
        current = self._window.chat.chat_model().imported_state(ref)
        self.imported_cards.verify(ref, current)

    def _on_imported_cards_changed(
        self, ref: ImportedFileRef, state: ImportedState
    ) -> None:
        self._window.chat.chat_model().set_imported_state(ref, state)

    def _on_chat_change_diff_requested(self, ref: ChangeRef) -> None:
        """A diff window for one change; the diff is worked out off this thread."""
        found = look_up_change(self._store, ref)
        if found is None:
            self._refuse("Can't show the changes: no such change in this conversation")
            return
        try:
            workspace = self._store.conversation(ref.conversation_id).workspace
        except KeyError:
            workspace = ""
        policy = self._policy_for(workspace)
        mode = self._mode()
        store = self._store
        parent = self._window.dialog_parent()
        dark = ColorScheme.of(parent.palette()) is ColorScheme.DARK
        from app.core.changes.change_diff import change_diff
        from app.ui.changes.diff_view import DiffDialog

        dialog = DiffDialog(found.path, dark=dark, parent=parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.view.load(
            lambda cancelled: change_diff(
                store, ref, policy, mode=mode, cancelled=cancelled
            )
        )
        dialog.show()
        self.diff_dialog = dialog

    def _on_import_dialog_imported(self, summaries: list[ImportSummary]) -> None:
        if summaries:
            self._window.show_conversation(summaries[0].conversation_id)
        self._window.refresh_conversations()

    def _on_claim_connect_requested(self, address: str) -> None:
        # The user asked: the usual dialog, filled in, waiting for Connect.
        self._window.open_remote_workspace(address, start=False)

    def _on_bar_workspace_confirmed(self, conversation_id: str) -> None:
        if conversation_id == self._window.current_conversation_id():
            self._window.show_conversation(conversation_id)
        self._window.refresh_conversations()
