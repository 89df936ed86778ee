"""The main window: conversations, the chat and the read-only workspace."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QMimeData,
    QPoint,
    Qt,
    QThreadPool,
    QTimer,
    Signal,
)
from PySide6.QtGui import QCloseEvent, QDrag, QGuiApplication
from PySide6.QtWidgets import (
    QMainWindow,
    QMenu,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.filetype.text import prepare_legacy_detection
from app.core.store import Store
from app.core.trust.display_names import display_name
from app.core.trust.native_open import sweep_private_copies
from app.core.trust.policy import PermissionMode, Policy, current_policy
from app.ssh.address import is_remote_address
from app.ui.cards.actions import FileActions
from app.ui.changes.imported_session import ImportedSessionBarWidget
from app.ui.changes.window_link import ChangesLink
from app.ui.chat.agent_link import AgentLink
from app.ui.chat.badges import CardBadges
from app.ui.chat.input import ChatInputWidget
from app.ui.chat.view import ChatView
from app.ui.conversations.commands import ConversationCommands
from app.ui.conversations.panel import ConversationsPanelWidget
from app.ui.conversations.showing import ShownConversation
from app.ui.library.window_link import LibraryLink
from app.ui.notice import NoticeBarWidget
from app.ui.remote.cards_link import remote_card_actions
from app.ui.remote.connections import RemoteConnections
from app.ui.window.application import (
    app_icon,
)
from app.ui.window.card_actions import CardActionsLink
from app.ui.window.layout import CHAT_MIN_WIDTH, PaneLayout
from app.ui.window.menus import WindowActions, WindowCommands, build_menus
from app.ui.window.preferences import Preferences
from app.ui.workspace.widget import WorkspaceWidget
from app.workspace.choose import local_workspace
from app.workspace.protocol import Workspace

if TYPE_CHECKING:
    from app.remote.manager import RemoteManager
    from app.ui.changes.import_dialog import ImportDialog
    from previewers.widget import PreviewWidget


GEOMETRY_KEY = "window/geometry"
DEFAULT_SIZE = (1440, 900)
MIN_SIZE = (720, 480)


class MainWindow(QMainWindow):
    """Conversations list, chat with its input, and the workspace.

    The window lays out the panes, builds its menus and closes; each concern
    lives in a part it builds and wires (``shown``, ``agent``, ``badges``,
    ``card_actions``, ``changes``, ``connections``, ``remote_actions``,
    ``library``, ``preferences``), which owns its own state.

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
        self.setWindowTitle("Deliverables")
        self.setWindowIcon(app_icon())
        self._store = store
        self.preferences = Preferences(
            store, data_dir, self, model_spec=model_spec, mode=mode
        )
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
                None
                if self.panes.is_viewer() or self._viewing
                else self.preferences.mode
            ),
        )
        self.file_actions = FileActions(store, self._policy_for, self.mode, parent=self)
        self.file_actions.set_dialog_parent(self)
        self.badges = CardBadges(
            self.chat,
            store,
            self._policy_for,
            self.mode,
            self.current_conversation_id,
            self,
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
            self.preferences.settings,
            self,
        )
        self.library = LibraryLink(
            self, store, self.middle, self._policy_for, self.mode
        )
        self.connections = RemoteConnections(self)
        self.connections.failed.connect(self._on_actions_refused)
        self.remote_actions = remote_card_actions(self, store, self.mode)
        self.card_actions = CardActionsLink(self)
        self.agent = AgentLink(self, store, self.mode, model_factory)
        self.changes = ChangesLink(self, store, self._policy_for, self.mode)
        self.shown = ShownConversation(self, store)
        self.commands = ConversationCommands(self, store)
        self.commands.setParent(self)
        self.menu_actions: WindowActions = build_menus(self, self._window_commands())
        self._restore_layout()
        self._connect()
        self._on_panes_changed()
        self.chat_input.set_model(self.preferences.model_spec)
        self.chat.set_model(self.preferences.model_spec)
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
        root = self.shown.workspace_root
        return self._policy_for(str(root) if root else None)

    def refresh_conversations(self) -> None:
        shown = self.shown.conversation_id
        self.conversations.set_conversations(
            self._store.conversations(), shown, self._store.last_activity()
        )
        self.menu_actions.rename.setEnabled(shown is not None)
        self.menu_actions.delete.setEnabled(shown is not None)

    def show_conversation(self, conversation_id: str) -> None:
        if self.panes.is_viewer():
            self.panes.set_viewer(False)
            self.panes.default_sizes()
        self.middle.setCurrentWidget(self.chat_column)
        conversation = self.shown.show(conversation_id)
        self.setWindowTitle(f"{display_name(conversation.title)} — Deliverables")
        self.menu_actions.rename.setEnabled(True)
        self.menu_actions.delete.setEnabled(True)
        self.recheck_cards()

    def recheck_cards(self) -> None:
        """Bring the cards' badges up to date, in the background."""
        conversation_id, root = self.shown.conversation_id, self.shown.workspace_root
        if conversation_id is None or self.panes.is_viewer():
            return
        self.badges.recheck(conversation_id, root)

    def show_no_conversation(self) -> None:
        """Nothing is chosen (the last conversation was deleted)."""
        self.badges.cancel()
        self.shown.show_none()
        self.setWindowTitle("Deliverables")
        self.refresh_conversations()

    def current_conversation_id(self) -> str | None:
        return self.shown.conversation_id

    def current_workspace_text(self) -> str | None:
        return self.shown.workspace_text()

    def dialog_parent(self) -> QWidget:
        return self

    def is_viewer(self) -> bool:
        return self.panes.is_viewer()

    def is_busy(self) -> bool:
        """Whether an agent turn is running in the conversation shown."""
        return self.agent.busy()

    def workspace_root(self) -> Path | None:
        """The local folder of the conversation or files shown, if any."""
        return self.shown.workspace_root

    def refresh_from_store(self, conversation_id: str) -> None:
        """Show what another process added to ``conversation_id``.

        The chat shown gets only the messages added since (its scroll position
        kept unless it was at the bottom); for any other conversation the list
        is refreshed. Records are read back from the store, whose MAC decides
        whether they are trusted.
        """
        if self.library.showing():
            self.library.pane.reload()
        if not self.shown.append_from_store(conversation_id):
            self.refresh_conversations()

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
            self.shown.workspace_root = workspace
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
            settings=self.preferences.choose,
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
        self.chat.chat_model().historyLoaded.connect(self.recheck_cards)
        self.chat.notice.connect(self.notice_bar.show_message)
        self.workspace.notice.connect(self._on_actions_refused)
        self.workspace.quietNotice.connect(self.notice_bar.show_message)
        self.workspace.previewOpened.connect(self._on_workspace_preview_opened)
        self.workspace.focusToggled.connect(self._on_workspace_focus_toggled)
        self.chat_input.settingsRequested.connect(self.preferences.choose)
        self.preferences.modelChanged.connect(self._on_preferences_model_changed)
        self.preferences.failed.connect(self._on_actions_refused)

    def open_import_dialog(
        self, *, home: Path | None = None, env: dict[str, str] | None = None
    ) -> ImportDialog:
        """File → Import session…; ``home`` and ``env`` say where to look."""
        return self.changes.open_import_dialog(home=home, env=env)

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

    def _on_workspace_focus_toggled(self, focus: bool) -> None:
        self.panes.set_focus(focus)

    def _on_filter_requested(self) -> None:
        self.panes.set_conversations_visible(True)
        self.conversations_panel.focus_filter()

    def _on_conversations_conversation_selected(self, conversation_id: str) -> None:
        if conversation_id != self.shown.conversation_id or self.panes.is_viewer():
            self.show_conversation(conversation_id)

    def start_drag(self, data: QMimeData) -> None:
        """Hand ``data`` to the desktop as a copy drag (blocks until dropped)."""
        drag = QDrag(self.chat)
        drag.setMimeData(data)
        drag.exec(Qt.DropAction.CopyAction)

    def _on_actions_refused(self, message: str) -> None:
        self.notice_bar.show_message(message, "warning")

    def _on_workspace_preview_opened(self, _path: str) -> None:
        self.notice_bar.clear_problem()
        self.panes.make_room_for_preview()

    def show_menu(self, menu: QMenu, position: QPoint) -> None:
        """Show a context menu until it closes, then let it go."""
        menu.exec(position)
        menu.deleteLater()

    # Preferences ---------------------------------------------------------------

    def _on_preferences_model_changed(self, model_spec: str) -> None:
        self.chat_input.set_model(model_spec)
        self.chat.set_model(model_spec)
        self.agent.forget()

    def mode(self) -> PermissionMode:
        """The permission mode chosen, read fresh by every action."""
        return self.preferences.mode

    def model_spec(self) -> str:
        return self.preferences.model_spec

    # Layout memory -------------------------------------------------------------

    def _restore_layout(self) -> None:
        geometry = self.preferences.settings.value(GEOMETRY_KEY)
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
            self.preferences.settings.setValue(GEOMETRY_KEY, self.saveGeometry())
            self.preferences.settings.sync()
        self.workspace.close()
        self._close_remote()
        super().closeEvent(event)

    # Remote workspaces ----------------------------------------------------------

    def remote_manager(self) -> RemoteManager:
        """This window's connections (one SSH loop), asking with dialogs; made once."""
        return self.connections.manager()

    def open_remote_workspace(
        self, address: str | None = None, *, start: bool = True
    ) -> QWidget:
        """File → Open remote workspace…: the dialog, filled in with ``address``.

        Once connected, the workspace's newest conversation shows, or a new one
        starts on its ``ssh://`` address.
        """
        return self.connections.open_dialog(address, start=start)

    def remote_workspace_for(self, address: str) -> Workspace | None:
        return self.connections.workspace_for(address)

    def workspace_at(self, address: str) -> Workspace | None:
        """The workspace at ``address``; ``None``: its host is not connected yet."""
        if is_remote_address(address):
            return self.connections.workspace_for(address)
        return local_workspace(
            address, policy_loader=lambda: self._policy_for(address or None)
        )

    def _close_remote(self) -> None:
        self.remote_actions.cancel()
        self.connections.close()
