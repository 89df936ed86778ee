"""Remote cards in the window: their actions, and where what they open is shown.

A remote card's file opens in the workspace pane on its own connection, as a
tree's file does; "locate" finds it in the remote tree shown, or says it is
not there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Protocol

from app.core.filetype import Kind
from app.core.store import Store
from app.core.trust.display_names import display_name
from app.core.trust.policy import PermissionMode
from app.ui.cards.actions import FileActions
from app.ui.cards.remote_actions import RemoteCardActions
from app.ui.chat.view import ChatView
from app.ui.notice import NoticeBarWidget
from app.ui.remote.connections import RemoteConnections
from app.ui.workspace.widget import WorkspaceWidget

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from app.core.trust.records import FileEntry
    from app.workspace.protocol import Workspace


class _Panes(Protocol):
    def set_tree_visible(self, visible: bool) -> None: ...


class Window(Protocol):
    """What of the main window remote cards act through."""

    chat: ChatView
    notice_bar: NoticeBarWidget
    workspace: WorkspaceWidget
    file_actions: FileActions
    connections: RemoteConnections

    @property
    def panes(self) -> _Panes: ...

    def dialog_parent(self) -> QWidget: ...

    def workspace_at(self, address: str) -> Workspace | None: ...


def remote_card_actions(
    window: Window, store: Store, mode: Callable[[], PermissionMode | None]
) -> RemoteCardActions:
    """The window's remote card actions, wired to its chat, notices and panes."""
    actions = RemoteCardActions(
        store, window.connections.manager, mode, window.dialog_parent()
    )
    actions.set_dialog_parent(window.dialog_parent())
    window.file_actions.set_remote(actions)
    window.chat.set_workspace_lookup(window.workspace_at)
    notices = window.notice_bar
    actions.refused.connect(lambda message: notices.show_message(message, "warning"))
    actions.notice.connect(notices.show_message)
    actions.acted.connect(notices.clear_problem)
    actions.verdictChanged.connect(window.chat.set_verdict)
    actions.openRequested.connect(
        lambda workspace, file, ref, kind: open_remote(
            window, workspace, file, ref, kind
        )
    )
    actions.sourceRequested.connect(
        lambda workspace, file, ref, kind: open_remote(
            window, workspace, file, ref, kind, source_view=True
        )
    )
    actions.locateRequested.connect(
        lambda workspace, path: locate_remote(window, workspace, path)
    )
    window.workspace.remoteActionRequested.connect(
        lambda action, workspace, path: actions.perform_path(action, workspace, path)
    )
    return actions


def open_remote(
    window: Window,
    workspace: Workspace,
    file: str | FileEntry,
    ref: object,
    kind: object,
    *,
    source_view: bool = False,
) -> None:
    """Show a remote card's file in the workspace pane, on its connection."""
    workspace = window.connections.keep(workspace)
    if window.workspace.remote_workspace() is None:
        window.workspace.set_remote(workspace)
    window.workspace.open_remote_on(
        workspace,
        file,
        source_view=source_view,
        ref=ref,
        kind=kind if isinstance(kind, Kind) else None,
    )


def locate_remote(window: Window, workspace: Workspace, path: str) -> None:
    """Select ``path`` in the remote tree shown, or say it is not there."""
    tree = window.workspace.remote_tree
    shown = window.workspace.remote_workspace()
    if (
        tree is None
        or shown is None
        or shown.address != workspace.address
        or not tree.locate(path)
    ):
        window.notice_bar.show_message(
            f"{display_name(PurePosixPath(path).name)} is not in the remote "
            "tree shown.",
            "warning",
        )
        return
    window.panes.set_tree_visible(True)
