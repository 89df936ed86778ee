"""Card actions: revalidate the file at that moment, then act or say exactly why not."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from app.core.changes.index import ChangeRef, check_change
from app.core.filetype import TEXT_KINDS, Kind, is_svg, kind_from_name
from app.core.imported.verify import check_imported
from app.core.store import Store
from app.core.store.deliverables import DeliverableRef, check_deliverable, look_up
from app.core.store.import_store import ImportStore
from app.core.store.imported_files import ImportedFileRef
from app.core.trust.display_names import display_name
from app.core.trust.paths import resolve_keep_leaf
from app.core.trust.policy import PermissionMode, Policy, current_policy
from app.core.trust.records import FileEntry, UnsupportedRecord
from app.core.trust.revalidate import Check, Verdict, check_path, peek
from app.core.trust.safeio import VerifiedFile
from app.ssh.address import is_remote_address
from app.ui import gui_thread
from app.ui.cards.action_spec import (
    HERE,
    HOST,
    NATIVE,
    ActionSpec,
    capabilities,
    offered,
)
from app.ui.cards.save_copy import SaveCopier
from app.ui.cards.system_open import SystemOpener
from app.workspace.choose import local_workspace
from app.workspace.protocol import Native, Workspace
from previewers.widgets import plain_tooltip

if TYPE_CHECKING:
    from app.ui.cards.remote_actions import RemoteCardActions


ACTIONS = offered(frozenset({HERE, NATIVE}))
"""The actions of a file on this computer, where the desktop can take it."""
_SPECS = {spec.id: spec for spec in ACTIONS}
DRAG_OUT = ActionSpec("drag_out", "Drag out", "drag {name} out", needs_fd=True)
DRAG_COPY_LIMIT = 64 * 1024 * 1024
"""A drag needs its file at once; larger ones go through Save a copy."""
NOT_HERE = "its files are not on this computer"


def offers_browser(name: str, kind: Kind) -> bool:
    """Files the built-in browser can show: pages, SVG and images.

    Offered by the record's kind before the file is opened; the browser then
    decides by the bytes and refuses what is neither.
    """
    return kind in (Kind.HTML, Kind.IMAGE) or is_svg(name)


def offers_source(name: str, kind: Kind) -> bool:
    """Files with a text source worth showing: markup, data, code, SVG."""
    return kind in TEXT_KINDS or is_svg(name)


# Copies up to this size are made at once; larger ones on a worker thread.
INLINE_COPY_LIMIT = 8 * 1024 * 1024


def workspace_at(address: str) -> Workspace | None:
    """The workspace a local card or tree file belongs to; ``None`` for a host's.

    The window knows the connected hosts and passes its own look-up instead.
    """
    return None if is_remote_address(address) else local_workspace(address)


class FileActions(QObject):
    """Carries out card and file actions, each after a fresh revalidation.

    Nothing learnt by one action is reused by the next: every action reads the
    record again, loads the current policy and opens the file again.

    Signals:
        refused(str): an action was refused; the exact plain-text reason.
        verdictChanged(object, str): a check of this DeliverableRef gave this
            verdict (for the card's badge).
        openRequested(str, object, bool, object, object): open this path from
            this VerifiedFile (the receiver owns and closes it), as source or
            not, for this DeliverableRef and with the Kind its record holds
            (both ``None`` for a plain path).
        browserRequested(str, object, object, object): show this path from
            this VerifiedFile (the receiver owns and closes it) in the built-in
            browser, for this DeliverableRef, with its record's Kind (both
            ``None`` for a plain path).
        revealRequested(str): select this path in the file tree.
        notice(str): a short plain-text confirmation, such as "Path copied".
        acted(str): an action passed its checks and was carried out (its id);
            an earlier refusal is stale now.
    """

    acted = Signal(str)
    refused = Signal(str)
    verdictChanged = Signal(object, str)
    openRequested = Signal(str, object, bool, object, object)
    browserRequested = Signal(str, object, object, object)
    revealRequested = Signal(str)
    notice = Signal(str)

    def __init__(
        self,
        store: Store,
        policy_provider: Callable[[str], Policy],
        mode_provider: Callable[[], PermissionMode | None],
        system: SystemOpener | None = None,
        parent: QObject | None = None,
        *,
        saver: SaveCopier | None = None,
        workspaces: Callable[[str], Workspace | None] = workspace_at,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._workspaces = workspaces
        self._policy_provider = policy_provider
        self._mode_provider = mode_provider
        self._system = system if system is not None else SystemOpener(parent=self)
        self._system.failed.connect(self._on_system_failed)
        self._saver = saver if saver is not None else SaveCopier(parent=self)
        self._saver.saved.connect(self._on_saver_saved)
        self._saver.failed.connect(self._on_saver_failed)
        self._saver.cancelled.connect(self._on_saver_cancelled)
        self._dialog_parent: QWidget | None = None
        self._copies: set[Future[Path]] = set()
        self._remote: RemoteCardActions | None = None

    def set_dialog_parent(self, widget: QWidget | None) -> None:
        """The window that save dialogs and progress belong to."""
        self._dialog_parent = widget

    # -- menu ---------------------------------------------------------------

    def menu_for(self, ref: DeliverableRef, parent: QWidget) -> QMenu:
        """The card's menu; a record that can't be used gets one disabled line."""
        menu = QMenu(parent)
        menu.setAccessibleName("File actions")
        menu.setToolTipsVisible(True)
        lookup = look_up(self._store, ref)
        if isinstance(lookup.record, UnsupportedRecord):
            self._add_note(menu, "Unsupported record version: no file actions")
            return menu
        if lookup.entry is None:
            self._add_note(menu, "No record of this file in this conversation")
            return menu
        if not lookup.trusted:
            self._add_note(menu, "Untrusted record: no file actions")
            return menu
        entry = lookup.entry
        if entry.remote is not None:
            self._fill_remote_menu(menu, ref, entry)
            return menu
        native = self._native_of(self._workspace_of(ref.conversation_id))
        self._fill_menu(
            menu,
            entry.name,
            entry.kind_enum,
            lambda action: self.perform(action, ref),
            native=native is not None,
        )
        self._disable_what_cannot_work(menu, ref, entry, lookup.trusted, native)
        return menu

    def _disable_what_cannot_work(
        self,
        menu: QMenu,
        ref: DeliverableRef,
        entry: FileEntry,
        trusted: bool,
        native: Native | None,
    ) -> None:
        """Grey out actions the file's state refuses now, the reason as tooltip.

        Judged from metadata (``peek``), as the badge is; each action still
        runs its full check when chosen.
        """
        check = peek(
            entry,
            self._policy_of(ref.conversation_id),
            trusted=trusted,
            mode=self._mode_provider(),
        )
        self.verdictChanged.emit(ref, check.verdict.value)
        runs = None
        if check.allowed and native is not None:
            runs = native.refusal_by_name(entry.name, entry.resolved)
        for action in menu.actions():
            spec = _SPECS.get(str(action.data()))
            if spec is None:
                continue
            reason = None if check.allowed else check.reason
            if reason is None and spec.id == "open_native":
                reason = runs
            if reason is not None:
                action.setEnabled(False)
                refusal = spec.refusal.format(name=entry.display_name)
                action.setToolTip(plain_tooltip(f"Can't {refusal}: {reason}"))
        menu.setToolTipsVisible(True)
        if not check.allowed:
            note = QAction(f"{entry.display_name}: {check.reason}", menu)
            note.setObjectName("action_none")
            note.setEnabled(False)
            items = menu.actions()
            if items:
                menu.insertAction(items[0], note)
                menu.insertSeparator(items[0])
            else:
                menu.addAction(note)

    def menu_for_file(
        self, path: str, workspace: Workspace | None, parent: QWidget
    ) -> QMenu:
        """The menu for a file of a tree or a tab, in whichever workspace shows it.

        What the workspace can do decides the actions, not where it is: a
        host's files get actions carried out over SSH. ``None``: no folder is
        open, so only the built-in and user rules apply.
        """
        if workspace is not None and HOST in capabilities(workspace):
            if self._remote is None:
                menu = QMenu(parent)
                self._add_note(menu, "A remote file: open its workspace to act on it")
                return menu
            return self._remote.menu_for_path(workspace, path, parent)
        root = None if workspace is None else workspace.root
        return self.menu_for_path(path, root, parent)

    def menu_for_path(self, path: str, workspace: str | None, parent: QWidget) -> QMenu:
        """The same menu for a file chosen in the tree or shown by the fallback."""
        menu = QMenu(parent)
        menu.setAccessibleName("File actions")
        menu.setToolTipsVisible(True)
        name = os.path.basename(path)
        self._fill_menu(
            menu,
            name,
            kind_from_name(name),
            lambda action: self.perform_path(action, path, workspace),
            native=self._native_of(workspace or os.path.dirname(path)) is not None,
        )
        return menu

    @staticmethod
    def _fill_menu(
        menu: QMenu,
        name: str,
        kind: Kind,
        run: Callable[[str], object],
        *,
        native: bool,
    ) -> None:
        able = frozenset({HERE, NATIVE} if native else {HERE})
        for spec in offered(able):
            if spec.id == "show_source" and not offers_source(name, kind):
                continue
            if spec.id == "open_browser" and not offers_browser(name, kind):
                continue
            action = QAction(spec.label, menu)
            action.setData(spec.id)
            action.setObjectName(f"action_{spec.id}")
            action.triggered.connect(
                lambda _checked=False, action_id=spec.id: run(action_id)
            )
            menu.addAction(action)

    @staticmethod
    def _add_note(menu: QMenu, text: str) -> None:
        note = menu.addAction(text)
        note.setObjectName("action_none")
        note.setEnabled(False)

    # -- actions on deliverables ---------------------------------------------

    def perform(self, action: str, ref: DeliverableRef) -> bool:
        """Revalidate ``ref`` now and carry out ``action``; ``False`` if refused."""
        spec = _SPECS.get(action)
        if spec is None:
            raise ValueError(f"unknown file action {action!r}")
        if action == "open" and self._open_remote(ref):
            return True
        check, entry, opened = self._check_card(ref, keep_open=spec.needs_fd)
        name = "this file" if entry is None else entry.display_name
        if not check.allowed or entry is None:
            self._refuse(spec, name, check.reason)
            return False
        native = self._native_of(self._workspace_of(ref.conversation_id))
        return self._act(
            spec, entry.resolved, name, check, opened, ref, entry.kind_enum, native
        )

    def drag_copy(self, ref: DeliverableRef) -> Path | None:
        """A private copy of ``ref``'s file to hand a drag, or ``None`` (refused).

        Checked again at the moment the drag starts, like every action, and
        refused for what could run, as opening with another app is: the
        desktop gets a copy made from the verified descriptor, never the path
        the agent can write to.
        """
        check, entry, opened = self._check_card(ref, keep_open=True)
        name = "this file" if entry is None else entry.display_name
        if not check.allowed or entry is None or opened is None:
            self._refuse(DRAG_OUT, name, check.reason)
            return None
        native = self._native_of(self._workspace_of(ref.conversation_id))
        with opened:
            if native is None:
                self._refuse(DRAG_OUT, name, NOT_HERE)
                return None
            refusal = native.refusal(entry.name, opened)
            if refusal is None and opened.identity.size > DRAG_COPY_LIMIT:
                refusal = (
                    "it is larger than 64 MiB; use Save a copy… to put it elsewhere"
                )
            if refusal is not None:
                self._refuse(DRAG_OUT, name, refusal)
                return None
            try:
                copy = native.private_copy(entry.name, opened, limit=0o644)
            except OSError as error:
                self._refuse(DRAG_OUT, name, f"no private copy could be made: {error}")
                return None
        self.acted.emit(DRAG_OUT.id)
        return copy

    # -- actions on the per-turn change index --------------------------------

    def open_change(self, ref: ChangeRef) -> bool:
        """Open a file of a turn's "Changed files", revalidated as a card is."""
        check, found, opened = check_change(
            self._store,
            ref,
            self._policy_of(ref.conversation_id),
            mode=self._mode_provider(),
            keep_open=True,
        )
        name = "this file" if found is None else display_name(found.path)
        return self._open_checked(
            name,
            check,
            opened,
            None if found is None else (found.resolved, kind_from_name(found.resolved)),
            f"{name} changed after the turn; it opens as it is now",
        )

    def open_imported(self, ref: ImportedFileRef) -> bool:
        """Open an imported session's file: only through its verified record."""
        check, entry, opened = check_imported(
            self._store,
            ref,
            self._policy_of(ref.conversation_id),
            mode=self._mode_provider(),
            keep_open=True,
        )
        name = "this file" if entry is None else entry.display_name
        if entry is None:
            # What the transcript named, only to say which file was refused.
            claimed = ImportStore(self._store).file(ref.conversation_id, ref.entry_id)
            if claimed is not None:
                name = display_name(os.path.basename(claimed.path) or claimed.path)
        return self._open_checked(
            name,
            check,
            opened,
            None if entry is None else (entry.resolved, entry.kind_enum),
            f"{name} changed since it was verified",
        )

    def _check_card(
        self, ref: DeliverableRef, *, keep_open: bool
    ) -> tuple[Check, FileEntry | None, VerifiedFile | None]:
        """Check a card's file again now, under its conversation's policy.

        The card's badge follows the verdict.
        """
        check, entry, opened = check_deliverable(
            self._store,
            ref,
            self._policy_of(ref.conversation_id),
            mode=self._mode_provider(),
            keep_open=keep_open,
        )
        self.verdictChanged.emit(ref, check.verdict.value)
        return check, entry, opened

    def _workspace_of(self, conversation_id: str) -> str:
        try:
            return self._store.conversation(conversation_id).workspace
        except KeyError:
            return ""

    def _native_of(self, address: str) -> Native | None:
        """What the workspace at ``address`` can hand the desktop; ``None``: nothing."""
        workspace = self._workspaces(address)
        return None if workspace is None else workspace.native

    def _policy_of(self, conversation_id: str) -> Policy:
        """The policy a conversation's files are checked under: its workspace's."""
        return self._policy_provider(self._workspace_of(conversation_id))

    def _open_checked(
        self,
        name: str,
        check: Check,
        opened: VerifiedFile | None,
        target: tuple[str, Kind] | None,
        changed: str,
    ) -> bool:
        """Open what a change or an imported entry's check allowed, or say why not."""
        spec = _SPECS["open"]
        if not check.allowed or target is None or opened is None:
            if opened is not None:
                opened.close()
            self._refuse(spec, name, check.reason)
            return False
        if check.verdict is Verdict.CHANGED:
            self.notice.emit(changed)
        resolved, kind = target
        return self._act(spec, resolved, name, check, opened, None, kind)

    # -- remote cards ----------------------------------------------------------

    def set_remote(self, remote: RemoteCardActions | None) -> None:
        """Who carries out remote cards' actions (over SSH); ``None``: no one."""
        self._remote = remote

    def _fill_remote_menu(
        self, menu: QMenu, ref: DeliverableRef, entry: FileEntry
    ) -> None:
        # No local action is offered: each would hand the remote path to
        # this computer. The remote ones revalidate over SSH when chosen.
        if self._remote is None:
            self._add_note(menu, "A remote file: open its workspace to act on it")
            return
        self._remote.fill_menu(menu, ref, entry)

    def _open_remote(self, ref: DeliverableRef) -> bool:
        """Open a remote card (double-click) through the remote actions."""
        if self._remote is None:
            return False
        lookup = look_up(self._store, ref)
        if lookup.entry is None or lookup.entry.remote is None:
            return False
        self._remote.perform("open", ref)
        return True

    # -- actions on plain paths ----------------------------------------------

    def perform_path(self, action: str, path: str, workspace: str | None) -> bool:
        """Carry out ``action`` on a file chosen in the tree, not from a card.

        No record vouches for it, so only the current policy and a safe open
        decide; the same refusals apply. ``workspace`` is the root whose policy
        file applies, or ``None`` (built-in and user rules only).
        """
        spec = _SPECS.get(action)
        if spec is None:
            raise ValueError(f"unknown file action {action!r}")
        resolved = resolve_keep_leaf(path)
        name = display_name(os.path.basename(resolved) or resolved)
        check, opened = self._check_path(resolved, workspace or "")
        if opened is not None and not spec.needs_fd:
            opened.close()
            opened = None
        if not check.allowed:
            self._refuse(spec, name, check.reason)
            return False
        native = self._native_of(workspace or os.path.dirname(resolved))
        return self._act(spec, resolved, name, check, opened, None, None, native)

    def _check_path(
        self, resolved: str, workspace: str
    ) -> tuple[Check, VerifiedFile | None]:
        return check_path(
            resolved,
            self._policy_provider(workspace),
            root=workspace or None,
            mode=self._mode_provider(),
        )

    # -- carrying out --------------------------------------------------------

    def _act(
        self,
        spec: ActionSpec,
        path: str,
        name: str,
        check: Check,
        opened: VerifiedFile | None,
        ref: DeliverableRef | None,
        kind: Kind | None,
        native: Native | None = None,
    ) -> bool:
        self.acted.emit(spec.id)
        if spec.id in ("open", "show_source"):
            assert opened is not None
            source = spec.id == "show_source"
            self.openRequested.emit(path, opened, source, ref, kind)
            return True
        if spec.id == "open_browser":
            assert opened is not None
            self.browserRequested.emit(path, opened, ref, kind)
            return True
        if spec.id == "open_native":
            assert opened is not None
            return self._open_natively(spec, name, opened, path, native)
        if spec.id == "save_copy":
            assert opened is not None
            return self._saver.start(
                opened,
                name,
                path,
                changed=check.verdict is Verdict.CHANGED,
                parent=self._dialog_parent,
            )
        if opened is not None:
            opened.close()
        if spec.id == "reveal":
            self.revealRequested.emit(path)
            return True
        if spec.id == "copy_path":
            QGuiApplication.clipboard().setText(path)
            self.notice.emit("Path copied")
            return True

        if spec.id == "show_in_file_manager":
            if native is None:
                self._refuse(spec, name, NOT_HERE)
                return False
            if not self._system.show_in_file_manager(path):
                self._refuse(spec, name, "no file manager could be started")
                return False
            return True
        raise AssertionError(f"unhandled action {spec.id}")

    def _open_natively(
        self,
        spec: ActionSpec,
        name: str,
        opened: VerifiedFile,
        path: str,
        native: Native | None,
    ) -> bool:
        """Refuse what can run; hand the desktop a private copy, never the path."""
        file_name = os.path.basename(path)
        refusal = NOT_HERE if native is None else native.refusal(file_name, opened)
        if native is None or refusal is not None:
            opened.close()
            self._refuse(spec, name, refusal or NOT_HERE)
            return False
        if opened.identity.size > INLINE_COPY_LIMIT:

            def copy_and_close() -> Path:
                with opened:
                    return native.private_copy(file_name, opened)

            self._copies.add(
                gui_thread.run(
                    self,
                    copy_and_close,
                    lambda done: self._on_private_copy_finished(name, done),
                )
            )
            self.notice.emit(f"Preparing a private copy of {name} to open…")
            return True
        try:
            copy = native.private_copy(file_name, opened)
        except OSError as error:
            self._refuse(spec, name, f"no private copy could be made: {error}")
            return False
        finally:
            opened.close()
        return self._hand_over(name, copy)

    def _on_private_copy_finished(self, name: str, done: Future[Path]) -> None:
        self._copies.discard(done)
        try:
            copy = done.result()
        except Exception as error:  # reported to the user, never lost
            reason = f"no private copy could be made: {error}"
            self._refuse(_SPECS["open_native"], name, reason)
            return
        self._hand_over(name, copy)

    def _hand_over(self, name: str, copy: Path) -> bool:
        if not self._system.open_file(str(copy)):
            self._refuse(_SPECS["open_native"], name, "no app is set up to open it")
            return False
        self.notice.emit(
            f"Opened a private copy of {name}; changes made there stay in the copy"
        )
        return True

    def _refuse(self, spec: ActionSpec, name: str, reason: str) -> None:
        self.refused.emit(f"Can't {spec.refusal.format(name=name)}: {reason}")

    def _on_system_failed(self, reason: str) -> None:
        self.refused.emit(f"Can't show the file in the file manager: {reason}")

    def _on_saver_saved(self, _name: str, target: str) -> None:
        self.notice.emit(f"Saved a copy to {target}")

    def _on_saver_failed(self, name: str, reason: str) -> None:
        self.refused.emit(f"Can't save a copy of {name}: {reason}")

    def _on_saver_cancelled(self, name: str) -> None:
        self.notice.emit(f"Save a copy of {name} cancelled; nothing was saved")


def workspace_policy(root: str) -> Policy:
    """The policy in force now for a conversation working in ``root``."""
    return current_policy(root or None)
