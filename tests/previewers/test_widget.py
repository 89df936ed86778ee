"""The preview contract every widget inherits: release, late results, outcomes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core.trust.safeio import VerifiedFile, open_verified
from app.formats.image_facts import ImageDataError
from previewers.source import PreviewSource
from previewers.text.widget import CodePreviewWidget
from previewers.widget import UNEXPECTED_FAILURE, PreviewWidget, cancel_all_jobs

ROOT = Path(__file__).resolve().parents[2]


def test_release_closes_the_file_and_is_idempotent(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    file = open_verified(str(path))
    preview = CodePreviewWidget(PreviewSource.from_file(str(path), file), file)
    qtbot.addWidget(preview)
    preview.show()  # the code view finishes loading once it is laid out
    qtbot.waitUntil(preview.is_loaded)
    preview.release()
    preview.release()
    assert file.fd == -1
    assert preview.is_released()


def test_result_arriving_after_release_is_dropped(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("late text\n")
    file = open_verified(str(path))
    preview = CodePreviewWidget(PreviewSource.from_file(str(path), file), file)
    qtbot.addWidget(preview)
    gate = threading.Event()
    results: list[object] = []

    def slow_job(opened: object, cancelled: threading.Event) -> str:
        gate.wait(5)
        return "stale"

    preview.run_in_background(slow_job, results.append)
    preview.show()
    qtbot.waitUntil(preview.is_loaded)
    preview.release()
    assert file.fd != -1  # the worker still reads: closing waits for it
    gate.set()
    qtbot.waitUntil(lambda: file.fd == -1)
    qtbot.wait(50)
    assert results == []


def test_a_late_result_holding_a_qt_object_is_freed_on_the_gui_thread(
    qtbot: QtBot, qapp: QApplication, tmp_path: Path
) -> None:
    # A document built on a worker and handed to the GUI thread, as the
    # Markdown preview's are: if the preview closed meanwhile, Qt must not see
    # it destroyed on the worker, where it no longer lives.
    path = tmp_path / "a.txt"
    path.write_text("text\n")
    file = open_verified(str(path))
    preview = CodePreviewWidget(PreviewSource.from_file(str(path), file), file)
    qtbot.addWidget(preview)
    started, gate = threading.Event(), threading.Event()
    destroyed_on: list[str] = []

    def job(opened: object, cancelled: threading.Event) -> tuple[QTextDocument]:
        started.set()
        document = QTextDocument()
        document.destroyed.connect(
            lambda *_: destroyed_on.append(threading.current_thread().name),
            Qt.ConnectionType.DirectConnection,
        )
        document.moveToThread(qapp.thread())
        gate.wait(5)
        return (document,)

    preview.run_in_background(job, lambda _result: None)
    assert started.wait(5)
    preview.release()
    gate.set()
    qtbot.waitUntil(lambda: destroyed_on != [])
    assert destroyed_on == [threading.main_thread().name]


class _BrokenPreviewWidget(PreviewWidget):
    """Its load always fails, as a disk error would."""

    def __init__(self, source: PreviewSource, file: VerifiedFile) -> None:
        super().__init__(source, file)
        self.run_in_background(self._job, lambda _result: self.mark_loaded())

    @staticmethod
    def _job(opened: VerifiedFile, cancelled: threading.Event) -> None:
        raise OSError(5, "Input/output error")


def test_load_failure_is_reported_with_its_reason(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    file = open_verified(str(path))
    preview = _BrokenPreviewWidget(PreviewSource.from_file(str(path), file), file)
    qtbot.addWidget(preview)
    with qtbot.waitSignal(preview.failed) as blocker:
        pass
    assert blocker.args == ["Input/output error"]
    assert preview.message_text() == "Could not load a.txt: Input/output error"
    assert not preview.is_loaded()
    assert preview.is_settled()
    preview.release()


def test_refusal_and_failure_say_different_things(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    messages = []
    for outcome in ("refused", "failed"):
        file = open_verified(str(path))
        preview = PreviewWidget(PreviewSource.from_file(str(path), file), file)
        qtbot.addWidget(preview)
        if outcome == "refused":
            preview.mark_refused("it is larger than 64 MiB")
        else:
            preview.mark_failed("the data is corrupt")
        messages.append(preview.message_text())
        preview.release()
    assert messages == [
        "a.txt is not previewed here: it is larger than 64 MiB",
        "Could not load a.txt: the data is corrupt",
    ]


class _FailingPreviewWidget(PreviewWidget):
    """Its load raises whatever it is given."""

    def __init__(
        self, source: PreviewSource, file: VerifiedFile, error: BaseException
    ) -> None:
        super().__init__(source, file)

        def job(opened: VerifiedFile, cancelled: threading.Event) -> None:
            raise error

        self.run_in_background(job, lambda _result: self.mark_loaded())


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (TypeError("function takes at most 3 arguments (4 given)"), UNEXPECTED_FAILURE),
        (KeyError("Token.Punctuation.Indicator"), UNEXPECTED_FAILURE),
        (ValueError(""), UNEXPECTED_FAILURE),
        (MemoryError(), "there is not enough memory to show it"),
        (
            RecursionError("maximum recursion depth exceeded"),
            "it is nested too deeply to read",
        ),
        (
            ImageDataError("The PNG data is damaged or truncated"),
            "The PNG data is damaged or truncated",
        ),
    ],
)
def test_a_failed_job_reaches_the_user_as_a_sentence(
    qtbot: QtBot, tmp_path: Path, error: BaseException, reason: str
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    file = open_verified(str(path))
    preview = _FailingPreviewWidget(
        PreviewSource.from_file(str(path), file), file, error
    )
    qtbot.addWidget(preview)
    with qtbot.waitSignal(preview.failed) as blocker:
        pass
    assert blocker.args == [reason]
    assert type(error).__name__ not in preview.message_text()
    preview.release()


def _until_cancelled(opened: object, cancelled: threading.Event) -> str:
    cancelled.wait(120)  # a job that ends only when asked to (or a hang guard)
    return "finished"


def test_quitting_cancels_every_job_and_none_delivers(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("text\n")
    results: list[object] = []
    previews = []
    for _ in range(2):
        file = open_verified(str(path))
        preview = CodePreviewWidget(PreviewSource.from_file(str(path), file), file)
        qtbot.addWidget(preview)
        preview.run_in_background(_until_cancelled, results.append)
        previews.append((preview, file))
    cancel_all_jobs()
    for preview, file in previews:
        preview.release()
        qtbot.waitUntil(lambda file=file: file.fd == -1, timeout=30000)
    qtbot.wait(50)
    assert results == []


QUIT_PROBE = """
import sys, threading
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from app.core.trust.safeio import open_verified
from previewers.source import PreviewSource
from previewers.text.widget import CodePreviewWidget
app = QApplication([])
file = open_verified(sys.argv[1])
preview = CodePreviewWidget(PreviewSource.from_file(sys.argv[1], file), file)
started = threading.Event()
def job(opened, cancelled):
    started.set()
    cancelled.wait(600)
    return "late"
