"""Start to first painted window with the demo conversation, against bare Qt."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.benchmark

HEAVY = (
    "PySide6.QtWebEngineWidgets",
    "PySide6.QtMultimedia",
    "pymupdf",
    "langchain",
    "asyncssh",
    "app.importers",
)

# Each probe runs in a fresh interpreter and prints the seconds from interpreter
# start (the first line of the probe) to the first paint of its window.
APP_PROBE = """
import time; t0 = time.perf_counter()
import json, sys
from pathlib import Path
from PySide6.QtCore import QEvent, QObject, QTimer
from app.core.store import Store
from app.ui.application import create_application
from app.ui.main_window import MainWindow
data = Path(sys.argv[1])
app = create_application()
store = Store(data)
window = MainWindow(store, data)
window.refresh_conversations()
window.show_conversation(store.conversations()[-1].id)
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not hasattr(self, "t"):
            self.t = time.perf_counter() - t0
            QTimer.singleShot(0, app.quit)
        return False
probe = FirstPaint()
window.chat.viewport().installEventFilter(probe)
window.show()
app.exec()
heavy = [m for m in HEAVY if m in sys.modules]
print(json.dumps({"seconds": probe.t, "heavy": heavy}))
"""

BASELINE_PROBE = """
import time; t0 = time.perf_counter()
import json
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow
app = QApplication([])
window = QMainWindow()
window.setCentralWidget(QLabel("hello"))
window.resize(1440, 900)
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not hasattr(self, "t"):
            self.t = time.perf_counter() - t0
            QTimer.singleShot(0, app.quit)
        return False
probe = FirstPaint()
window.centralWidget().installEventFilter(probe)
window.show()
app.exec()
print(json.dumps({"seconds": probe.t, "heavy": []}))
"""


def _run(code: str, *args: str) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", f"HEAVY = {HEAVY!r}\n" + code, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_start_to_first_painted_window(tmp_path: Path, report: list[str]) -> None:
    data = tmp_path / "data"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from app.core.store import Store;"
            "from app.demo.conversation import play_demo;"
            "d = Path(sys.argv[1]); play_demo(Store(d), d / 'demo-workspace')",
            str(data),
        ],
        check=True,
        timeout=120,
    )
    app_runs = [_run(APP_PROBE, str(data)) for _ in range(3)]
    base_runs = [_run(BASELINE_PROBE) for _ in range(3)]
    app_s = statistics.median(r["seconds"] for r in app_runs)
    base_s = statistics.median(r["seconds"] for r in base_runs)
    report.append(f"start to first paint, demo conversation: {app_s * 1000:6.0f} ms")
    report.append(f"baseline bare QMainWindow:                {base_s * 1000:6.0f} ms")
    report.append(f"ratio app / bare Qt:                      {app_s / base_s:6.2f}")
    assert all(r["heavy"] == [] for r in app_runs), app_runs[0]["heavy"]
