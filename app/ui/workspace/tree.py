"""The read-only file tree: the workspace root, listed lazily, and External files."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple, Protocol

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPoint,
    QPointF,
    QRectF,
    QRunnable,
    Qt,
    QThreadPool,
    Signal,
    SignalInstance,
    Slot,
)
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QFont,
    QIcon,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QStandardItem,
    QStandardItemModel,
)
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QStyle, QTreeView, QWidget

from app.core.filetype import kind_from_name
from app.core.filetype.sizes import human_size
from app.core.trust.display_names import display_name
from app.core.trust.paths import is_within
from app.core.trust.policy import Policy
from app.core.trust.records import FileEntry
from app.ui.cards.icons import kind_file_icon, painted_icon
from app.ui.workspace.tree_rows import NameSizeDelegate
from previewers.registry import needs_web_engine
from previewers.widgets import plain_tooltip

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
NODE_ROLE = Qt.ItemDataRole.UserRole + 2
RULE_ROLE = Qt.ItemDataRole.UserRole + 3

BATCH = 1000
"""Rows added per step in a folder: a huge folder lists a batch, then "more".

Adding 1,000 rows takes the GUI thread about 70 ms."""
QUICK_ENTRIES = 512
"""A folder with fewer entries is listed at once, one with more on a worker."""


class Node(StrEnum):
    """What a row stands for."""

    FOLDER = "folder"
    FILE = "file"
    SYMLINK = "symlink"
    EXTERNAL = "external"  # the External files heading
    PLACEHOLDER = "placeholder"  # "Loading…" before a folder is listed, or an error
    MORE = "more"  # the rest of a huge folder


def refusal_for(item: QStandardItem) -> str | None:
    """Why this row cannot be opened, or ``None`` when it can be tried."""
    name = item.text()
    rule = item.data(RULE_ROLE)
    if rule:
        return f"Cannot open {name}: denied by read-deny rule {rule}."
    if item.data(NODE_ROLE) == Node.SYMLINK:
        return f"Cannot open {name}: it is a symbolic link, and links are not followed."
    return None


def activate_row(
    model: FileTreeModel,
    index: QModelIndex,
    open_file: SignalInstance,
    refuse: SignalInstance,
) -> None:
    """What activating a row does, in the local tree and the remote one alike.

    "Show more" lists the next batch; a file asks to be opened through
    ``open_file`` (a signal taking its path), unless it is locked or a link:
    then ``refuse`` gets the reason. Folders and headings do nothing here.
    """
    item = model.itemFromIndex(index)
    if item is None:
        return
    node = item.data(NODE_ROLE)
    if node == Node.MORE:
        parent = item.parent()
        if parent is not None:
            model.list_more(parent)
        return
    if node not in (Node.FILE, Node.SYMLINK):
        return
    reason = refusal_for(item)
    if reason is not None:
        refuse.emit(reason)
        return
    open_file.emit(item.data(PATH_ROLE))


def _draw_lock(painter: QPainter, colour: QColor) -> None:
    painter.setPen(QPen(colour, 1.6))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawArc(QRectF(4.5, 1.5, 7, 8), 0, 180 * 16)
    painter.drawLine(QPointF(4.5, 5.5), QPointF(4.5, 7.5))
    painter.drawLine(QPointF(11.5, 5.5), QPointF(11.5, 7.5))
    painter.setBrush(colour)
    painter.drawRoundedRect(QRectF(3, 7.5, 10, 7), 1.5, 1.5)


def _draw_link(painter: QPainter, colour: QColor) -> None:
    painter.setPen(QPen(colour, 1.6))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    path = QPainterPath(QPointF(3, 3))
    path.lineTo(3, 9)
    path.quadTo(3, 12, 6, 12)
    path.lineTo(12, 12)
    painter.drawPath(path)
    painter.drawLine(QPointF(9.5, 9), QPointF(12.5, 12))
    painter.drawLine(QPointF(9.5, 15), QPointF(12.5, 12))


class ListedEntry(NamedTuple):
    """What a row shows of one folder entry, found off the GUI thread."""

    name: str
    path: str
    node: Node
    size: int | None
    rule: str | None
    """The read-deny rule that locks it, described; ``None`` if readable."""
    link_target: str | None
    """Where a symbolic link points (shown, never followed)."""


def listed_entries(
    folder: str, entries: Iterable[os.DirEntry[str]], policy: Policy
) -> list[ListedEntry]:
    """The rows' facts for ``entries`` of ``folder``, folders first, then by name.

    Metadata only, of each entry itself (a link is never followed), and no
    Qt: safe on any thread. ``OSError`` if the folder cannot be read on.
    """
    denying = policy.in_folder(folder)
    listed = []
    for entry in entries:
        size: int | None = None
        try:
            if entry.is_symlink():
                node = Node.SYMLINK
            elif entry.is_dir(follow_symlinks=False):
                node = Node.FOLDER
            else:
                node = Node.FILE
                size = entry.stat(follow_symlinks=False).st_size
        except OSError:
            node = Node.FILE
        rule = denying(entry.name)
        target = None
        if node is Node.SYMLINK and rule is None:
            try:
                target = os.readlink(entry.path)
            except OSError:
                target = "(unreadable)"
        described = rule.describe() if rule is not None else None
        listed.append(
            ListedEntry(entry.name, entry.path, node, size, described, target)
        )
    listed.sort(key=row_order)
    return listed


def row_order(row: ListedEntry) -> tuple[bool, str, str]:
    """How a folder's rows are sorted: folders first, then by name."""
    return (row.node is not Node.FOLDER, row.name.casefold(), row.name)


