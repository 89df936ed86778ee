"""The read-only workspace: file tree on the left, document tabs on the right."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QSplitter, QStackedWidget, QVBoxLayout, QWidget

from app.core.filetype import Kind
from app.core.trust.display_names import display_name
from app.core.trust.paths import resolve_keep_leaf
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.records import FileEntry
from app.core.trust.revalidate import check_path, open_refusal
from app.core.trust.safeio import Identity, SafeOpenError, VerifiedFile
from app.ssh.errors import RemoteError
from app.ui import gui_thread
from app.ui.workspace.tabs import (
    MAX_TABS,
    DiskState,
    DocumentPageWidget,
    DocumentTabsWidget,
)
from app.ui.workspace.tree import FileTreeView
from app.ui.workspace.watcher import FileChangeWatcher
from previewers import registry
from previewers.context import ColorScheme, PreviewContext
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget

if TYPE_CHECKING:
    from app.ui.workspace.remote_tree import RemoteTreeView
    from app.workspace.protocol import Workspace
    from previewers.remote import RemotePreview


TREE_WIDTH = 210
"""The file tree's first width: names and sizes, the rest for the preview."""

# (key sequences, handler name): the standard document shortcuts.
_SHORTCUTS: tuple[tuple[tuple[str | QKeySequence.StandardKey, ...], str], ...] = (
    (("Ctrl+W",), "close_current"),
    (("Ctrl+Tab", "Ctrl+PgDown"), "next_tab"),
    (("Ctrl+Shift+Tab", "Ctrl+Backtab", "Ctrl+PgUp"), "previous_tab"),
    ((QKeySequence.StandardKey.Find,), "find_in_current"),
    ((QKeySequence.StandardKey.ZoomIn, "Ctrl+="), "zoom_in"),
    ((QKeySequence.StandardKey.ZoomOut,), "zoom_out"),
    (("Ctrl+0",), "zoom_reset"),
    (("F5", "Ctrl+R"), "reload_current"),
)


