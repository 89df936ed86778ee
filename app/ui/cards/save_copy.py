"""Save a copy: ask where, stream from the verified descriptor, replace atomically."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QStandardPaths, Qt, QThreadPool, Signal
from PySide6.QtWidgets import QFileDialog, QLabel, QMessageBox, QProgressDialog, QWidget

from app.core.trust.copying import CopyResult, copy_verified
from app.core.trust.display_names import plain_file_name
from app.core.trust.safeio import VerifiedFile
from previewers.widgets import ask_plain_question

# Smaller copies finish before a progress dialog would be worth showing.
PROGRESS_THRESHOLD = 8 * 1024 * 1024


def is_same_file(target: str, source: VerifiedFile, source_path: str) -> bool:
    """Whether writing ``target`` would overwrite the source file itself."""
    if os.path.realpath(target) == os.path.realpath(source_path):
        return True
    try:
        status = os.stat(target)
    except OSError:
        return False
    return (status.st_dev, status.st_ino) == (
        source.identity.device,
        source.identity.inode,
    )


def proposed_target(name: str) -> str:
    """``name`` in the user's Downloads folder, else Documents, else home."""
    for location in (
        QStandardPaths.StandardLocation.DownloadLocation,
        QStandardPaths.StandardLocation.DocumentsLocation,
    ):
        folder = QStandardPaths.writableLocation(location)
        if folder and os.path.isdir(folder):
            return os.path.join(folder, name)
    return os.path.join(str(Path.home()), name)


def _choose_target(parent: QWidget | None, proposed: str) -> str:
    target, _filter = QFileDialog.getSaveFileName(parent, "Save a copy", proposed)
    return target


def _confirm_changed(parent: QWidget | None, name: str) -> bool:
    return ask_plain_question(
        parent,
        "File changed",
        f"{name} changed since it was presented. Save the current version?",
        QMessageBox.StandardButton.Yes,
    )


@dataclass(frozen=True)
class SaveCopyDialogs:
    """The questions a save asks; tests replace them with answers."""

    choose_target: Callable[[QWidget | None, str], str] = _choose_target
    confirm_changed: Callable[[QWidget | None, str], bool] = _confirm_changed


class _JobSignals(QObject):
    # (job, bytes written) and (job, CopyResult); objects, as sizes pass 2**31.
    progressed = Signal(object, object)
    finished = Signal(object, object)


class _CopyJob(QRunnable):
    def __init__(
        self,
        source: VerifiedFile,
        target: str,
        chunk_hook: Callable[[int], None] | None,
    ) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.signals = _JobSignals()
        self._source = source
        self._target = target
        self._chunk_hook = chunk_hook
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    def run(self) -> None:
        try:
            result = copy_verified(
                self._source,
                self._target,
                is_cancelled=self._cancel.is_set,
                on_chunk=self._on_chunk,
            )
        except Exception as error:  # reported to the user, never lost
            result = CopyResult(
                self._target, 0, False, reason=f"the copy failed: {error}"
            )
        self.signals.finished.emit(self, result)

    def _on_chunk(self, written: int) -> None:
        if self._chunk_hook is not None:
            self._chunk_hook(written)
        self.signals.progressed.emit(self, written)


class SaveCopier(QObject):
    """Runs "Save a copy…" for a file that was just revalidated.

    Signals:
        saved(str, str): the copy of this file name is complete at this path.
        failed(str, str): the file name and the plain-text reason nothing was
            saved.
        cancelled(str): the user cancelled the copy of this file name.
    """

    saved = Signal(str, str)
    failed = Signal(str, str)
    cancelled = Signal(str)

    def __init__(
        self,
        dialogs: SaveCopyDialogs | None = None,
        *,
        chunk_hook: Callable[[int], None] | None = None,
        pool: QThreadPool | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._dialogs = dialogs or SaveCopyDialogs()
        self._chunk_hook = chunk_hook
        self._pool = pool or QThreadPool.globalInstance()
        self._jobs: dict[_CopyJob, QProgressDialog | None] = {}
        self._sources: dict[_CopyJob, tuple[VerifiedFile, str]] = {}

    def active_jobs(self) -> int:
        return len(self._jobs)

    def progress_dialogs(self) -> list[QProgressDialog]:
        return [dialog for dialog in self._jobs.values() if dialog is not None]

    def start(
        self,
        source: VerifiedFile,
        name: str,
        source_path: str,
        *,
        changed: bool,
        parent: QWidget | None = None,
    ) -> bool:
        """Ask, then copy ``source`` in the background; takes ownership of it.

        Returns whether a copy started; ``False`` when the user said no or
        the target was refused (``failed`` says why).
        """
        try:
            if changed and not self._dialogs.confirm_changed(parent, name):
                source.close()
                return False
            proposed = proposed_target(plain_file_name(os.path.basename(source_path)))
            target = self._dialogs.choose_target(parent, proposed)
            if not target:
                source.close()
                return False
            if is_same_file(target, source, source_path):
                source.close()
                self.failed.emit(name, "a copy cannot be saved over the file itself")
                return False
        except BaseException:
            source.close()
            raise
        job = _CopyJob(source, target, self._chunk_hook)
        dialog = self._progress_dialog(job, name, source.identity.size, parent)
        self._jobs[job] = dialog
        self._sources[job] = (source, name)
        # Queued: the job emits from a pool thread, the handlers touch widgets.
        queued = Qt.ConnectionType.QueuedConnection
        job.signals.progressed.connect(self._on_job_progressed, queued)
        job.signals.finished.connect(self._on_job_finished, queued)
        self._pool.start(job)
        return True

    def _progress_dialog(
        self, job: _CopyJob, name: str, size: int, parent: QWidget | None
    ) -> QProgressDialog | None:
        if size <= PROGRESS_THRESHOLD:
            return None
        dialog = QProgressDialog(parent)
        label = QLabel(dialog)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setText(f"Saving a copy of {name}…")
        dialog.setLabel(label)
        dialog.setWindowTitle("Save a copy")
        dialog.setAccessibleName("Saving a copy")
        dialog.setCancelButtonText("Cancel")
        # KiB keeps files past 2 GiB inside the dialog's int range.
        dialog.setRange(0, max(1, size // 1024))
        dialog.setMinimumDuration(300)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.canceled.connect(job.cancel)
        dialog.setValue(0)
        return dialog

    def _on_job_progressed(self, job: _CopyJob, written: int) -> None:
        dialog = self._jobs.get(job)
        if dialog is None:
            return
        if dialog.wasCanceled():
            # Also covers cancel() called in code, which emits no canceled().
            job.cancel()
            return
        dialog.setValue(min(dialog.maximum(), written // 1024))

    def _on_job_finished(self, job: _CopyJob, result: CopyResult) -> None:
        dialog = self._jobs.pop(job, None)
        source, name = self._sources.pop(job)
        source.close()
        if dialog is not None:
            dialog.close()
            dialog.deleteLater()
        if result.ok:
            self.saved.emit(name, result.target)
        elif result.cancelled:
            self.cancelled.emit(name)
        else:
            self.failed.emit(name, result.reason)
