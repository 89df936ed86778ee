"""Import session…: the sessions Claude Code and Codex left on this machine, imported.

Finding the sessions (a walk of two folders) and importing them (reading
transcripts of any size) run on the thread pool; the dialog shows progress,
can cancel between lines, and says for each file what became of it. Each
session is imported with the workspace the user confirms for it, shown beside
the folder its transcript claims.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Final

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.filetype.sizes import counted, human_size
from app.core.store import Store
from app.core.trust.display_names import display_name
from app.core.trust.import_workspace import default_workspace
from app.core.trust.policy import current_policy
from app.importers.batch import ImportOutcome, import_all
from app.importers.discover import SessionListing, find_sessions, listing_of
from app.ui.changes.import_workspace import (
    SOURCES,
    ImportWorkspaceWidget,
    workspace_problem,
)
from previewers.widgets import plain_tooltip

_PATH_ROLE: Final = Qt.ItemDataRole.UserRole
WORKSPACE_COLUMN: Final = 5
NOT_CHOSEN: Final = "to choose"
NONE_CHOSEN: Final = "none"
UNUSABLE: Final = "cannot be used"
MAX_FOLDER_WIDTH: Final = 240


# -- jobs --------------------------------------------------------------------------


class _Signals(QObject):
    done = Signal(object, object)


class _Job(QRunnable):
    def __init__(self, work: Callable[[], object]) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.signals = _Signals()
        self._work = work

    def run(self) -> None:
        try:
            result = self._work()
        except Exception as error:  # any failure is a sentence, never a crash
            result = error
        self.signals.done.emit(self, result)


@dataclass(frozen=True)
class _Found:
    """A session to list, and the workspace offered for it ("": none)."""

    listing: SessionListing
    offered: str


def _offers(listings: Sequence[SessionListing], home: Path | None) -> list[_Found]:
    """Each session with its claim offered as workspace when nothing argues
    against it (checked off the GUI thread: it looks at the disk)."""
    where = str(home) if home is not None else None
    policy = current_policy(home=where)
    return [
        _Found(listing, default_workspace(listing.cwd, policy, where))
        for listing in listings
    ]


def _when(listing: SessionListing) -> str:
    if listing.started_at:
        try:
            started = datetime.fromisoformat(listing.started_at.replace("Z", "+00:00"))
            return started.astimezone().strftime("%Y-%m-%d %H:%M")
        except ValueError:
            pass
    return datetime.fromtimestamp(listing.mtime_ns / 1e9).strftime("%Y-%m-%d %H:%M")


class ImportDialog(QDialog):
    """Lists the sessions found on this machine and imports the chosen ones.

    Each session is imported with the workspace the user confirms for it:
    the folder its transcript claims is shown beside it and offered only when
    nothing argues against it, never used of itself.

    Signals:
        imported(list): the ``ImportSummary`` of every session imported, once
            an import has finished (also when some files were not imported).
        listed(): the sessions found are shown.
        connectRequested(str): the user asked to connect to the ``ssh://``
            place a session claims.
    """

    imported = Signal(list)
    listed = Signal()
    connectRequested = Signal(str)

    def __init__(
        self,
        store: Store,
        *,
        home: Path | None = None,
        env: dict[str, str] | None = None,
        pool: QThreadPool | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import session")
        self._store = store
        self._home = home
        self._env = env
        self._pool = pool or QThreadPool.globalInstance()
        self._jobs: set[_Job] = set()
        self._cancel = threading.Event()
        self._progress = (0, 0, 0)  # file index, done, total: written by the job
        self._importing: list[str] = []
        self.outcomes: list[ImportOutcome] = []
        # The user's choice per transcript: a folder, or None for none.
        self._choices: dict[str, str | None] = {}
        # Transcripts whose folder, as typed, cannot be used. Checked when it
        # is typed, never again per selection: a folder on a hung mount must
        # not freeze the list (the offered ones were checked off this thread).
        self._unusable: set[str] = set()

        self.source = QComboBox()
        self.source.addItem("All agents", "")
        for key, label in SOURCES.items():
            self.source.addItem(label, key)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by project or first prompt")
        self.filter.setClearButtonEnabled(True)
        self.sessions = QTreeWidget()
        self.sessions.setHeaderLabels(
            ["Agent", "Project", "Started", "First prompt", "Size", "Workspace"]
        )
        self.sessions.setRootIsDecorated(False)
        self.sessions.setSelectionMode(
            QAbstractItemView.SelectionMode.ExtendedSelection
        )
        self.sessions.setUniformRowHeights(True)
        header = self.sessions.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.workspace = ImportWorkspaceWidget()
        self.waiting = QLabel()
        self.waiting.setTextFormat(Qt.TextFormat.PlainText)
        self.waiting.hide()
        self.status = QLabel("Looking for sessions…")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.hide()
        self.choose_button = QPushButton("Choose files…")
        self.import_button = QPushButton("Import")
        self.import_button.setDefault(True)
        self.import_button.setEnabled(False)
        self.cancel_button = QPushButton("Cancel import")
        self.cancel_button.hide()
        self.close_button = QPushButton("Close")

        self.source.currentIndexChanged.connect(self._apply_filter)
        self.filter.textChanged.connect(self._apply_filter)
        self.sessions.itemSelectionChanged.connect(self._update_buttons)
        self.sessions.currentItemChanged.connect(self._on_sessions_current_changed)
        self.workspace.changed.connect(self._on_workspace_changed)
        self.workspace.connectRequested.connect(self.connectRequested)
        self.sessions.itemDoubleClicked.connect(lambda *_: self.start_import())
        self.choose_button.clicked.connect(self._choose_files)
        self.import_button.clicked.connect(lambda: self.start_import())
        self.cancel_button.clicked.connect(self.cancel_import)
        self.close_button.clicked.connect(self.reject)
        self._timer = QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._show_progress)

        filters = QHBoxLayout()
        filters.addWidget(self.source)
        filters.addWidget(self.filter, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.choose_button)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.sessions, 1)
        layout.addWidget(self.workspace)
        layout.addWidget(self.waiting)
        layout.addWidget(self.status)
        layout.addWidget(self.progress)
        layout.addLayout(buttons)
        self.resize(980, 600)
        self._run(
            lambda: _offers(find_sessions(self._home, self._env), self._home),
            self._on_listed,
        )

    # -- listing -----------------------------------------------------------------

    def _run(self, work: Callable[[], object], done: Callable[[object], None]) -> None:
        job = _Job(work)
        self._jobs.add(job)

        def finished(finished_job: _Job, result: object) -> None:
            self._jobs.discard(finished_job)
            done(result)

        job.signals.done.connect(finished, Qt.ConnectionType.QueuedConnection)
        self._pool.start(job)

    def _on_listed(self, result: object) -> None:
        if isinstance(result, Exception):
            self.status.setText(f"The sessions could not be listed: {result}.")
            self.listed.emit()
            return
        assert isinstance(result, list)
        for found in result:
            self._add_row(found)
        for column in (0, 1, 2, 4, 5):
            self.sessions.resizeColumnToContents(column)
        # Folders can be long: elided in the list, whole in the tooltip and
        # in the workspace panel below.
        for column in (1, WORKSPACE_COLUMN):
            width = min(self.sessions.columnWidth(column), MAX_FOLDER_WIDTH)
            self.sessions.setColumnWidth(column, width)
        if result:
            count = len(result)
            self.status.setText(
                f"{counted(count, 'session')} found. "
                "Choose one or more and press Import."
            )
        else:
            self.status.setText(
                "No Claude Code or Codex sessions were found in their usual "
                "folders. Choose files… imports a transcript from anywhere."
            )
        self.listed.emit()

    def _add_row(self, found: _Found) -> QTreeWidgetItem:
        listing = found.listing
        item = QTreeWidgetItem(
            [
                SOURCES.get(listing.source, listing.source),
                display_name(listing.project),
                _when(listing),
                display_name(" ".join(listing.first_prompt.split())),
                human_size(listing.size),
                "",
            ]
        )
        item.setData(0, _PATH_ROLE, listing.path)
        item.setData(1, _PATH_ROLE, listing.source)
        item.setData(2, _PATH_ROLE, listing.cwd)
        # Tooltips guess at rich text: these come from transcripts.
        item.setToolTip(0, plain_tooltip(display_name(listing.path)))
        item.setToolTip(1, plain_tooltip(display_name(listing.project)))
        item.setTextAlignment(4, Qt.AlignmentFlag.AlignRight)
        if found.offered:
            self._choices[listing.path] = found.offered
        self._show_choice(item)
        self.sessions.addTopLevelItem(item)
        return item

    def _show_choice(self, item: QTreeWidgetItem) -> None:
        path = str(item.data(0, _PATH_ROLE))
        choice = self._choices.get(path, "")
        shown = NONE_CHOSEN if choice is None else display_name(choice) or NOT_CHOSEN
        if path in self._unusable:
            shown = f"{shown} — {UNUSABLE}"
        item.setText(WORKSPACE_COLUMN, shown)
        item.setToolTip(WORKSPACE_COLUMN, plain_tooltip(shown))

    def workspace_for(self, path: str) -> str | None:
        """The folder chosen for ``path``; None: none (yet, or by choice)."""
        return self._choices.get(path) or None

    def _ready(self, path: str) -> bool:
        return path in self._choices and path not in self._unusable

    def _on_sessions_current_changed(
        self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None
    ) -> None:
        if current is None:
            self.workspace.set_session(None, "")
            return
        path = str(current.data(0, _PATH_ROLE))
        claim = str(current.data(2, _PATH_ROLE) or "")
        self.workspace.set_session(claim, self._choices.get(path, ""))

    def _on_workspace_changed(self, choice: object) -> None:
        item = self.sessions.currentItem()
        if item is None or not (choice is None or isinstance(choice, str)):
            return
        path = str(item.data(0, _PATH_ROLE))
        if choice == "":
            self._choices.pop(path, None)
        else:
            self._choices[path] = choice
        if choice and workspace_problem(choice):
            self._unusable.add(path)
        else:
            self._unusable.discard(path)
        self._show_choice(item)
        self._update_buttons()

    def _apply_filter(self) -> None:
        words = self.filter.text().casefold().split()
        source = self.source.currentData()
        for row in range(self.sessions.topLevelItemCount()):
            item = self.sessions.topLevelItem(row)
            if item is None:
                continue
            text = f"{item.text(1)} {item.text(3)}".casefold()
            hidden = bool(source and item.data(1, _PATH_ROLE) != source) or not all(
                word in text for word in words
            )
            item.setHidden(hidden)
            if hidden:
                item.setSelected(False)

    def _update_buttons(self) -> None:
        chosen = self.selected_paths()
        waiting = sum(not self._ready(path) for path in chosen)
        self.import_button.setEnabled(
            not self._importing and bool(chosen) and not waiting
        )
        self.waiting.setVisible(waiting > 0)
        self.waiting.setText(
            f"{waiting} of the {len(chosen)} sessions chosen still "
            f"{'needs' if waiting == 1 else 'need'} a workspace: select "
            "each to choose one (the Workspace column says which)."
            if len(chosen) > 1
            else ""
        )

    def selected_paths(self) -> list[str]:
        return [str(item.data(0, _PATH_ROLE)) for item in self.sessions.selectedItems()]

    def _choose_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Import transcripts", "", "Transcripts (*.jsonl);;All files (*)"
        )
        if paths:
            self.add_files(paths)

    def add_files(self, paths: Sequence[str]) -> None:
        """List transcripts from anywhere, chosen, so their workspace is
        confirmed like any found session's before they are imported."""
        home = self._home

        def describe() -> tuple[list[_Found], int]:
            listings = [listing_of(path) for path in paths]
            found = [x for x in listings if x is not None]
            return _offers(found, home), len(listings) - len(found)

        self._run(describe, self._on_files_added)

    def _on_files_added(self, outcome: object) -> None:
        if not isinstance(outcome, tuple):
            self.status.setText(f"The files could not be read: {outcome}.")
            return
        result, unread = outcome
        known = {
            str(item.data(0, _PATH_ROLE)): item
            for item in map(self.sessions.topLevelItem, range(self._count()))
            if item is not None
        }
        self.sessions.clearSelection()
        for found in result:
            item = known.get(found.listing.path) or self._add_row(found)
            item.setHidden(False)
            item.setSelected(True)
            self.sessions.setCurrentItem(item)
        count = len(result)
        said = (
            f"{counted(count, 'transcript')} added. "
            "Check the workspace of each and press Import."
        )
        if unread:
            said += f" {unread} could not be read."
        self.status.setText(said)
        self._update_buttons()

    def _count(self) -> int:
        return self.sessions.topLevelItemCount()

    # -- importing ---------------------------------------------------------------

    def start_import(self, paths: Sequence[str] | None = None) -> None:
        """Import ``paths``, or the sessions chosen in the list once each has
        its workspace (or the choice of none)."""
        chosen = list(paths) if paths is not None else self.selected_paths()
        if not chosen or self._importing:
            return
        if paths is None and not all(map(self._ready, chosen)):
            return
        workspaces = {path: self.workspace_for(path) for path in chosen}
        self._importing = chosen
        self._cancel.clear()
        self._progress = (0, 0, 0)
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        self.cancel_button.setEnabled(True)
        for widget in (
            self.import_button,
            self.choose_button,
            self.sessions,
            self.workspace,
        ):
            widget.setEnabled(False)
        self._show_progress()
        self._timer.start()

        def note(index: int, done: int, total: int) -> None:
            self._progress = (index, done, total)

        self._run(
            lambda: import_all(
                self._store,
                chosen,
                workspaces=workspaces,
                on_progress=note,
                cancelled=self._cancel,
            ),
            self._on_imported,
        )

    def cancel_import(self) -> None:
        self._cancel.set()
        self.cancel_button.setEnabled(False)
        self.status.setText("Cancelling…")

    def _show_progress(self) -> None:
        if not self._importing or self._cancel.is_set():
            return
        index, done, total = self._progress
        count = len(self._importing)
        share = (index + (done / total if total else 0)) / count
        self.progress.setValue(int(share * 1000))
        name = display_name(os.path.basename(self._importing[index]))
        where = f" ({index + 1} of {count})" if count > 1 else ""
        self.status.setText(
            f"Importing {name}{where}: {human_size(done)} of {human_size(total)}"
        )

    def _on_imported(self, result: object) -> None:
        self._timer.stop()
        chosen, self._importing = self._importing, []
        if isinstance(result, Exception):
            result = [ImportOutcome(path, None, str(result)) for path in chosen]
        assert isinstance(result, list)
        self.outcomes = result
        self.progress.hide()
        self.cancel_button.hide()
        for widget in (self.choose_button, self.sessions, self.workspace):
            widget.setEnabled(True)
        self._update_buttons()
        self.status.setText("\n".join(outcome.sentence for outcome in result))
        self.imported.emit([o.summary for o in result if o.summary is not None])

    def busy(self) -> bool:
        """Whether a listing or an import is still running."""
        return bool(self._jobs)

    def reject(self) -> None:
        # Closing cancels an import; what was imported so far stays.
        self._cancel.set()
        super().reject()
