"""Cards' and tree files' actions in the window: what they open, and where.

A card's action is checked against its record by ``FileActions``; a tree
file's action against the workspace's policy. What an action opened shows in
the workspace pane, or in a browser window of its own, always from the
verified descriptor the check kept open.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QMimeData, QObject, QPoint, QUrl
from PySide6.QtWidgets import QMenu, QWidget

from app.core.filetype import Kind
from app.core.store.deliverables import DeliverableRef
from app.core.trust.safeio import VerifiedFile
from app.ui.cards.actions import FileActions
from app.ui.cards.remote_actions import RemoteCardActions
from app.ui.chat.view import ChatView
from app.ui.notice import NoticeBarWidget
from app.ui.workspace.widget import WorkspaceWidget
from app.workspace.choose import local_workspace

if TYPE_CHECKING:
    from app.workspace.protocol import Workspace


class Window(Protocol):
    """What of the main window card and file actions act through."""

    chat: ChatView
    workspace: WorkspaceWidget
    file_actions: FileActions
    remote_actions: RemoteCardActions
    notice_bar: NoticeBarWidget

    def workspace_root(self) -> Path | None: ...

    def start_drag(self, data: QMimeData) -> None: ...

    def show_menu(self, menu: QMenu, position: QPoint) -> None: ...

    def dialog_parent(self) -> QWidget: ...


class CardActionsLink(QObject):
    """Wires cards and tree files to their actions, and shows what they open."""

    def __init__(self, window: Window) -> None:
        super().__init__(window.dialog_parent())
        self._window = window
        self._browsers: list[QWidget] = []
        actions = window.file_actions
        chat = window.chat
        chat.deliverableActivated.connect(self._on_chat_deliverable_activated)
        chat.deliverableMenuRequested.connect(self._on_chat_menu_requested)
        chat.deliverableDragged.connect(self._on_chat_deliverable_dragged)
        actions.refused.connect(self._on_actions_refused)
        actions.notice.connect(window.notice_bar.show_message)
        actions.acted.connect(window.notice_bar.clear_problem)
        actions.verdictChanged.connect(chat.set_verdict)
        actions.openRequested.connect(self._on_actions_open_requested)
        actions.browserRequested.connect(self._on_actions_browser_requested)
        actions.revealRequested.connect(window.workspace.reveal)
        window.workspace.actionRequested.connect(self._on_workspace_action_requested)
        window.workspace.fileMenuRequested.connect(
            self._on_workspace_file_menu_requested
        )

    def file_menu(self, path: str, remote: Workspace | None) -> QMenu:
        """The file actions' menu for a file of the tree (remote or not).

        Less the action that finds the file in the tree: it is there already.
        """
        parent = self._window.dialog_parent()
        workspace = remote
        if workspace is None:
            root = self._root()
            workspace = None if root is None else local_workspace(root)
        menu = self._window.file_actions.menu_for_file(path, workspace, parent)
        for action in menu.actions():
            if action.data() in ("reveal", "locate"):
                menu.removeAction(action)
        return menu

    def _root(self) -> str | None:
        root = self._window.workspace_root()
        return str(root) if root else None

    def _on_actions_refused(self, message: str) -> None:
        self._window.notice_bar.show_message(message, "warning")

    def _on_chat_deliverable_activated(self, ref: DeliverableRef) -> None:
        self._window.file_actions.perform("open", ref)

    def _on_chat_menu_requested(self, ref: DeliverableRef, position: QPoint) -> None:
        menu = self._window.file_actions.menu_for(ref, self._window.dialog_parent())
        menu.exec(position)
        menu.deleteLater()

    def _on_chat_deliverable_dragged(self, ref: DeliverableRef) -> None:
        copy = self._window.file_actions.drag_copy(ref)
        if copy is None:
            return  # refused: the notice says why
        data = QMimeData()
        data.setUrls([QUrl.fromLocalFile(str(copy))])
        self._window.start_drag(data)

    def _on_actions_open_requested(
        self, path: str, opened: object, source_view: bool, ref: object, kind: object
    ) -> None:
        if not isinstance(opened, VerifiedFile):
            return
        self._window.workspace.open_verified(
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
            context=self._window.workspace.preview_context(),
            kind=kind if isinstance(kind, Kind) else None,
            parent=self._window.dialog_parent(),
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
            self._window.file_actions.perform(action, ref)
            return
        self._window.file_actions.perform_path(action, path, self._root())

    def _on_workspace_file_menu_requested(
        self, path: str, remote: Workspace | None, position: QPoint
    ) -> None:
        self._window.show_menu(self.file_menu(path, remote), position)