for _ in range(4):  # more jobs than the pool has threads
    preview.run_in_background(job, print)
started.wait(30)
QTimer.singleShot(0, app.quit)
app.exec()
print("quit")
"""


def test_quitting_with_jobs_running_ends_cleanly(tmp_path: Path) -> None:
    # Jobs still running at quit are cancelled; the pool then lets the app end,
    # and none emits on a relay that is being deleted.
    path = tmp_path / "a.txt"
    path.write_text("text\n")
    result = subprocess.run(
        [sys.executable, "-c", QUIT_PROBE, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["quit"]
    assert "Error" not in result.stderr


def test_a_preview_with_background_work_keeps_the_gui_thread_s_turn_short(
    tmp_path: Path,
) -> None:
    # A fresh interpreter: Python lets a busy thread keep the lock 5 ms, and
    # the GUI thread waits that long at each call from Qt into Python.
    path = tmp_path / "a.txt"
    path.write_text("hello\n")
    script = f"""
import sys
from PySide6.QtWidgets import QApplication
from app.core.trust.safeio import open_verified
from previewers.source import PreviewSource
from previewers.text.widget import CodePreviewWidget
from previewers.widget import SWITCH_INTERVAL_S
app = QApplication([])
before = sys.getswitchinterval()
file = open_verified({str(path)!r})
preview = CodePreviewWidget(PreviewSource.from_file({str(path)!r}, file), file)
print(before, sys.getswitchinterval(), SWITCH_INTERVAL_S)
preview.release()
"""
    found = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=True,
    )
    before, after, wanted = (float(x) for x in found.stdout.split()[-3:])
    assert before == 0.005 and after == wanted <= 0.001