class _ListRelay(QObject):
    listed = Signal(int, str, object, object)  # generation, folder, entries, error


class _Listing(Iterator[os.DirEntry[str]], Protocol):
    def close(self) -> None: ...


class _ListJob(QRunnable):
    """Reads the rest of a big folder's listing and finds its rows' facts."""

    def __init__(
        self,
        relay: _ListRelay,
        generation: int,
        folder: str,
        head: list[os.DirEntry[str]],
        listing: _Listing,
        policy: Policy,
    ) -> None:
        super().__init__()
        self._relay = relay
        self._args = (generation, folder, head, listing, policy)

    def run(self) -> None:
        generation, folder, head, listing, policy = self._args
        entries: list[ListedEntry] = []
        error: str | None = None
        try:
            entries = listed_entries(folder, itertools.chain(head, listing), policy)
        except OSError as failure:
            error = failure.strerror or str(failure)
        finally:
            listing.close()
        self._relay.listed.emit(generation, folder, entries, error)


class FileTreeModel(QStandardItemModel):
    """Rows for the root folder (listed on expand) and the External files node.

    Signals:
        webFilesListed(): a listing showed a page or an SVG (the web engine
            can then be started before one is opened).
    """

    webFilesListed = Signal()

    def __init__(
        self, policy_provider: Callable[[], Policy], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._policy_provider = policy_provider
        self._root: str | None = None
        self._root_item: QStandardItem | None = None
        self._external_item: QStandardItem | None = None
        self._pending: dict[str, list[ListedEntry]] = {}
        # Big folders being listed on a worker, and the rows waiting for them.
        self._generation = 0
        self._waiting: dict[str, QStandardItem] = {}
        self._list_relay = _ListRelay(self)
        self._list_relay.listed.connect(
            self._on_folder_listed, Qt.ConnectionType.QueuedConnection
        )
        palette = QPalette()
        self._dim = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        self._muted = palette.color(QPalette.ColorRole.PlaceholderText)
        self._icons: dict[Node | str, QIcon] = {}
        self.setColumnCount(2)

    # -- icons are made on first use: a style needs a running application ------

    def _icon(self, key: Node | str) -> QIcon:
        if key not in self._icons:
            from PySide6.QtWidgets import QApplication

            style = QApplication.style()
            text = QPalette().color(QPalette.ColorRole.Text)
            self._icons[key] = {
                Node.FOLDER: lambda: style.standardIcon(
                    QStyle.StandardPixmap.SP_DirIcon
                ),
                Node.FILE: lambda: style.standardIcon(
                    QStyle.StandardPixmap.SP_FileIcon
                ),
                Node.SYMLINK: lambda: painted_icon(_draw_link, text),
                Node.EXTERNAL: lambda: style.standardIcon(
                    QStyle.StandardPixmap.SP_DriveNetIcon
                ),
                "lock": lambda: painted_icon(_draw_lock, self._dim),
            }[key]()
        return self._icons[key]

    @property
    def root(self) -> str | None:
        return self._root

    @property
    def root_item(self) -> QStandardItem | None:
        return self._root_item

    @property
    def external_item(self) -> QStandardItem | None:
        return self._external_item

    def set_root(self, root: Path | None) -> None:
        if self._root_item is not None:
            self.removeRow(self._root_item.row())
            self._root_item = None
        self._pending.clear()
        self._generation += 1  # listings still running are for the old rows
        self._waiting.clear()
        self._root = os.path.realpath(root) if root is not None else None
        if self._root is None:
            return
        item = QStandardItem(display_name(os.path.basename(self._root) or self._root))
        item.setEditable(False)
        item.setDragEnabled(False)
        item.setData(self._root, PATH_ROLE)
        item.setData(Node.FOLDER, NODE_ROLE)
        item.setIcon(self._icon(Node.FOLDER))
        item.setToolTip(plain_tooltip(self._root))
        item.appendRow(self._placeholder("Loading…"))
        self._root_item = item
        self.insertRow(0, item)

    def set_external_entries(self, entries: Sequence[FileEntry]) -> None:
        if self._external_item is not None:
            self.removeRow(self._external_item.row())
            self._external_item = None
        files = [entry for entry in entries if entry.scope == "external"]
        if not files:
            return
        heading = QStandardItem("External files")
        heading.setEditable(False)
        heading.setSelectable(False)
        heading.setData(Node.EXTERNAL, NODE_ROLE)
        heading.setIcon(self._icon(Node.EXTERNAL))
        heading.setToolTip(
            plain_tooltip("Files presented from outside the workspace (temporary)")
        )
        font = QFont(heading.font())
        font.setBold(True)
        heading.setFont(font)
        policy = self._policy_provider()
        seen: set[str] = set()
        for entry in files:
            if entry.resolved in seen:
                continue
            seen.add(entry.resolved)
            # Only the file: its folder is never listed.
            rule = policy.denying_rule(entry.resolved)
            described = rule.describe() if rule is not None else None
            listed = ListedEntry(
                entry.name, entry.resolved, Node.FILE, entry.size, described, None
            )
            heading.appendRow([self._file_item(listed), self._size_item(entry.size)])
        self._external_item = heading
        self.appendRow(heading)

    def list_folder(self, item: QStandardItem, *, wait: bool = False) -> None:
        """List a folder's children the first time it is expanded.

        A folder of fewer than ``QUICK_ENTRIES`` entries is listed at once. A
        bigger one keeps its "Loading…" row while a worker reads the rest and
        finds each entry's facts (100,000 entries take about half a second);
        its rows come when that is done. ``wait`` lists it here even so (to
        find a row in it now).
        """
        if item.data(NODE_ROLE) != Node.FOLDER:
            return
        first = item.child(0)
        if first is None or first.data(NODE_ROLE) != Node.PLACEHOLDER:
            return
        if first.text() != "Loading…":
            return  # an earlier error stays shown
        path = item.data(PATH_ROLE)
        if path in self._waiting and not wait:
            return
        self._waiting.pop(path, None)  # a listing still running is dropped
        policy = self._policy_provider()
        try:
            listing = os.scandir(path)
        except OSError as error:
            self._show_listing(item, path, [], error.strerror or str(error))
            return
        try:
            head = list(itertools.islice(listing, None if wait else QUICK_ENTRIES))
        except OSError as error:
            listing.close()
            self._show_listing(item, path, [], error.strerror or str(error))
            return
        if wait or len(head) < QUICK_ENTRIES:
            listing.close()
            self._show_listing(item, path, listed_entries(path, head, policy), None)
            return
        self._waiting[path] = item
        job = _ListJob(self._list_relay, self._generation, path, head, listing, policy)
        QThreadPool.globalInstance().start(job)

    def listing_in_progress(self) -> bool:
        """Whether a big folder's listing is still running on a worker."""
        return bool(self._waiting)

    @Slot(int, str, object, object)
    def _on_folder_listed(
        self, generation: int, path: str, entries: list[ListedEntry], error: str | None
    ) -> None:
        if generation != self._generation:
            return  # the tree has another root now
        item = self._waiting.pop(path, None)
        if item is not None:
            self._show_listing(item, path, entries, error)

    def _show_listing(
        self,
        item: QStandardItem,
        path: str,
        entries: list[ListedEntry],
        error: str | None,
    ) -> None:
        item.removeRows(0, item.rowCount())
        if error is not None:
            item.appendRow(self._placeholder(f"Cannot list this folder: {error}"))
            return
        self._pending[path] = entries
        self.list_more(item)

    def list_more(self, item: QStandardItem) -> None:
        """Add the next batch of a listed folder's entries."""
        path = item.data(PATH_ROLE)
        entries = self._pending.get(path, [])
        last = item.child(item.rowCount() - 1) if item.rowCount() else None
        if last is not None and last.data(NODE_ROLE) == Node.MORE:
            item.removeRow(last.row())
        batch, rest = entries[:BATCH], entries[BATCH:]
        policy = self._policy_provider()
        for entry in batch:
            item.appendRow(self._entry_row(entry, policy))
        if any(needs_web_engine("", entry.name) for entry in batch):
            self.webFilesListed.emit()
        if rest:
            self._pending[path] = rest
            more = QStandardItem(f"Show {len(rest):,} more…")
            more.setEditable(False)
            more.setData(Node.MORE, NODE_ROLE)
            more.setData(path, PATH_ROLE)
            more.setForeground(self._dim)
            item.appendRow(more)
        else:
            self._pending.pop(path, None)

    def find_item(self, path: str) -> QStandardItem | None:
        """The row for ``path`` (listing folders on the way), or ``None``."""
        if self._external_item is not None:
            for row in range(self._external_item.rowCount()):
                child = self._external_item.child(row)
                if child.data(PATH_ROLE) == path:
                    return child
        if self._root is None or self._root_item is None:
            return None
        path = os.path.normpath(path)
        if path == self._root:
            return self._root_item
        if not is_within(path, self._root):
            return None
        relative = os.path.relpath(path, self._root)
        item = self._root_item
        for part in Path(relative).parts:
            self.list_folder(item, wait=True)
            found = self._child_named(item, part)
            while found is None and self._pending.get(item.data(PATH_ROLE)):
                self.list_more(item)
                found = self._child_named(item, part)
            if found is None:
                return None
            item = found
        return item

    @staticmethod
    def _child_named(item: QStandardItem, name: str) -> QStandardItem | None:
        for row in range(item.rowCount()):
            child = item.child(row)
            if child.data(NODE_ROLE) in (Node.FOLDER, Node.FILE, Node.SYMLINK) and (
                os.path.basename(child.data(PATH_ROLE)) == name
            ):
                return child
        return None

    def _placeholder(self, text: str) -> QStandardItem:
        item = QStandardItem(text)
        item.setEditable(False)
        item.setSelectable(False)
        item.setData(Node.PLACEHOLDER, NODE_ROLE)
        item.setForeground(self._dim)
        item.setToolTip(plain_tooltip(text))  # whole, where the row cuts it
        return item

    def _entry_row(self, entry: ListedEntry, policy: Policy) -> list[QStandardItem]:
        item = self._file_item(entry)
        if entry.node is Node.FOLDER and entry.rule is None:
            item.appendRow(self._placeholder("Loading…"))
        return [item, self._size_item(entry.size)]

    def _size_item(self, size: int | None) -> QStandardItem:
        item = QStandardItem("" if size is None else human_size(size))
        item.setEditable(False)
        item.setSelectable(True)
        item.setDragEnabled(False)
        item.setForeground(self._muted)
        item.setTextAlignment(
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        )
        return item

    def _file_item(self, entry: ListedEntry) -> QStandardItem:
        name, path, node = entry.name, entry.path, entry.node
        item = QStandardItem(display_name(name))
        item.setEditable(False)
        item.setDragEnabled(False)
        item.setData(path, PATH_ROLE)
        item.setData(node, NODE_ROLE)
        if node is Node.FILE:
            item.setIcon(kind_file_icon(kind_from_name(name)))
        else:
            item.setIcon(self._icon(node))
        tip = path
        if entry.rule is not None:
            item.setData(entry.rule, RULE_ROLE)
            item.setIcon(self._icon("lock"))
            item.setForeground(self._dim)
            tip += f"\nLocked: denied by read-deny rule {entry.rule}"
        elif node is Node.SYMLINK and entry.link_target is None:
            tip += "\nSymbolic link (never followed)"
        elif node is Node.SYMLINK:
            tip += f"\nSymbolic link to {entry.link_target} (never followed)"
        if name.startswith("."):
            item.setForeground(self._dim)
        item.setToolTip(plain_tooltip(tip))
        return item


class ListingTreeView(QTreeView):
    """A read-only file tree: a folder is listed when expanded, a row opens a file.

    ``tree_model`` is the model it shows (its own, parented to the view).

    Signals:
        openRequested(str): a file row was activated and may be opened.
        refused(str): a locked or link row was activated; the reason.
        menuRequested(str, QPoint): the file actions' menu was asked for on
            this file row, at this global position.
    """

    openRequested = Signal(str)
    refused = Signal(str)
    menuRequested = Signal(str, QPoint)

    def __init__(
        self,
        make_model: Callable[[QTreeView], FileTreeModel],
        name: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.tree_model = make_model(self)
        self.setModel(self.tree_model)
        self.setHeaderHidden(True)
        # Names take the width; a row draws its size only where the whole
        # name leaves room (the size column stays in the model, not shown).
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.setColumnHidden(1, True)
        self.setItemDelegateForColumn(0, NameSizeDelegate(self))
        self.setUniformRowHeights(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setDragDropMode(QAbstractItemView.DragDropMode.NoDragDrop)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAccessibleName(name)
        self.expanded.connect(self._on_self_expanded)
        self.activated.connect(self._on_self_activated)

    def selected_path(self) -> str | None:
        index = self.currentIndex()
        return index.data(PATH_ROLE) if index.isValid() else None

    @Slot(QModelIndex)
    def _on_self_expanded(self, index: QModelIndex) -> None:
        item = self.tree_model.itemFromIndex(index)
        if item is not None:
            self.tree_model.list_folder(item)

    @Slot(QModelIndex)
    def _on_self_activated(self, index: QModelIndex) -> None:
        activate_row(self.tree_model, index, self.openRequested, self.refused)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        # From the keyboard (the Menu key, Shift+F10) the menu is the current
        # row's, shown at that row; from the mouse, the row under the pointer's
        # (the event comes from the viewport, in its coordinates).
        if event.reason() == QContextMenuEvent.Reason.Keyboard:
            index = self.currentIndex().siblingAtColumn(0)
            position = self.visualRect(index).center()
        else:
            position = event.pos()
            index = self.indexAt(position).siblingAtColumn(0)
        item = self.tree_model.itemFromIndex(index) if index.isValid() else None
        if item is None or item.data(NODE_ROLE) not in (Node.FILE, Node.SYMLINK):
            return
        event.accept()
        self.setCurrentIndex(index)
        global_position = self.viewport().mapToGlobal(position)
        self.menuRequested.emit(str(item.data(PATH_ROLE)), global_position)


class FileTreeView(ListingTreeView):
    """The local tree widget: read-only, lazy, opens files on activation.

    Signals: those of ``ListingTreeView``.
    """

    def __init__(
        self, policy_provider: Callable[[], Policy], parent: QWidget | None = None
    ) -> None:
        super().__init__(
            lambda view: FileTreeModel(policy_provider, view),
            "Workspace files",
            parent,
        )
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)

    def set_root(self, root: Path | None) -> None:
        self.tree_model.set_root(root)
        item = self.tree_model.root_item
        if item is not None:
            self.expand(item.index())

    def set_external_entries(self, entries: Sequence[FileEntry]) -> None:
        self.tree_model.set_external_entries(entries)
        item = self.tree_model.external_item
        if item is not None:
            self.expand(item.index())

    def reveal(self, path: str) -> bool:
        """Expand to ``path``, select it and scroll to it; False if not in the tree."""
        item = self.tree_model.find_item(path)
        if item is None:
            return False
        self._select(item.index(), QAbstractItemView.ScrollHint.PositionAtCenter)
        return True

    def follow(self, path: str) -> None:
        """Select ``path`` quietly if the tree holds it (the tab shown changed)."""
        item = self.tree_model.find_item(path)
        if item is None or self.currentIndex() == item.index():
            return
        self._select(item.index(), QAbstractItemView.ScrollHint.EnsureVisible)

    def _select(self, index: QModelIndex, hint: QAbstractItemView.ScrollHint) -> None:
        parent = index.parent()
        while parent.isValid():
            self.expand(parent)
            parent = parent.parent()
        self.setCurrentIndex(index)
        self.scrollTo(index, hint)
