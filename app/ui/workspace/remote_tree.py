"""A remote workspace's tree: listed over SFTP as folders open, denied files locked.

Listings are asked of the ``Workspace`` (``list``, on the SSH loop thread) and
reach the GUI thread through ``app.ui.gui_thread``; a folder shows "Loading…"
meanwhile and the window never waits. The rows are the local tree's (same
roles, icons and refusals); only where they come from differs: the remote
policy flags denied entries, and links are shown but never followed.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from concurrent.futures import CancelledError, Future

from PySide6.QtCore import Signal, Slot
from PySide6.QtGui import QStandardItem
from PySide6.QtWidgets import QAbstractItemView, QWidget

from app.core.trust.display_names import display_name
from app.core.trust.policy import Policy
from app.core.trust.safeio import SafeOpenError
from app.core.trust.verdicts import DIRECTORY, SYMLINK
from app.ssh.errors import RemoteError
from app.ui.gui_thread import when_done
from app.ui.workspace.tree import (
    NODE_ROLE,
    PATH_ROLE,
    FileTreeModel,
    ListedEntry,
    ListingTreeView,
    Node,
    row_order,
)
from app.workspace.protocol import LISTING_LIMIT, Entry, Listing, Workspace
from previewers.widgets import plain_tooltip

LOADING = "Loading…"


_NODES = {DIRECTORY: Node.FOLDER, SYMLINK: Node.SYMLINK}


def rows_of(entries: Iterable[Entry]) -> list[ListedEntry]:
    """The rows' facts for a listing's entries, folders first, then by name.

    A link's target is shown as the listing read it; the link is never followed.
    """
    rows = []
    for entry in entries:
        node = _NODES.get(entry.kind, Node.FILE)
        size = entry.size if node is Node.FILE else None
        target = entry.link_target if node is Node.SYMLINK else None
        rows.append(
            ListedEntry(entry.name, entry.path, node, size, entry.denied_by, target)
        )
    rows.sort(key=row_order)
    return rows


class RemoteTreeModel(FileTreeModel):
    """Rows for one remote workspace; a folder is listed when first expanded.

    Signals:
        folderListed(str): a folder's listing (or its failure) is shown.
    """

    folderListed = Signal(str)

    def __init__(
        self,
        workspace: Workspace,
        parent: QWidget | None = None,
        *,
        limit: int = LISTING_LIMIT,
    ) -> None:
        # The local policy is never asked: the remote listing flags denied rows.
        super().__init__(lambda: Policy([]), parent)
        self.workspace = workspace
        self._limit = limit
        self._items: dict[str, QStandardItem] = {}
        self._listing: dict[str, Future[Listing]] = {}
        self._set_remote_root()

    def _set_remote_root(self) -> None:
        root = self.workspace.root
        self._root = root
        where = posixpath.basename(root) or root
        item = QStandardItem(display_name(f"{self.workspace.host}:{where}"))
        item.setEditable(False)
        item.setDragEnabled(False)
        item.setData(root, PATH_ROLE)
        item.setData(Node.FOLDER, NODE_ROLE)
        item.setIcon(self._icon(Node.EXTERNAL))
        item.setToolTip(plain_tooltip(f"{self.workspace.address}\n(remote workspace)"))
        item.appendRow(self._placeholder(LOADING))
        self._root_item = item
        self._items[root] = item
        self.insertRow(0, item)

    def listing_in_progress(self) -> bool:
        return bool(self._listing)

    def list_folder(self, item: QStandardItem, *, wait: bool = False) -> None:
        """Ask for a folder's listing; it comes by ``folderListed``, never at once.

        ``wait`` cannot be honoured over the network; ``locate`` goes on as
        each listing arrives instead.
        """
        if item.data(NODE_ROLE) != Node.FOLDER:
            return
        first = item.child(0)
        if first is None or first.data(NODE_ROLE) != Node.PLACEHOLDER:
            return
        if first.text() != LOADING:
            return  # an earlier error stays shown
        path = str(item.data(PATH_ROLE))
        if path in self._listing:
            return
        self._items[path] = item
        future = self.workspace.list(path, limit=self._limit)
        self._listing[path] = future
        when_done(self, future, lambda done: self._on_listed(path, done))

    def _on_listed(self, path: str, future: Future[Listing]) -> None:
        self._listing.pop(path, None)
        item = self._items.get(path)
        if item is None:
            return
        item.removeRows(0, item.rowCount())
        try:
            listing = future.result()
        except (RemoteError, SafeOpenError) as error:
            item.appendRow(self._placeholder(f"Cannot list this folder: {error}"))
            self.folderListed.emit(path)
            return
        except CancelledError:
            item.appendRow(self._placeholder(LOADING))
            return
        self._pending[path] = rows_of(listing.entries)
        self.list_more(item)
        if listing.truncated:
            item.appendRow(
                self._placeholder("This folder holds more entries than are listed")
            )
        self.folderListed.emit(path)

    def has_more(self, path: str) -> bool:
        """Whether the listed folder ``path`` has rows behind "Show more"."""
        return bool(self._pending.get(path))

    def listed_item(self, path: str) -> QStandardItem | None:
        """The row for ``path`` if its folder has been listed, else ``None``."""
        parent = self._items.get(posixpath.dirname(path))
        if path == self._root:
            return self._root_item
        if parent is None:
            return None
        name = posixpath.basename(path)
        for row in range(parent.rowCount()):
            child = parent.child(row)
            if child is not None and child.data(PATH_ROLE) == posixpath.join(
                str(parent.data(PATH_ROLE)), name
            ):
                return child
        return None


class RemoteTreeView(ListingTreeView):
    """The remote tree widget; ``locate`` opens the folders down to a file.

    Signals (besides those of ``ListingTreeView``, whose paths are remote):
        located(str): ``locate`` reached and selected this path.
    """

    located = Signal(str)
    tree_model: RemoteTreeModel

    def __init__(
        self,
        workspace: Workspace,
        parent: QWidget | None = None,
        *,
        limit: int = LISTING_LIMIT,
    ) -> None:
        super().__init__(
            lambda view: RemoteTreeModel(workspace, view, limit=limit),
            "Remote workspace files",
            parent,
        )
        self._target: str | None = None
        self.tree_model.folderListed.connect(self._continue_locate)
        root = self.tree_model.root_item
        if root is not None:
            self.expand(root.index())

    def locate(self, path: str) -> bool:
        """Open the folders down to ``path`` (listing them as needed), select it.

        False when ``path`` is not inside the workspace; otherwise the tree
        gets there as listings arrive and says so with ``located``.
        """
        root = self.tree_model.root
        if root is None:
            return False
        normal = posixpath.normpath(path)
        if normal != root and not normal.startswith(root.rstrip("/") + "/"):
            return False
        self._target = normal
        self._continue_locate("")
        return True

    @Slot(str)
    def _continue_locate(self, _listed: str) -> None:
        target = self._target
        root = self.tree_model.root
        if target is None or root is None:
            return
        relative = posixpath.relpath(target, root)
        parts = [] if relative == "." else relative.split("/")
        here = root
        item = self.tree_model.root_item
        for part in parts:
            if item is None:
                break
            self.expand(item.index())
            self.tree_model.list_folder(item)
            child = self.tree_model.listed_item(posixpath.join(here, part))
            if child is None:
                first = item.child(0)
                if first is not None and first.text() == LOADING:
                    return  # wait for this folder's listing
                while child is None and self.tree_model.has_more(here):
                    self.tree_model.list_more(item)
                    child = self.tree_model.listed_item(posixpath.join(here, part))
                if child is None:
                    self._target = None
                    return  # not there (any more)
            here, item = posixpath.join(here, part), child
        self._target = None
        if item is not None:
            index = item.index()
            self.setCurrentIndex(index)
            self.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
            self.located.emit(target)
