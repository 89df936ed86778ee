"""Remote card actions: revalidated over SSH first, never handed to this computer.

A remote card's menu has Open, Locate in remote tree, the two forms of its
remote coordinate and Save to local…; "Open with system app" and "Show in file
manager" do not exist here. Every action asks ``RemoteManager.check_deliverable``
again (on the SSH loop thread; the answer reaches the GUI thread through
``app.ui.gui_thread``), so a file that changed since it was presented is
refused as changed. A file of the tree or a tab is checked by its
``Workspace`` as a preview would open it; what an action then opens or saves
is checked by the workspace once more.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMenu, QProgressDialog, QWidget

from app.core.filetype import Kind
from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.core.trust.copying import CopyResult
from app.core.trust.display_names import display_name, plain_file_name
from app.core.trust.policy import PermissionMode
from app.core.trust.records import FileEntry
from app.core.trust.revalidate import Verdict
from app.core.trust.safeio import SafeOpenError
from app.ssh.errors import RemoteError
from app.ui import gui_thread
from app.ui.cards.action_spec import HOST, ActionSpec, capabilities, offered
from app.workspace.choose import ssh_workspace
from app.workspace.protocol import PreviewFile, Workspace

if TYPE_CHECKING:
    # The SSH library loads when a remote action first runs, not at start-up.
    from app.remote.manager import Checked, RemoteManager


REMOTE_ACTIONS = offered(frozenset({HOST}))
"""The actions of a file on another host: nothing is handed to this computer."""
_SPECS = {spec.id: spec for spec in REMOTE_ACTIONS}
CONTENT_ACTIONS = frozenset({"open", "show_source", "save_local"})
"""Actions that read the file: refused when it is not the recorded version."""


@dataclass(frozen=True)
class _Target:
    """The remote file an action works on: its path, name and recorded kind.

    ``record`` is the entry a record vouches for (``None`` for a tree file):
    a save then goes through the workspace's own check of that record.
    """

    resolved: str
    name: str
    kind: Kind | None
    record: FileEntry | None = None

    @property
    def display_name(self) -> str:
        return display_name(self.name)


class _SaveJob:
    def __init__(self, name: str, dialog: QProgressDialog) -> None:
        self.name = name
        self.dialog = dialog
        self.cancelled = False


class RemoteCardActions(QObject):
    """The actions of remote cards; each revalidates first, off the GUI thread.

    Signals:
        refused(str): an action was refused; the plain-text reason.
        notice(str): a confirmation (coordinate copied, file saved).
        acted(str): an action passed its checks (its id).
        verdictChanged(object, str): the check of this ref gave this verdict.
        openRequested(object, object, object, object): show the remote file:
            its ``Workspace``, the file (the record's entry, or a path no
            record vouches for), ref, the record's Kind.
        sourceRequested(object, object, object, object): show its source,
            with the same arguments.
        locateRequested(object, str): select the path in the workspace's tree.
    """

    refused = Signal(str)
    notice = Signal(str)
    acted = Signal(str)
    verdictChanged = Signal(object, str)
    openRequested = Signal(object, object, object, object)
    sourceRequested = Signal(object, object, object, object)
    locateRequested = Signal(object, str)
    # A save's progress, from the SSH loop: (job, done, total), queued here.
    _progressed = Signal(object, int, int)

    def __init__(
        self,
        store: Store,
        manager: Callable[[], RemoteManager],
        mode_provider: Callable[[], PermissionMode | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._manager = manager
        self._mode_provider = mode_provider
        self._dialog_parent: QWidget | None = None
        self._pending: set[Future[Any]] = set()
        self._saves: dict[_SaveJob, Future[CopyResult]] = {}
        self._progressed.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)

    def set_dialog_parent(self, widget: QWidget | None) -> None:
        self._dialog_parent = widget

    def fill_menu(self, menu: QMenu, ref: DeliverableRef, entry: FileEntry) -> None:
        """The remote card's menu: the host first, then what can be done there."""
        origin = entry.remote
        assert origin is not None
        self._fill(
            menu,
            origin.host,
            REMOTE_ACTIONS,
            lambda action_id: self.perform(action_id, ref),
        )

    def menu_for_path(self, workspace: Workspace, path: str, parent: QWidget) -> QMenu:
        """The same menu for a file of the remote tree or a remote tab."""
        menu = QMenu(parent)
        menu.setAccessibleName("File actions")
        self._fill(
            menu,
            workspace.host or "",
            offered(capabilities(workspace)),
            lambda action_id: self.perform_path(action_id, workspace, path),
        )
        return menu

    @staticmethod
    def _fill(
        menu: QMenu,
        host: str,
        specs: tuple[ActionSpec, ...],
        run: Callable[[str], object],
    ) -> None:
        where = QAction(f"On {display_name(host)} (remote)", menu)
        where.setObjectName("action_none")
        where.setEnabled(False)
        menu.addAction(where)
        menu.addSeparator()
        for spec in specs:
            if spec.id not in _SPECS:  # carried out elsewhere, never over SSH
                continue
            action = QAction(spec.label, menu)
            action.setData(spec.id)
            action.setObjectName(f"action_{spec.id}")
            action.triggered.connect(
                lambda _checked=False, action_id=spec.id: run(action_id)
            )
            menu.addAction(action)

    def perform(self, action: str, ref: DeliverableRef) -> Future[Checked]:
        """Revalidate ``ref`` over SSH, then carry out ``action`` on the GUI thread."""
        if action not in _SPECS:
            raise ValueError(f"unknown remote file action {action!r}")
        future = self._manager().check_deliverable(
            self._store, ref, mode=self._mode_provider()
        )
        self._pending.add(future)
        gui_thread.when_done(
            self, future, lambda done: self._on_checked(action, ref, done)
        )
        return future

    def perform_path(
        self, action: str, workspace: Workspace, path: str
    ) -> Future[PreviewFile]:
        """Check a file no record vouches for on its host now, then do ``action``.

        As for a card, nothing learnt earlier is used: the policy and the
        file are looked up again (the file is opened as a preview would open
        it, then let go), and what the action opens or saves is checked again.
        """
        if action not in _SPECS:
            raise ValueError(f"unknown remote file action {action!r}")
        future = workspace.open_for_preview(path)
        self._pending.add(future)
        gui_thread.when_done(
            self,
            future,
            lambda done: self._on_path_checked(action, workspace, path, done),
        )
        return future

    def busy(self) -> bool:
        """Whether a check or a save is still under way."""
        return bool(self._pending or self._saves)

    def cancel(self) -> None:
        for future in list(self._pending):
            future.cancel()
        for job in list(self._saves):
            job.cancelled = True

    # -- after the check -------------------------------------------------------

    def _on_checked(
        self, action: str, ref: DeliverableRef, future: Future[Checked]
    ) -> None:
        self._pending.discard(future)
        spec = _SPECS[action]
        try:
            check, entry, workspace = future.result()
        except CancelledError:
            return
        except RemoteError as error:
            self._refuse(spec, "this file", error.message)
            return
        except Exception as error:  # a sentence, never a crash
            self._refuse(spec, "this file", f"the check failed: {error}")
            return
        self.verdictChanged.emit(ref, check.check.verdict.value)
        name = "this file" if entry is None else entry.display_name
        if not check.allowed or entry is None or workspace is None:
            self._refuse(spec, name, check.check.reason)
            return
        if check.check.verdict is Verdict.CHANGED and spec.id in CONTENT_ACTIONS:
            # Only the version the record vouches for is shown or saved.
            self._refuse(spec, name, check.check.reason)
            return
        target = _Target(entry.resolved, entry.name, entry.kind_enum, entry)
        self._act(spec, ref, target, ssh_workspace(workspace))

    def _on_path_checked(
        self,
        action: str,
        workspace: Workspace,
        path: str,
        future: Future[PreviewFile],
    ) -> None:
        self._pending.discard(future)
        spec = _SPECS[action]
        name = display_name(posixpath.basename(path) or path)
        try:
            future.result().close()  # the check was the point; nothing is read
        except CancelledError:
            return
        except RemoteError as error:
            self._refuse(spec, name, error.message)
            return
        except SafeOpenError as error:
            self._refuse(spec, name, str(error))
            return
        except Exception as error:  # a sentence, never a crash
            self._refuse(spec, name, f"the check failed: {error}")
            return
        target = _Target(path, posixpath.basename(path), None)
        self._act(spec, None, target, workspace)

    def _act(
        self,
        spec: ActionSpec,
        ref: DeliverableRef | None,
        entry: _Target,
        files: Workspace,
    ) -> None:
        path = entry.resolved
        # What is shown is checked again as it opens: against the record, if any.
        file: str | FileEntry = entry.record if entry.record is not None else path
        if spec.id == "open":
            self.acted.emit(spec.id)
            self.openRequested.emit(files, file, ref, entry.kind)
        elif spec.id == "show_source":
            self.acted.emit(spec.id)
            self.sourceRequested.emit(files, file, ref, entry.kind)
        elif spec.id == "locate":
            self.acted.emit(spec.id)
            self.locateRequested.emit(files, path)
        elif spec.id in ("copy_url", "copy_scp"):
            named = files.coordinates(path)
            text = named.url if spec.id == "copy_url" else named.scp
            if text is None:  # a remote workspace always has both forms
                self._refuse(spec, entry.display_name, "it has no remote coordinate")
                return
            QGuiApplication.clipboard().setText(text)
            self.acted.emit(spec.id)
            self.notice.emit(f"Remote coordinate copied: {display_name(text)}")
        elif spec.id == "save_local":
            self._save(spec, entry, files)

    def ask_target(self, name: str) -> str | None:
        """Where to save ``name`` on this computer, from a file dialog."""
        start = os.path.join(os.path.expanduser("~"), plain_file_name(name))
        target, _filter = QFileDialog.getSaveFileName(
            self._dialog_parent, "Save to local", start
        )
        return target or None

    def _save(self, spec: ActionSpec, entry: _Target, files: Workspace) -> None:
        """Save ``entry`` here, checked again by the workspace as the save starts.

        A record's file is checked against its record, a tree file as a read
        would be; either way the version checked is the one saved.
        """
        name = entry.display_name
        target = self.ask_target(entry.name)
        if target is None:
            return
        dialog = QProgressDialog(
            f"Saving {name} from {files.host}…",
            "Cancel",
            0,
            100,
            self._dialog_parent,
        )
        dialog.setWindowTitle("Save to local")
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        job = _SaveJob(name, dialog)
        dialog.canceled.connect(lambda: setattr(job, "cancelled", True))

        def progress(done: int, total: int) -> None:
            self._progressed.emit(job, done, total)

        if entry.record is None:
            future = files.save_file(
                entry.resolved,
                target,
                progress=progress,
                is_cancelled=lambda: job.cancelled,
            )
        else:
            future = files.save_copy(
                entry.record,
                target,
                trusted=True,  # the check that let this action run vouched
                mode=self._mode_provider(),
                progress=progress,
                is_cancelled=lambda: job.cancelled,
            )
        self._saves[job] = future
        gui_thread.when_done(self, future, lambda done: self._on_saved(job, done))
        dialog.show()
        self.acted.emit(spec.id)

    def _on_progress(self, job: object, done: int, total: int) -> None:
        if isinstance(job, _SaveJob) and job in self._saves and total > 0:
            job.dialog.setValue(min(100, done * 100 // total))

    def _on_saved(self, job: _SaveJob, future: Future[CopyResult]) -> None:
        self._saves.pop(job, None)
        cancelled = job.cancelled  # closing the dialog counts as its Cancel
        job.dialog.close()
        job.dialog.deleteLater()
        spec = _SPECS["save_local"]
        try:
            result = future.result()
        except CancelledError:
            self.notice.emit(f"Saving {job.name} was cancelled; nothing was saved")
            return
        except RemoteError as error:
            self._refuse(spec, job.name, error.message)
            return
        except Exception as error:  # a sentence, never a crash
            self._refuse(spec, job.name, str(error))
            return
        if result.cancelled or (cancelled and not result.ok):
            self.notice.emit(f"Saving {job.name} was cancelled; nothing was saved")
        elif not result.ok:
            self._refuse(spec, job.name, result.reason)
        else:
            self.notice.emit(f"Saved {job.name} to {display_name(result.target)}")

    def _refuse(self, spec: ActionSpec, name: str, reason: str) -> None:
        self.refused.emit(f"Can't {spec.refusal.format(name=name)}: {reason}")
