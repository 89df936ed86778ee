"""The main window: conversations, the chat and the read-only workspace."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QMimeData,
    QObject,
    QPoint,
    Qt,
    QThreadPool,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import QCloseEvent, QDrag, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMenu,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.changes.index import ChangeRef, look_up_change
from app.core.filetype import Kind
from app.core.filetype.text import prepare_legacy_detection
from app.core.store import STORE_FAILURES, Store, StoredMessage
from app.core.store.client_conversations import (
    conversation_rule,
    set_conversation_rule,
)
from app.core.store.deliverables import DeliverableRef
from app.core.store.import_store import ImportStore
from app.core.store.imported_files import ImportedFile, ImportedFileRef
from app.core.trust.display_names import display_name
from app.core.trust.native_open import sweep_private_copies
from app.core.trust.policy import PermissionMode, Policy, current_policy
from app.core.trust.records import FileEntry, Record, parse_record
from app.core.trust.safeio import VerifiedFile
from app.ssh.address import is_remote_address
from app.ssh.errors import RemoteError
from app.ui.cards.actions import FileActions
from app.ui.cards.checks import CardChecker
from app.ui.changes.imported_cards import ImportedCards
from app.ui.changes.imported_session import ImportedSessionBarWidget
from app.ui.chat.input import ChatInputWidget
from app.ui.chat.model import ImportedState
from app.ui.chat.thumbnails import ThumbnailMaker
from app.ui.chat.view import ChatView
from app.ui.conversations.commands import ConversationCommands
from app.ui.conversations.panel import ConversationsPanelWidget
from app.ui.library.window_link import LibraryLink
from app.ui.notice import NoticeBarWidget
from app.ui.window.application import (
    COLOR_SCHEME_KEY,
    app_icon,
    color_scheme,
    settings_for,
)
from app.ui.window.layout import CHAT_MIN_WIDTH, PaneLayout
from app.ui.window.menus import WindowActions, WindowCommands, build_menus
from app.ui.workspace.widget import WorkspaceWidget
from app.workspace.choose import local_workspace, ssh_workspace
from app.workspace.protocol import Workspace
from previewers.context import ColorScheme
from previewers.registry import needs_web_engine, prepare_web_engine

if TYPE_CHECKING:
    from app.importers.session import ImportSummary
    from app.remote.files import RemoteIdentity
    from app.remote.manager import RemoteManager
    from app.remote.workspace import RemoteWorkspace
    from app.ui.changes.import_dialog import ImportDialog
    from previewers.widget import PreviewWidget


GEOMETRY_KEY = "window/geometry"
DEFAULT_SIZE = (1440, 900)
MIN_SIZE = (720, 480)


class MainWindow(QMainWindow):
    """Conversations list, chat with its input, and the workspace.

    Signals:
        loaded(): the chat and the active preview finished loading.
    """

    loaded = Signal()

    def __init__(
        self,
        store: Store,
        data_dir: Path,
        *,
        model_spec: str | None = None,
        mode: PermissionMode = PermissionMode.WORKSPACE_ONLY,
        model_factory: Callable[[str], object] | None = None,
    ) -> None:
        super().__init__()
        self._model_factory = model_factory
        self.setWindowTitle("Deliverables")
        self.setWindowIcon(app_icon())
        self._store = store
        self._settings = settings_for(data_dir)
        self._model_spec = model_spec or str(self._settings.value("model/spec", ""))
        chosen = self._settings.value(COLOR_SCHEME_KEY)
        if chosen is not None:
            color_scheme(_application()).choose(str(chosen))
        self._mode = mode
        self._conversation_id: str | None = None
        self._workspace_root: Path | None = None
        self._bridge: object | None = None
        self._browsers: list[QWidget] = []
        self._web_engine_scheduled = False
        self._viewing = False  # opening files the user named (view)

        self.conversations_panel = ConversationsPanelWidget(self)
        self.conversations = self.conversations_panel.list
        self.chat = ChatView(self)
        self.chat.set_policy_provider(self.current_policy)
        self.chat_input = ChatInputWidget(self)
        # Files the user named on the command line (view) are theirs to open;
        # the mode limits what an agent's records may hand over.
        self.workspace = WorkspaceWidget(
            self.current_policy,
            self,
            mode_provider=lambda: (
                None if self.panes.is_viewer() or self._viewing else self._mode
            ),
        )
        self.file_actions = FileActions(
            store, self._policy_for, lambda: self._mode, parent=self
        )
        self.file_actions.set_dialog_parent(self)
        self.card_checker = CardChecker(
            store, self._policy_for, lambda: self._mode, self
        )
        self.thumbnails = ThumbnailMaker(
            store, self._policy_for, lambda: self._mode, self
        )

        self.chat_column = QWidget(self)
        self.chat_column.setMinimumWidth(CHAT_MIN_WIDTH)
        column = QVBoxLayout(self.chat_column)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.imported_session = ImportedSessionBarWidget(store, self.chat_column)
        column.addWidget(self.imported_session)
        column.addWidget(self.chat, 1)
        column.addWidget(self.chat_input)

        # The middle column shows the chat, or the library in its place.
        self.middle = QStackedWidget(self)
        self.middle.setMinimumWidth(CHAT_MIN_WIDTH)
        self.middle.addWidget(self.chat_column)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.conversations_panel)
        self.splitter.addWidget(self.middle)
        self.splitter.addWidget(self.workspace)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 4)
        self.splitter.setChildrenCollapsible(False)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self.setCentralWidget(central)
        # A row of its own under the panes, its room kept while hidden: a
        # notice never moves what is under the pointer nor covers a control
        # or content, and a viewer (whose chat is folded away) shows it too.
        self.notice_bar = NoticeBarWidget(central)
        self.notice_bar.keep_room()
        layout.addWidget(self.notice_bar)
        self.panes = PaneLayout(
            self.splitter,
            self.conversations_panel,
            self.middle,
            self.workspace,
            self.workspace.tree_pane,
            self._settings,
            self,
        )
        self.library = LibraryLink(
            self, store, self.middle, self._policy_for, lambda: self._mode
        )
        self._init_remote()
        self.commands = ConversationCommands(self, store)
        self.commands.setParent(self)
        self.menu_actions: WindowActions = build_menus(self, self._window_commands())
        self._restore_layout()
        self._connect()
        self._on_panes_changed()
        self.chat_input.set_model(self._model_spec)
        self.chat.set_model(self._model_spec)
        # Copies handed to other apps a day ago or more are no longer needed.
        QTimer.singleShot(0, sweep_private_copies)
        # Off the GUI thread, once the window is up: the first file in a
        # legacy encoding then opens without loading the detector first.
        QTimer.singleShot(
            1000,
            self,
            lambda: QThreadPool.globalInstance().start(prepare_legacy_detection),
        )

    # Public API ---------------------------------------------------------------

    def current_policy(self) -> Policy:
        """The read-deny policy in force now, read fresh for every action."""
        return self._policy_for(
            str(self._workspace_root) if self._workspace_root else None
        )

    def refresh_conversations(self) -> None:
        self.conversations.set_conversations(
            self._store.conversations(),
            self._conversation_id,
            self._store.last_activity(),
        )
        self.menu_actions.rename.setEnabled(self._conversation_id is not None)
        self.menu_actions.delete.setEnabled(self._conversation_id is not None)

    def show_conversation(self, conversation_id: str) -> None:
        conversation = self._store.conversation(conversation_id)
        if self.panes.is_viewer():
            self.panes.set_viewer(False)
            self.panes.default_sizes()
        self._conversation_id = conversation_id
        self.middle.setCurrentWidget(self.chat_column)
        remote = is_remote_address(conversation.workspace)
        # A remote workspace is never looked up on this computer's disk, and
        # an imported session whose workspace is not confirmed has none.
        local = not remote and bool(conversation.workspace)
        self._workspace_root = Path(conversation.workspace) if local else None
        imported_from = self.imported_session.show_conversation(
            conversation_id, conversation.workspace
        )
        messages = self._store.messages(conversation_id)
        imported = ImportStore(self._store).files(conversation_id)
        self.chat.set_conversation(
            conversation_id, conversation.workspace, messages, imported
        )
        self._show_imported_states(conversation_id, imported)
        self.workspace.set_root(self._workspace_root)
        # Only a place the user opened is connected to: nothing an imported
        # transcript says opens a connection (its claim has a Connect… button).
        if remote and imported_from is None:
            self._show_remote_conversation(conversation.workspace)
        self._show_record_files(_trusted_files(messages))
        self.setWindowTitle(f"{display_name(conversation.title)} — Deliverables")
        self._bridge = None
        self.chat_input.set_busy(False)
        if self.conversations.current_conversation_id() != conversation_id:
            self.refresh_conversations()
        self.menu_actions.rename.setEnabled(True)
        self.menu_actions.delete.setEnabled(True)
        self.recheck_cards()

    def _show_record_files(self, files: list[FileEntry]) -> None:
        """Fill the External files node; start the web engine if a page is here."""
        self.workspace.set_external_entries(
            [entry for entry in files if entry.scope == "external"]
        )
        if any(needs_web_engine(entry.kind, entry.name) for entry in files):
            self._prepare_web_engine_when_idle()

    def _on_workspace_web_files_listed(self) -> None:
        self._prepare_web_engine_when_idle()

    def _prepare_web_engine_when_idle(self) -> None:
        """Start the web engine soon, once: a page or an SVG is in sight.

        It can start only on the GUI thread, so it starts while the window is
        idle, and the first page opened later shows in tens of milliseconds.
        """
        if not self._web_engine_scheduled:
            self._web_engine_scheduled = True
            QTimer.singleShot(1500, self, self._prepare_web_engine)

    def _prepare_web_engine(self) -> None:
        # An engine tied to an older server: its pages say so when opened.
        with contextlib.suppress(RuntimeError):
            prepare_web_engine()

    def recheck_cards(self) -> None:
        """Bring the cards' badges up to date, in the background."""
        if self._conversation_id is None or self.panes.is_viewer():
            return
        workspace = str(self._workspace_root) if self._workspace_root else ""
        refs = self.chat.deliverable_refs()
        self.card_checker.check(self._conversation_id, workspace, refs)
        self.thumbnails.request(workspace, refs)

    def show_no_conversation(self) -> None:
        """Nothing is chosen (the last conversation was deleted)."""
        self._conversation_id = None
        self._workspace_root = None
        self.imported_session.show_conversation(None, "")
        self._bridge = None
        self.card_checker.cancel()
        self.thumbnails.cancel()
        self.chat.clear_conversation()
        self.workspace.set_root(None)
        self.workspace.set_external_entries([])
        self.setWindowTitle("Deliverables")
        self.refresh_conversations()

    def current_conversation_id(self) -> str | None:
        return self._conversation_id

    def dialog_parent(self) -> QWidget:
        return self

    def is_viewer(self) -> bool:
        return self.panes.is_viewer()

    def is_busy(self) -> bool:
        """Whether an agent turn is running in the conversation shown."""
        from app.ui.chat.agent_bridge import AgentBridge

        return isinstance(self._bridge, AgentBridge) and self._bridge.busy

    def refresh_from_store(self, conversation_id: str) -> None:
        """Show what another process added to ``conversation_id``.

        The chat shown gets only the messages added since (its scroll position
        kept unless it was at the bottom); for any other conversation the list
        is refreshed. Records are read back from the store, whose MAC decides
        whether they are trusted.
        """
        if self.library.showing():
            self.library.pane.reload()
        if conversation_id != self._conversation_id:
            self.refresh_conversations()
            return
        new = self._store.messages(conversation_id, start=self.chat.next_position())
        if not new:
            return
        self.chat.append_stored(new)
        files = _trusted_files(new)
        if any(entry.scope == "external" for entry in files):
            # The node lists the whole conversation's external files.
            self._show_record_files(
                _trusted_files(self._store.messages(conversation_id))
            )
        elif any(needs_web_engine(entry.kind, entry.name) for entry in files):
            self._prepare_web_engine_when_idle()

    def view_files(
        self,
        paths: Sequence[str],
        workspace: Path | None,
        *,
        on_shown: Callable[[PreviewWidget], None] | None = None,
        beside: bool = False,
    ) -> list[str]:
        """Open files straight into the workspace, the last one active.

        The window becomes a viewer: the conversations and the chat fold away,
        and this layout is not remembered for the next start. With ``beside``
        (a window the user already works in) the files open beside its tabs
        instead, and its panes, conversation and tree stay as they were.
        Returns why each file that could not be opened was not (empty when
        all were); ``on_shown`` gets the preview of each file that was, still
        loading.
        """
        if not beside:
            self.panes.set_viewer(True)
            self._workspace_root = workspace
            self.workspace.set_root(workspace)
        refusals: list[str] = []
        self._viewing = True
        try:
            for path in paths:
                reason = self.workspace.open_path_or_reason(path)
                preview = self.workspace.current_preview()
                if reason is not None:
                    refusals.append(reason)
                elif on_shown is not None and preview is not None:
                    on_shown(preview)
        finally:
            self._viewing = False
        if refusals:
            shown = "\n".join(refusals)
            self.notice_bar.show_message(shown, "warning")
            if self.workspace.tab_count() == 0:
                self.workspace.tabs.set_empty_message(shown)
        return refusals

    def is_loaded(self) -> bool:
        # A viewer folds the chat away, so it never paints: wait for the
        # workspace alone there.
        chat_loaded = self.panes.is_viewer() or self.chat.is_loaded()
        return bool(chat_loaded and self.workspace.is_loaded())

    # Wiring --------------------------------------------------------------------

    def _window_commands(self) -> WindowCommands:
        return WindowCommands(
            new_conversation=self.commands.new_conversation,
            import_session=lambda: self.open_import_dialog(),
            open_remote_workspace=self.open_remote_workspace,
            rename_conversation=self.commands.rename_current,
            delete_conversation=self.commands.delete_current,
            filter_conversations=self._on_filter_requested,
            settings=self._open_settings,
            quit=self.close,
            show_conversations=self.panes.set_conversations_visible,
            show_tree=self.panes.set_tree_visible,
            focus_preview=self.panes.set_focus,
            focus_message=self.chat_input.focus_editor,
        )

    def _connect(self) -> None:
        self.conversations.conversationSelected.connect(
            self._on_conversations_conversation_selected
        )
        self.conversations.renameRequested.connect(self.commands.rename)
        self.conversations.deleteRequested.connect(self.commands.delete)
        self.conversations_panel.newRequested.connect(self.commands.new_conversation)
        self.conversations_panel.libraryRequested.connect(self.library.show)
        self.panes.changed.connect(self._on_panes_changed)
        self.workspace.webFilesListed.connect(self._on_workspace_web_files_listed)
        self.card_checker.checked.connect(self._on_card_checker_checked)
        self.thumbnails.made.connect(self.chat.set_thumbnail)
        self.chat.chat_model().historyLoaded.connect(self.recheck_cards)
        self.chat.deliverableActivated.connect(self._on_chat_deliverable_activated)
        self.chat.deliverableMenuRequested.connect(self._on_chat_menu_requested)
        self.chat.deliverableDragged.connect(self._on_chat_deliverable_dragged)
        self.chat.forkRequested.connect(self._on_chat_fork_requested)
        self._connect_changes()
        self.chat.notice.connect(self.notice_bar.show_message)
        self.file_actions.refused.connect(self._on_actions_refused)
        self.file_actions.notice.connect(self.notice_bar.show_message)
        self.file_actions.acted.connect(self.notice_bar.clear_problem)
        self.file_actions.verdictChanged.connect(self.chat.set_verdict)
        self.file_actions.openRequested.connect(self._on_actions_open_requested)
        self.file_actions.browserRequested.connect(self._on_actions_browser_requested)
        self.file_actions.revealRequested.connect(self.workspace.reveal)
        self.workspace.notice.connect(self._on_actions_refused)
        self.workspace.quietNotice.connect(self.notice_bar.show_message)
        self.workspace.previewOpened.connect(self._on_workspace_preview_opened)
        self.workspace.actionRequested.connect(self._on_workspace_action_requested)
        self.workspace.fileMenuRequested.connect(self._on_workspace_file_menu_requested)
        self.workspace.focusToggled.connect(self._on_workspace_focus_toggled)
        self.chat_input.sendRequested.connect(self._on_input_send_requested)
        self.chat_input.stopRequested.connect(self._on_input_stop_requested)
        self.chat_input.settingsRequested.connect(self._open_settings)

    # -- the per-turn change index ------------------------------------------

    def _connect_changes(self) -> None:
        bar = self.imported_session
        bar.workspaceConfirmed.connect(self._on_imported_session_workspace_confirmed)
        bar.refused.connect(self._on_actions_refused)
        bar.connectRequested.connect(self._on_claim_connect_requested)
        self.chat.changeActivated.connect(self._on_chat_change_activated)
        self.chat.changeDiffRequested.connect(self._on_chat_change_diff_requested)
        self.imported_cards = ImportedCards(
            self._store, self._policy_for, lambda: self._mode, parent=self
        )
        self.imported_cards.changed.connect(self._on_imported_cards_changed)
        self.chat.verifyRequested.connect(self._on_chat_verify_requested)
        self.chat.importedActivated.connect(self.file_actions.open_imported)

    def _show_imported_states(
        self, conversation_id: str, imported: list[ImportedFile]
    ) -> None:
        model = self.chat.chat_model()
        for ref, state in self.imported_cards.states(conversation_id, imported).items():
            model.set_imported_state(ref, state)

    def _on_chat_verify_requested(self, ref: ImportedFileRef) -> None:
        current = self.chat.chat_model().imported_state(ref)
        self.imported_cards.verify(ref, current)

    def _on_imported_cards_changed(
        self, ref: ImportedFileRef, state: ImportedState
    ) -> None:
        self.chat.chat_model().set_imported_state(ref, state)

    def _on_chat_change_activated(self, ref: ChangeRef) -> None:
        self.file_actions.open_change(ref)

    def _on_chat_change_diff_requested(self, ref: ChangeRef) -> None:
        """A diff window for one change; the diff is worked out off this thread."""
        found = look_up_change(self._store, ref)
        if found is None:
            self._on_actions_refused(
                "Can't show the changes: no such change in this conversation"
            )
            return
        try:
            workspace = self._store.conversation(ref.conversation_id).workspace
        except KeyError:
            workspace = ""
        policy = self._policy_for(workspace)
        mode = self._mode
        store = self._store
        dark = ColorScheme.of(self.palette()) is ColorScheme.DARK
        from app.core.changes.change_diff import change_diff
        from app.ui.changes.diff_view import DiffDialog

        dialog = DiffDialog(found.path, dark=dark, parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.view.load(
            lambda cancelled: change_diff(
                store, ref, policy, mode=mode, cancelled=cancelled
            )
        )
        dialog.show()
        self.diff_dialog = dialog

    # -- importing past sessions ----------------------------------------------

    def open_import_dialog(
        self, *, home: Path | None = None, env: dict[str, str] | None = None
    ) -> ImportDialog:
        """File → Import session…; ``home`` and ``env`` say where to look."""
        from app.ui.changes.import_dialog import ImportDialog

        dialog = ImportDialog(self._store, home=home, env=env, parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.imported.connect(self._on_import_dialog_imported)
        dialog.connectRequested.connect(self._on_claim_connect_requested)
        dialog.show()
        self.import_dialog = dialog
        return dialog

    def _on_import_dialog_imported(self, summaries: list[ImportSummary]) -> None:
        if summaries:
            self.show_conversation(summaries[0].conversation_id)
        self.refresh_conversations()

    def _on_claim_connect_requested(self, address: str) -> None:
        # The user asked: the usual dialog, filled in, waiting for Connect.
        self.open_remote_workspace(address, start=False)

    def _on_imported_session_workspace_confirmed(self, conversation_id: str) -> None:
        if conversation_id == self._conversation_id:
            self.show_conversation(conversation_id)
        self.refresh_conversations()

    def _policy_for(self, workspace: str | None) -> Policy:
        policy = current_policy(workspace)
        if policy.problem is not None:
            # It denies everything; say why, so the user can mend the file.
            self.notice_bar.show_message(
                f"Every file is refused until the read-deny policy loads: "
                f"{policy.problem}",
                "error",
            )
        return policy

    def _on_panes_changed(self) -> None:
        self.menu_actions.conversations.setChecked(self.panes.conversations_visible())
        self.menu_actions.tree.setChecked(self.panes.tree_visible())
        self.menu_actions.focus.setChecked(self.panes.focused())
        self.workspace.set_focus_checked(self.panes.focused())

    def _on_card_checker_checked(self, conversation_id: str, verdicts: object) -> None:
        if conversation_id == self._conversation_id and isinstance(verdicts, dict):
            self.chat.set_verdicts(verdicts)

    def _on_workspace_focus_toggled(self, focus: bool) -> None:
        self.panes.set_focus(focus)

    def _on_filter_requested(self) -> None:
        self.panes.set_conversations_visible(True)
        self.conversations_panel.focus_filter()

    def _on_conversations_conversation_selected(self, conversation_id: str) -> None:
        if conversation_id != self._conversation_id or self.panes.is_viewer():
            self.show_conversation(conversation_id)

    def _on_chat_deliverable_activated(self, ref: DeliverableRef) -> None:
        self.file_actions.perform("open", ref)

    def _on_chat_menu_requested(self, ref: DeliverableRef, position: QPoint) -> None:
        menu = self.file_actions.menu_for(ref, self)
        menu.exec(position)
        menu.deleteLater()

    def _on_chat_deliverable_dragged(self, ref: DeliverableRef) -> None:
        copy = self.file_actions.drag_copy(ref)
        if copy is None:
            return  # refused: the notice says why
        data = QMimeData()
        data.setUrls([QUrl.fromLocalFile(str(copy))])
        self.start_drag(data)

    def start_drag(self, data: QMimeData) -> None:
        """Hand ``data`` to the desktop as a copy drag (blocks until dropped)."""
        drag = QDrag(self.chat)
        drag.setMimeData(data)
        drag.exec(Qt.DropAction.CopyAction)

    def _on_chat_fork_requested(self, conversation_id: str, position: int) -> None:
        fork = self._store.fork(conversation_id, position)
        self.show_conversation(fork.id)
        self.refresh_conversations()
        self.notice_bar.show_message("Forked the conversation from that turn.")

    def _on_actions_refused(self, message: str) -> None:
        self.notice_bar.show_message(message, "warning")

    def _on_workspace_preview_opened(self, _path: str) -> None:
        self.notice_bar.clear_problem()
        self.panes.make_room_for_preview()

    def _on_actions_open_requested(
        self, path: str, opened: object, source_view: bool, ref: object, kind: object
    ) -> None:
        if not isinstance(opened, VerifiedFile):
            return
        self.workspace.open_verified(
            path,
            opened,
            source_view=source_view,
            ref=ref,
            kind=kind if isinstance(kind, Kind) else None,
        )

    def _on_actions_browser_requested(
        self, path: str, opened: object, _ref: object, kind: object
    ) -> None:
        if not isinstance(opened, VerifiedFile):
            return
        from app.ui.window.browser_window import BrowserWindow

        window = BrowserWindow(
            path,
            opened,
            context=self.workspace.preview_context(),
            kind=kind if isinstance(kind, Kind) else None,
            parent=self,
        )
        # Kept until it closes; the window frees its page and revokes its URL.
        self._browsers.append(window)
        window.closed.connect(lambda: self._browsers.remove(window))
        window.show()

    def _on_workspace_action_requested(
        self, action: str, path: str, ref: object
    ) -> None:
        if isinstance(ref, DeliverableRef):
            # A card's file: checked against its record, as the card is.
            self.file_actions.perform(action, ref)
            return
        root = str(self._workspace_root) if self._workspace_root else None
        self.file_actions.perform_path(action, path, root)

    def file_menu(self, path: str, remote: RemoteWorkspace | None) -> QMenu:
        """The file actions' menu for a file of the tree (remote or not).

        Less the action that finds the file in the tree: it is there already.
        """
        if remote is not None:
            menu = self.remote_actions.menu_for_path(remote, path, self)
        else:
            root = str(self._workspace_root) if self._workspace_root else None
            menu = self.file_actions.menu_for_path(path, root, self)
        for action in menu.actions():
            if action.data() in ("reveal", "locate"):
                menu.removeAction(action)
        return menu

    def _on_workspace_file_menu_requested(
        self, path: str, remote: RemoteWorkspace | None, position: QPoint
    ) -> None:
        self.show_menu(self.file_menu(path, remote), position)

    def show_menu(self, menu: QMenu, position: QPoint) -> None:
        """Show a context menu until it closes, then let it go."""
        menu.exec(position)
        menu.deleteLater()

    # Agent ---------------------------------------------------------------------

    def _on_input_send_requested(self, text: str) -> None:
        if not self._model_spec or self._conversation_id is None:
            self.chat_input.restore_unsent()
            self.notice_bar.show_message(
                "Choose a model in Settings before sending messages.", "warning"
            )
            return
        from app.ui.chat.agent_bridge import AgentBridge

        bridge = self._bridge
        if not isinstance(bridge, AgentBridge):
            where = self._agent_workspace()
            if where is None:
                self.chat_input.restore_unsent()
                self.notice_bar.show_message(self._no_workspace_reason(), "warning")
                return
            bridge = AgentBridge(
                self._store,
                self._conversation_id,
                where,
                self._model_spec,
                lambda: self._mode,
                self,
                model_factory=self._model_factory,
            )
            bridge.runEvent.connect(self._on_bridge_event)
            bridge.busyChanged.connect(self.chat_input.set_busy)
            bridge.failed.connect(self._on_bridge_failed)
            bridge.policyChanged.connect(self._on_bridge_policy_changed)
            self._bridge = bridge
        bridge.send(text)

    def _on_input_stop_requested(self) -> None:
        from app.ui.chat.agent_bridge import AgentBridge

        if isinstance(self._bridge, AgentBridge):
            self._bridge.cancel()

    def _on_bridge_failed(self, message: str) -> None:
        # Nothing was sent: what the user wrote goes back in the box.
        self.chat_input.restore_unsent()
        self.notice_bar.show_message(message, "warning")

    def _on_bridge_event(self, event: object) -> None:
        from app.agent.events import MessageStored, RunFailed, RunFinished

        self.chat.apply_event(event)
        if isinstance(event, RunFailed):
            self.chat_input.restore_unsent()
        elif isinstance(event, RunFinished) and not event.cancelled:
            self.chat_input.forget_unsent()
        if isinstance(event, MessageStored) and event.record is not None:
            record = parse_record(event.record)
            if isinstance(record, Record) and self._conversation_id is not None:
                messages = self._store.messages(self._conversation_id)
                self._show_record_files(_trusted_files(messages))

    def _on_bridge_policy_changed(self, path: str) -> None:
        self.notice_bar.show_message(
            f"Your read-deny policy file {path} changed while the agent was "
            "working. Check it: rules removed there apply to every conversation.",
            "warning",
        )

    def _open_settings(self) -> None:
        from app.ui.window.settings_dialog import SettingsDialog

        scheme = color_scheme(_application())
        dialog = SettingsDialog(
            self._model_spec,
            self._mode,
            self,
            scheme=scheme.chosen(),
            rule=conversation_rule(self._store),
        )
        if dialog.exec():
            try:
                set_conversation_rule(self._store, dialog.conversation_rule())
            except STORE_FAILURES as error:
                self.notice_bar.show_message(
                    f"The MCP conversation setting was not saved: {error}", "warning"
                )
            # Applied at once: every widget repaints with the new palette.
            scheme.choose(dialog.color_scheme())
            self._settings.setValue(COLOR_SCHEME_KEY, scheme.chosen())
            self._model_spec = dialog.model_spec()
            self._mode = dialog.mode()
            self._settings.setValue("model/spec", self._model_spec)
            self.chat_input.set_model(self._model_spec)
            self.chat.set_model(self._model_spec)
            self._bridge = None

    def model_spec(self) -> str:
        return self._model_spec

    # Layout memory -------------------------------------------------------------

    def _restore_layout(self) -> None:
        geometry = self._settings.value(GEOMETRY_KEY)
        # The offscreen platform's screen is tiny and would shrink the window.
        offscreen = QGuiApplication.platformName() == "offscreen"
        restored = (
            geometry is not None and not offscreen and self.restoreGeometry(geometry)
        )
        if not restored or self.width() < MIN_SIZE[0] or self.height() < MIN_SIZE[1]:
            self.resize(*self._default_size())
        self.panes.restore()

    def _default_size(self) -> tuple[int, int]:
        width, height = DEFAULT_SIZE
        screen = self.screen()
        # The offscreen platform's screen is tiny; its windows may be larger.
        if screen is not None and QGuiApplication.platformName() != "offscreen":
            available = screen.availableGeometry()
            width, height = (
                min(width, available.width()),
                min(height, available.height()),
            )
        return width, height

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            # Back from another app: files may have changed meanwhile.
            self.recheck_cards()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.panes.is_viewer():
            self.panes.save()
            self._settings.setValue(GEOMETRY_KEY, self.saveGeometry())
            self._settings.sync()
        self.workspace.close()
        self._close_remote()
        super().closeEvent(event)

    # Remote workspaces ----------------------------------------------------------

    def _init_remote(self) -> None:
        self._remote_manager: RemoteManager | None = None
        self._remote_workspaces: dict[str, RemoteWorkspace] = {}
        self._remote_connecting: dict[str, Future[RemoteWorkspace]] = {}
        self._remote_relay = _RemoteRelay(self)
        self._remote_relay.connected.connect(
            self._on_remote_connected, Qt.ConnectionType.QueuedConnection
        )
        from app.ui.cards.remote_actions import RemoteCardActions

        self.remote_actions = RemoteCardActions(
            self._store, self.remote_manager, lambda: self._mode, self
        )
        self.remote_actions.set_dialog_parent(self)
        self.file_actions.set_remote(self.remote_actions)
        self.chat.set_workspace_lookup(self.workspace_at)
        self.remote_actions.refused.connect(self._on_actions_refused)
        self.remote_actions.notice.connect(self.notice_bar.show_message)
        self.remote_actions.acted.connect(self.notice_bar.clear_problem)
        self.remote_actions.verdictChanged.connect(self.chat.set_verdict)
        self.remote_actions.openRequested.connect(self._on_remote_open_requested)
        self.remote_actions.sourceRequested.connect(self._on_remote_source_requested)
        self.remote_actions.locateRequested.connect(self._on_remote_locate_requested)
        self.workspace.remoteActionRequested.connect(
            lambda action, workspace, path: self.remote_actions.perform_path(
                action, workspace, path
            )
        )

    def remote_manager(self) -> RemoteManager:
        """This window's connections (one SSH loop), asking with dialogs; made once."""
        if self._remote_manager is None:
            from app.remote.manager import RemoteManager
            from app.ui.remote.prompts import WindowPrompter

            self._remote_manager = RemoteManager(prompter=WindowPrompter(self))
        return self._remote_manager

    def open_remote_workspace(
        self, address: str | None = None, *, start: bool = True
    ) -> QWidget:
        """File → Open remote workspace…: the dialog, filled in with ``address``.

        With ``start`` it connects at once (the user named the address);
        without, it waits for the user to press Connect. Once connected, a new
        conversation starts on the ``ssh://`` workspace. The dialog is not
        modal to the event loop: the window keeps running.
        """
        from app.ui.remote.open_dialog import OpenRemoteDialog

        recent = [address] if address else []
        dialog = OpenRemoteDialog(self.remote_manager(), recent=recent, parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.opened.connect(self._on_remote_opened)
        dialog.open()
        if address and start:
            dialog.start()
        return dialog

    def remote_workspace_for(self, address: str) -> RemoteWorkspace | None:
        return self._remote_workspaces.get(address)

    def _on_remote_opened(self, workspace: RemoteWorkspace) -> None:
        self._remote_workspaces[workspace.address] = workspace
        # Opening a workspace again continues its newest conversation, as an
        # editor reopens a folder; "+ New" starts another one there.
        earlier = [
            conversation
            for conversation in self._store.conversations()
            if conversation.workspace == workspace.address
        ]
        if earlier:
            conversation = earlier[-1]
        else:
            host = workspace.place.host
            name = PurePosixPath(workspace.root).name or workspace.root
            conversation = self._store.create_conversation(
                f"{name} on {host}", workspace.address
            )
        self.show_conversation(conversation.id)
        self.refresh_conversations()
        self.chat_input.focus_editor()

    def _show_remote_conversation(self, address: str) -> None:
        self._workspace_root = None
        workspace = self._remote_workspaces.get(address)
        if workspace is not None:
            self.workspace.set_remote(workspace)
            return
        if address in self._remote_connecting:
            return
        # Connect in the background; the tree appears when the host answers.
        future = self.remote_manager().open_workspace(address)
        self._remote_connecting[address] = future
        future.add_done_callback(
            lambda done: self._remote_relay.connected.emit(address, done)
        )

    def _on_remote_connected(self, address: str, future: object) -> None:
        self._remote_connecting.pop(address, None)
        if not isinstance(future, Future):
            return
        try:
            workspace = future.result()
        except CancelledError:
            return
        except RemoteError as error:
            self.notice_bar.show_message(error.message, "warning")
            return
        except Exception as error:  # a sentence, never a crash
            self.notice_bar.show_message(f"The connection failed: {error}.", "warning")
            return
        self._remote_workspaces[address] = workspace
        if self._current_workspace_text() == address:
            self.workspace.set_remote(workspace)

    def _current_workspace_text(self) -> str | None:
        if self._conversation_id is None:
            return None
        try:
            return self._store.conversation(self._conversation_id).workspace
        except KeyError:
            return None

    def _no_workspace_reason(self) -> str:
        if not self._current_workspace_text():
            return (
                "This conversation has no workspace yet: choose the folder its "
                "session worked in (Choose workspace… above the chat)."
            )
        return (
            "The remote workspace is not connected yet; wait for it or "
            "open it again with File → Open remote workspace…."
        )

    def workspace_at(self, address: str) -> Workspace | None:
        """The workspace at ``address``; ``None``: its host is not connected yet."""
        if is_remote_address(address):
            remote = self._remote_workspaces.get(address)
            return ssh_workspace(remote) if remote is not None else None
        return local_workspace(
            address, policy_loader=lambda: self._policy_for(address or None)
        )

    def _agent_workspace(self) -> Workspace | None:
        """Where the agent of the conversation shown works (None: not connected).

        The backend is chosen here, once, from the conversation's address; the
        agent's session never asks which one it holds.
        """
        address = self._current_workspace_text()
        if address is not None and is_remote_address(address):
            remote = self._remote_workspaces.get(address)
            return ssh_workspace(remote) if remote is not None else None
        if self._workspace_root is None:
            return None
        return local_workspace(self._workspace_root)

    def _on_remote_open_requested(
        self,
        workspace: RemoteWorkspace,
        path: str,
        identity: RemoteIdentity | None,
        ref: object,
        kind: object,
        source_view: bool = False,
    ) -> None:
        self._remote_workspaces.setdefault(workspace.address, workspace)
        if self.workspace.remote_workspace() is None:
            self.workspace.set_remote(workspace)
        self.workspace.open_remote_on(
            workspace,
            path,
            expected=identity,
            source_view=source_view,
            ref=ref,
            kind=kind if isinstance(kind, Kind) else None,
        )

    def _on_remote_source_requested(
        self,
        workspace: RemoteWorkspace,
        path: str,
        identity: RemoteIdentity | None,
        ref: object,
        kind: object,
    ) -> None:
        self._on_remote_open_requested(workspace, path, identity, ref, kind, True)

    def _on_remote_locate_requested(
        self, workspace: RemoteWorkspace, path: str
    ) -> None:
        tree = self.workspace.remote_tree
        shown = self.workspace.remote_workspace()
        if (
            tree is None
            or shown is None
            or shown.address != workspace.address
            or not tree.locate(path)
        ):
            self._on_actions_refused(
                f"{display_name(PurePosixPath(path).name)} is not in the remote "
                "tree shown."
            )
            return
        self.panes.set_tree_visible(True)

    def _close_remote(self) -> None:
        self.remote_actions.cancel()
        for future in self._remote_connecting.values():
            future.cancel()
        self._remote_connecting.clear()
        if self._remote_manager is not None:
            self._remote_manager.close()
            self._remote_manager = None
        self._remote_workspaces.clear()


class _RemoteRelay(QObject):
    connected = Signal(str, object)  # address, Future[RemoteWorkspace]


def _trusted_files(messages: list[StoredMessage]) -> list[FileEntry]:
    """Every file of this conversation's trusted records, each record read once."""
    entries: list[FileEntry] = []
    for stored in messages:
        if stored.record is None or not stored.record.trusted:
            continue
        record = parse_record(stored.record.raw)
        if isinstance(record, Record):
            entries.extend(record.files)
    return entries


def _application() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication)  # a window exists only inside one
    return app