class WorkspaceWidget(QWidget):
    """The file tree and up to five document tabs; everything is read-only.

    Signals:
        notice(str): a plain-text message for the user (a refusal, a failure).
        quietNotice(str): a plain-text remark that needs no action (a tab
            closed to keep five open).
        previewOpened(str): a preview of this path was opened or shown.
        actionRequested(str, str, object): a file action (``open_native``,
            ``show_in_file_manager``, ``save_copy``, ``copy_path``), the host
            path, and the reference the file was opened with (or ``None``).
        fileMenuRequested(str, object, QPoint): the file actions' menu for
            this path of the tree shown, its remote ``Workspace`` (``None``:
            on this computer), at this global position.
        remoteActionRequested(str, object, str): a remote file action (by
            its id), the ``Workspace`` and the path, for a remote tab.
        focusToggled(bool): the user asked to focus the preview, or to stop.
        loaded(): the active preview finished loading (or failed to).
        webFilesListed(): the tree listed a page or an SVG.
    """

    notice = Signal(str)
    quietNotice = Signal(str)
    previewOpened = Signal(str)
    actionRequested = Signal(str, str, object)
    fileMenuRequested = Signal(str, object, QPoint)
    remoteActionRequested = Signal(str, object, str)
    focusToggled = Signal(bool)
    loaded = Signal()
    webFilesListed = Signal()

    def __init__(
        self,
        policy_provider: Callable[[], Policy],
        parent: QWidget | None = None,
        *,
        mode_provider: Callable[[], PermissionMode | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setAccessibleName("Workspace")
        self._policy_provider = policy_provider
        self._mode_provider = mode_provider
        self._root: Path | None = None
        self._external: dict[str, FileEntry] = {}
        self.tree = FileTreeView(policy_provider, self)
        self.tabs = DocumentTabsWidget(self)
        self.watcher = FileChangeWatcher(self)
        # The local tree, or a remote workspace's tree in its place.
        self.tree_pane = QStackedWidget(self)
        self.tree_pane.addWidget(self.tree)
        self.remote_tree: RemoteTreeView | None = None
        self._remote: Workspace | None = None
        self._remote_pending: dict[Future[RemotePreview], _RemoteOpening] = {}
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("workspaceSplitter")
        self.splitter.addWidget(self.tree_pane)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([TREE_WIDTH, 740])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self.tree.openRequested.connect(self._on_tree_open_requested)
        self.tree.tree_model.webFilesListed.connect(self.webFilesListed)
        self.tree.refused.connect(self.notice)
        self.tree.menuRequested.connect(
            lambda path, at: self.fileMenuRequested.emit(path, None, at)
        )
        self.tabs.pageReleased.connect(self._on_tabs_page_released)
        self.tabs.pageEvicted.connect(self._on_tabs_page_evicted)
        self.tabs.focusToggled.connect(self.focusToggled)
        self.tabs.menuActionRequested.connect(self._on_tabs_menu_action_requested)
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        self.watcher.pathChanged.connect(self._on_watcher_path_changed)
        for keys, handler in _SHORTCUTS:
            for key in keys:
                shortcut = QShortcut(QKeySequence(key), self)
                shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                shortcut.activated.connect(getattr(self, handler))

    # -- content -------------------------------------------------------------------

    def set_root(self, root: Path | None) -> None:
        self._root = root
        self.tree.set_root(root)
        self.set_remote(None)

    def set_external_entries(self, entries: Sequence[FileEntry]) -> None:
        self._external = {e.resolved: e for e in entries if e.scope == "external"}
        self.tree.set_external_entries(entries)

    def reveal(self, path: str) -> bool:
        """Show ``path`` in the tree; external files are under External files."""
        found = self.tree.reveal(path) or self.tree.reveal(resolve_keep_leaf(path))
        if not found:
            self.notice.emit(
                f"{display_name(PurePath(path).name)} is not in the file tree."
            )
        return found

    # -- opening -------------------------------------------------------------------

    def open_path(self, path: str, *, source_view: bool = False) -> bool:
        """Check the policy, open safely, show ``path``; False and a notice if not."""
        return self.open_path_or_reason(path, source_view=source_view) is None

    def open_path_or_reason(
        self, path: str, *, source_view: bool = False
    ) -> str | None:
        """``open_path``, answering why not (the notice's text), or ``None``."""
        reasons: list[str] = []

        def keep(text: str) -> None:
            reasons.append(text)

        self.notice.connect(keep)
        try:
            file = self._safe_open(resolve_keep_leaf(path))
            if file is not None and self.open_verified(
                resolve_keep_leaf(path), file, source_view=source_view
            ):
                return None
        finally:
            self.notice.disconnect(keep)
        return reasons[-1] if reasons else "it could not be shown"

    def set_focus_checked(self, focused: bool) -> None:
        """Show whether the preview has the whole window (the tab bar's button)."""
        self.tabs.set_focus_checked(focused)

    def open_verified(
        self,
        path: str,
        file: VerifiedFile,
        *,
        source_view: bool = False,
        ref: object | None = None,
        kind: Kind | None = None,
    ) -> bool:
        """Show an already checked, open file; the workspace now owns ``file``.

        ``kind`` is the kind the file's trusted record holds (``None`` for a
        file no record vouches for): the preview starts from it, not from a
        second guess from the name.
        """
        page = self.tabs.find_page(path, source_view)
        if page is not None:
            page.ref = ref if ref is not None else page.ref
            page.kind = kind if kind is not None else page.kind
        if page is not None and page.preview.source.identity == file.identity:
            file.close()
            self.tabs.activate(page)
            self._announce_if_loaded()
            self.previewOpened.emit(path)
            return True
        recorded = page.kind if page is not None else kind
        preview = self._create_preview(path, file, source_view, recorded)
        if preview is None:
            return False
        if page is not None:
            self.tabs.replace_preview(page, preview)
            self.tabs.activate(page)
        else:
            page = self.tabs.add_page(preview, ref)
            page.kind = kind
            page.reloadRequested.connect(self._on_page_reload_requested)
            self.watcher.watch(path)
        self._announce_if_loaded()
        self.previewOpened.emit(path)
        return True

    def preview_context(self) -> PreviewContext:
        """What previews shown here are told: this root, policy and scheme.

        Previews that read around their file (Markdown images, a page's
        stylesheets) stay within the root and ask the policy in force.
        """
        return PreviewContext(
            root=str(self._root) if self._root is not None else None,
            policy_provider=self._policy_provider,
            scheme=ColorScheme.of(self.palette()),
            source_text=registry.coloured_source,
        )

    def current_preview(self) -> PreviewWidget | None:
        page = self.tabs.current_page()
        return page.preview if page is not None else None

    def tab_count(self) -> int:
        return self.tabs.count()

    def is_loaded(self) -> bool:
        """Whether the active preview has finished loading (or failed to).

        With no tab open there is nothing to wait for, so the answer is yes.
        """
        preview = self.current_preview()
        return preview is None or preview.is_settled()

    def shutdown(self) -> None:
        """Close every tab and stop watching; call before the widget goes away."""
        for future in list(self._remote_pending):
            future.cancel()
        self._remote_pending.clear()
        self.watcher.stop()
        self.tabs.close_all()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    # -- shortcuts -----------------------------------------------------------------

    @Slot()
    def close_current(self) -> None:
        page = self.tabs.current_page()
        if page is not None:
            self.tabs.close_page(page)

    @Slot()
    def next_tab(self) -> None:
        self.tabs.step(1)

    @Slot()
    def previous_tab(self) -> None:
        self.tabs.step(-1)

    @Slot()
    def find_in_current(self) -> None:
        preview = self.current_preview()
        if preview is not None:
            preview.focus_find()

    @Slot()
    def zoom_in(self) -> None:
        if (preview := self.current_preview()) is not None:
            preview.zoom_in()

    @Slot()
    def zoom_out(self) -> None:
        if (preview := self.current_preview()) is not None:
            preview.zoom_out()

    @Slot()
    def zoom_reset(self) -> None:
        if (preview := self.current_preview()) is not None:
            preview.zoom_reset()

    @Slot()
    def reload_current(self) -> None:
        page = self.tabs.current_page()
        if page is not None:
            self._reload(page)

    # -- internals -----------------------------------------------------------------

    def _safe_open(self, path: str) -> VerifiedFile | None:
        # Files opened from the tree, the External files node included, pass
        # the same check as a card action: policy, mode, safe open.
        mode = self._mode_provider() if self._mode_provider is not None else None
        root = str(self._root) if self._root is not None else None
        check, file = check_path(path, self._policy_provider(), root=root, mode=mode)
        if file is None:
            self.notice.emit(open_refusal(path, check.reason))
        return file

    def _create_preview(
        self, path: str, file: VerifiedFile, source_view: bool, kind: Kind | None
    ) -> PreviewWidget | None:
        try:
            source = PreviewSource.from_file(
                path, file, kind=kind, source_view=source_view
            )
            previewer = registry.choose(source)
            preview = previewer.create(
                source, file, None, context=self.preview_context()
            )
        except Exception as error:  # a broken previewer must not take the app down
            file.close()
            self.notice.emit(
                f"Cannot preview {display_name(PurePath(path).name)}: {error}"
            )
            return None
        preview.loaded.connect(self._on_preview_settled)
        preview.failed.connect(self._on_preview_settled)
        preview.refused.connect(self._on_preview_settled)
        action_requested = getattr(preview, "actionRequested", None)
        if action_requested is not None:
            # A card for a file no family shows offers the file actions instead.
            action_requested.connect(self._on_fallback_action_requested)
        page_requested = getattr(preview, "pageRequested", None)
        if page_requested is not None:
            # A link to another local page: opened as any file is, checks and all.
            page_requested.connect(self.open_path)
        reload_requested = getattr(preview, "reloadRequested", None)
        if reload_requested is not None:
            # A paged preview that found the file changed offers its own Reload.
            reload_requested.connect(self._on_preview_reload_requested)
        return preview

    def _reload(self, page: DocumentPageWidget) -> None:
        if page.remote is not None:
            self._open_remote_on(
                page.remote, page.path, page.source_view, page.ref, page.kind
            )
            return
        file = self._safe_open(page.path)
        if file is None:
            return
        preview = self._create_preview(page.path, file, page.source_view, page.kind)
        if preview is not None:
            self.tabs.replace_preview(page, preview)
            self._announce_if_loaded()

    def _announce_if_loaded(self) -> None:
        if self.is_loaded():
            self.loaded.emit()

    def _page_of(self, preview: object) -> DocumentPageWidget | None:
        for page in self.tabs.pages():
            if page.preview is preview:
                return page
        return None

    def _disk_state(self, page: DocumentPageWidget) -> DiskState:
        if page.remote is not None:
            return DiskState.SAME  # never looked up on this computer
        try:
            status = os.lstat(page.path)
        except FileNotFoundError:
            return DiskState.DELETED
        except OSError:
            return DiskState.CHANGED
        fence = page.preview.source.identity
        return DiskState.SAME if Identity.of(status) == fence else DiskState.CHANGED

    def _on_preview_settled(self, *_reason: object) -> None:
        if self.current_preview() is self.sender():
            self.loaded.emit()

    @Slot(str)
    def _on_fallback_action_requested(self, action: str) -> None:
        page = self._page_of(self.sender())
        if page is not None and page.remote is not None:
            self._remote_page_action(action, page)
        elif page is not None:
            self.actionRequested.emit(action, page.path, page.ref)

    @Slot(str)
    def _on_tree_open_requested(self, path: str) -> None:
        self.open_path(path)

    @Slot(int)
    def _on_tabs_current_changed(self, _index: int) -> None:
        self._announce_if_loaded()
        page = self.tabs.current_page()
        if page is not None:
            # The tree follows the tab shown, as an editor's explorer does.
            self.tree.follow(page.path)

    @Slot(str)
    def _on_tabs_page_evicted(self, name: str) -> None:
        self.quietNotice.emit(
            f"Closed {display_name(name)} to keep {MAX_TABS} tabs open."
        )

    @Slot(str)
    def _on_tabs_page_released(self, path: str) -> None:
        self.watcher.unwatch(path)

    @Slot()
    def _on_preview_reload_requested(self) -> None:
        page = self._page_of(self.sender())
        if page is not None:
            self._reload(page)

    def _on_page_reload_requested(self) -> None:
        page = self.sender()
        if isinstance(page, DocumentPageWidget):
            self._reload(page)

    @Slot(str, object)
    def _on_tabs_menu_action_requested(self, action: str, page: object) -> None:
        if not isinstance(page, DocumentPageWidget):
            return
        if action == "reload":
            self._reload(page)
        elif action == "close":
            self.tabs.close_page(page)
        elif page.remote is not None:
            self._remote_page_action(action, page)
        elif action == "reveal":
            self.reveal(page.path)
        elif action == "close":
            self.tabs.close_page(page)
        else:
            self.actionRequested.emit(action, page.path, page.ref)

    @Slot(str)
    def _on_watcher_path_changed(self, path: str) -> None:
        for page in self.tabs.pages():
            if os.path.normpath(page.path) != path:
                continue
            state = self._disk_state(page)
            # A notice stays until Reload; a later "same" reading does not hide it.
            if state is not DiskState.SAME:
                page.set_disk_state(state)

    # -- remote ------------------------------------------------------------------

    def set_remote(self, workspace: Workspace | None) -> None:
        """Show ``workspace``'s tree in place of the local one (``None``: local)."""
        if workspace is self._remote and (workspace is None) == (
            self.remote_tree is None
        ):
            return
        if self.remote_tree is not None:
            self.tree_pane.removeWidget(self.remote_tree)
            self.remote_tree.deleteLater()
            self.remote_tree = None
        self._remote = workspace
        if workspace is None:
            self.tree_pane.setCurrentWidget(self.tree)
            return
        self._root = None
        self.tree.set_root(None)
        from app.ui.workspace.remote_tree import RemoteTreeView

        tree = RemoteTreeView(workspace, self.tree_pane)
        tree.openRequested.connect(self._on_remote_tree_open_requested)
        tree.refused.connect(self.notice)
        tree.menuRequested.connect(
            lambda path, at: self.fileMenuRequested.emit(path, workspace, at)
        )
        self.remote_tree = tree
        self.tree_pane.addWidget(tree)
        self.tree_pane.setCurrentWidget(tree)

    def remote_workspace(self) -> Workspace | None:
        return self._remote

    def open_remote(
        self,
        file: str | FileEntry,
        *,
        source_view: bool = False,
        ref: object | None = None,
        kind: Kind | None = None,
    ) -> Future[RemotePreview] | None:
        """Open the remote ``file`` in a tab once it is read; the window never waits.

        ``file`` is a path, or the entry a record holds (another version is
        refused as changed). A failure is a notice with the workspace's
        sentence. ``None`` when no remote workspace is shown.
        """
        if self._remote is None:
            return None
        return self._open_remote_on(self._remote, file, source_view, ref, kind)

    def open_remote_on(
        self,
        workspace: Workspace,
        file: str | FileEntry,
        *,
        source_view: bool = False,
        ref: object | None = None,
        kind: Kind | None = None,
    ) -> Future[RemotePreview]:
        """``open_remote`` on ``workspace`` (a card's), shown here or not."""
        return self._open_remote_on(workspace, file, source_view, ref, kind)

    def remote_loading(self) -> bool:
        """Whether a remote preview is still being read."""
        return bool(self._remote_pending)

    def _open_remote_on(
        self,
        workspace: Workspace,
        file: str | FileEntry,
        source_view: bool,
        ref: object | None,
        kind: Kind | None,
    ) -> Future[RemotePreview]:
        from previewers.remote import open_remote_preview

        mode = self._mode_provider() if self._mode_provider is not None else None
        future = open_remote_preview(
            workspace,
            file,
            self.preview_context(),
            kind=kind,
            source_view=source_view,
            mode=mode,
        )
        path = file if isinstance(file, str) else file.resolved
        self._remote_pending[future] = _RemoteOpening(
            workspace, path, source_view, ref, kind
        )
        gui_thread.when_done(self, future, self._on_remote_done)
        return future

    def _on_remote_done(self, future: Future[RemotePreview]) -> None:
        opening = self._remote_pending.pop(future, None)
        if opening is None:
            # Let go of what a preview nobody waits for any more had opened.
            if not future.cancelled() and future.exception() is None:
                future.result().close()
            return
        name = display_name(PurePath(opening.path).name)
        try:
            prepared = future.result()
        except CancelledError:
            return
        except RemoteError as error:
            self.notice.emit(f"Cannot open {name}: {error.message}")
            return
        except SafeOpenError as error:
            self.notice.emit(f"Cannot open {name}: {error}")
            return
        except Exception as error:  # a sentence, never a crash
            self.notice.emit(f"Cannot preview {name}: {error}")
            return
        try:
            preview = prepared.create()
        except Exception as error:  # a broken previewer must not take the app down
            prepared.close()
            self.notice.emit(f"Cannot preview {name}: {error}")
            return
        self._wire_preview(preview)
        page = self.tabs.find_page(opening.path, opening.source_view)
        if (
            page is not None
            and page.remote is not None
            and page.remote.address == opening.workspace.address
        ):
            self.tabs.replace_preview(page, preview)
            self.tabs.activate(page)
        else:
            page = self.tabs.add_page(preview, opening.ref)
            page.remote = opening.workspace
            page.reloadRequested.connect(self._on_page_reload_requested)
        page.kind = opening.kind if opening.kind is not None else page.kind
        if opening.ref is not None:
            page.ref = opening.ref
        self._announce_if_loaded()
        self.previewOpened.emit(opening.path)

    def _wire_preview(self, preview: PreviewWidget) -> None:
        preview.loaded.connect(self._on_preview_settled)
        preview.failed.connect(self._on_preview_settled)
        preview.refused.connect(self._on_preview_settled)
        reload_requested = getattr(preview, "reloadRequested", None)
        if reload_requested is not None:
            reload_requested.connect(self._on_preview_reload_requested)

    def _remote_page_action(self, action: str, page: DocumentPageWidget) -> None:
        # Nothing of a remote tab reaches this computer's apps or file manager.
        workspace = page.remote
        assert workspace is not None
        name = display_name(PurePath(page.path).name)
        if action == "save_local":
            self.remoteActionRequested.emit(action, workspace, page.path)
        elif action == "show_source":
            self._open_remote_on(workspace, page.path, True, page.ref, page.kind)
        elif action == "reveal":
            if self.remote_tree is not None and self._remote is workspace:
                self.remote_tree.locate(page.path)
            else:
                self.notice.emit(f"{name} is not in the file tree shown.")
        elif action == "copy_path":
            url = workspace.coordinates(page.path).url or page.path
            clipboard = QGuiApplication.clipboard()
            clipboard.setText(url)
            self.quietNotice.emit(f"Copied the remote coordinate {display_name(url)}.")
        else:
            self.notice.emit(
                f"{name} is on {workspace.host}: it is not opened by apps on "
                "this computer. Save it to a local file first."
            )

    @Slot(str)
    def _on_remote_tree_open_requested(self, path: str) -> None:
        self.open_remote(path)


class _RemoteOpening:
    """What a remote preview being read will be shown as."""

    def __init__(
        self,
        workspace: Workspace,
        path: str,
        source_view: bool,
        ref: object | None,
        kind: Kind | None,
    ) -> None:
        self.workspace = workspace
        self.path = path
        self.source_view = source_view
        self.ref = ref
        self.kind = kind
