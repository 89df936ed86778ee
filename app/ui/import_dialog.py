"""Import session…: the sessions Claude Code and Codex left on this machine, imported.

Finding the sessions (a walk of two folders) and importing them (reading
transcripts of any size) run on the thread pool; the dialog shows progress,
can cancel between lines, and says for each file what became of it.
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

from app.core.import_store import ImportConflictError
from app.core.names import display_name
from app.core.sizes import human_size
from app.core.store import Store, StoreError
from app.importers.discover import SessionListing, find_sessions
from app.importers.session import ImportSummary, NotImportableError, import_transcript

SOURCES: Final = {"claude-code": "Claude Code", "codex": "Codex"}
_PATH_ROLE: Final = Qt.ItemDataRole.UserRole


class ImportCancelledError(Exception):
    """The user cancelled; raised from the progress callback between lines."""


@dataclass(frozen=True)
class ImportOutcome:
    """What became of one transcript: imported (``summary``) or why not."""

    path: str
    summary: ImportSummary | None
    problem: str | None

    @property
    def sentence(self) -> str:
        name = display_name(os.path.basename(self.path))
        if self.summary is not None:
            s = self.summary
            turns = f"{s.turns} {'turn' if s.turns == 1 else 'turns'}"
            files = f"{s.files} {'file' if s.files == 1 else 'files'}"
            return f"{name}: imported as “{s.title}”, {turns}, {files}."
        return f"{name}: not imported: {self.problem}."


def import_all(
    store: Store,
    paths: Sequence[str],
    *,
    on_progress: Callable[[int, int, int], None] | None = None,
    cancelled: threading.Event | None = None,
) -> list[ImportOutcome]:
    """Import ``paths`` one after another; a failure is an outcome, never a raise.

    ``on_progress(file_index, done_bytes, total_bytes)`` reports the current
    file; ``cancelled`` stops the import at the next line, and the files not
    reached are reported as not imported.
    """
    outcomes: list[ImportOutcome] = []
    for index, path in enumerate(paths):
        if cancelled is not None and cancelled.is_set():
            outcomes.append(ImportOutcome(path, None, "the import was cancelled"))
            continue

        def progress(done: int, total: int, index: int = index) -> None:
            if cancelled is not None and cancelled.is_set():
                raise ImportCancelledError
            if on_progress is not None:
                on_progress(index, done, total)

        try:
            summary = import_transcript(store, path, on_progress=progress)
        except ImportCancelledError:
            outcomes.append(
                ImportOutcome(
                    path,
                    None,
                    "the import was cancelled; import it again to finish it",
                )
            )
        except (NotImportableError, ImportConflictError) as error:
            outcomes.append(ImportOutcome(path, None, str(error).rstrip(".")))
        except (OSError, StoreError) as error:
            reason = error.strerror if isinstance(error, OSError) else str(error)
            outcomes.append(ImportOutcome(path, None, str(reason).rstrip(".")))
        else:
            outcomes.append(ImportOutcome(path, summary, None))
    return outcomes


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

    Signals:
        imported(list): the ``ImportSummary`` of every session imported, once
            an import has finished (also when some files were not imported).
        listed(): the sessions found are shown.
    """

    imported = Signal(list)
    listed = Signal()

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

        self.source = QComboBox()
        self.source.addItem("All agents", "")
        for key, label in SOURCES.items():
            self.source.addItem(label, key)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by project or first prompt")
        self.filter.setClearButtonEnabled(True)
        self.sessions = QTreeWidget()
        self.sessions.setHeaderLabels(
            ["Agent", "Project", "Started", "First prompt", "Size"]
        )
        self.sessions.setRootIsDecorated(False)
        self.sessions.setSelectionMode(
            QAbstractItemView.SelectionMode.ExtendedSelection
        )
        self.sessions.setUniformRowHeights(True)
        header = self.sessions.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
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
        layout.addWidget(self.status)
        layout.addWidget(self.progress)
        layout.addLayout(buttons)
        self.resize(900, 520)
        self._run(lambda: find_sessions(self._home, self._env), self._on_listed)

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
        for listing in result:
            item = QTreeWidgetItem(
                [
                    SOURCES.get(listing.source, listing.source),
                    display_name(listing.project),
                    _when(listing),
                    display_name(" ".join(listing.first_prompt.split())),
                    human_size(listing.size),
                ]
            )
            item.setData(0, _PATH_ROLE, listing.path)
            item.setData(1, _PATH_ROLE, listing.source)
            item.setToolTip(0, display_name(listing.path))
            item.setTextAlignment(4, Qt.AlignmentFlag.AlignRight)
            self.sessions.addTopLevelItem(item)
        for column in (0, 1, 2, 4):
            self.sessions.resizeColumnToContents(column)
        if result:
            count = len(result)
            self.status.setText(
                f"{count} {'session' if count == 1 else 'sessions'} found. "
                "Choose one or more and press Import."
            )
        else:
            self.status.setText(
                "No Claude Code or Codex sessions were found in their usual "
                "folders. Choose files… imports a transcript from anywhere."
            )
        self.listed.emit()

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
        self.import_button.setEnabled(
            not self._importing and bool(self.selected_paths())
        )

    def selected_paths(self) -> list[str]:
        return [str(item.data(0, _PATH_ROLE)) for item in self.sessions.selectedItems()]

    def _choose_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Import transcripts", "", "Transcripts (*.jsonl);;All files (*)"
        )
        if paths:
            self.start_import(paths)

    # -- importing ---------------------------------------------------------------

    def start_import(self, paths: Sequence[str] | None = None) -> None:
        chosen = list(paths) if paths is not None else self.selected_paths()
        if not chosen or self._importing:
            return
        self._importing = chosen
        self._cancel.clear()
        self._progress = (0, 0, 0)
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        self.cancel_button.setEnabled(True)
        for widget in (self.import_button, self.choose_button, self.sessions):
            widget.setEnabled(False)
        self._show_progress()
        self._timer.start()

        def note(index: int, done: int, total: int) -> None:
            self._progress = (index, done, total)

        self._run(
            lambda: import_all(
                self._store, chosen, on_progress=note, cancelled=self._cancel
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
        for widget in (self.choose_button, self.sessions):
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
