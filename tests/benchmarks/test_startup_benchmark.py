"""Start to first painted window, whole process, against a bare QMainWindow.

Each start is a fresh process spawned by the test: the app is the installed
``deliverables`` command opening the demo conversation, the anchor a bare
``QMainWindow`` in the same size; both save a PNG at their first paint
(``--first-paint``, ``app.ui.window.screenshot.screenshot_at_first_paint``) whose text
says when that paint was done. The figure is from just before the spawn to
then, so interpreter start, imports and compiling count, and the anchor is
measured the same way in the same rounds.

Two rows: the app as this environment runs it (with ``PYTHONDONTWRITEBYTECODE``
set, an editable checkout compiles its modules at every start), and with
bytecode for every module both processes load, written beforehand to a cache
folder of the test's own (``PYTHONPYCACHEPREFIX``), as a virtualenv has it from
its second start on, or a wheel install has it from pip. A packaged app, when
one is installed or built, is timed too.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from app.ui.window.screenshot import FIRST_PAINT_KEY

from .test_packaging_startup_benchmark import _frozen_app

pytestmark = pytest.mark.benchmark

ROUNDS = 5
HEAVY = (
    "PySide6.QtWebEngineWidgets",
    "PySide6.QtMultimedia",
    "pymupdf",
    "langchain",
    "asyncssh",
    "app.importers",
    "tree_sitter",
    "pygments.lexers",
)

BARE_WINDOW = """
import sys
from pathlib import Path
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow
from app.ui.window.screenshot import screenshot_at_first_paint
app = QApplication([])
window = QMainWindow()
window.setCentralWidget(QLabel("hello"))
window.resize(1440, 900)
screenshot_at_first_paint(window, Path(sys.argv[1]))
window.show()
sys.exit(app.exec())
"""

# Runs a command's main module and writes, at exit, the source of every module
# it loaded: what must be compiled for a start that compiles nothing.
LOADED_MODULES = """
import atexit, json, runpy, sys
out = sys.argv.pop(1)
def dump():
    files = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
    with open(out, "w") as handle:
        json.dump(sorted(f for f in files if f and f.endswith(".py")), handle)
atexit.register(dump)
if sys.argv[1] == "-c":
    code = sys.argv.pop(2)
    sys.argv.pop(1)
    exec(compile(code, "<probe>", "exec"), {"__name__": "__main__"})
else:
    runpy.run_module("app", run_name="__main__", alter_sys=True)
"""


def _environment(cache: Path | None) -> dict[str, str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    if cache is not None:
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def _first_paint_s(command: list[str], png: Path, cache: Path | None = None) -> float:
    """Seconds from spawning ``command`` to the end of its window's first paint."""
    png.unlink(missing_ok=True)
    spawned = time.time_ns()
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=_environment(cache),
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    painted = QImage(str(png)).text(FIRST_PAINT_KEY)
    assert painted, f"{png} has no {FIRST_PAINT_KEY}"
    return (int(painted) - spawned) / 1e9


def _compile_what_loads(args: list[str], cache: Path, listing: Path) -> None:
    """Bytecode in ``cache`` for every module a run of ``args`` loads."""
    subprocess.run(
        [sys.executable, "-c", LOADED_MODULES, str(listing), *args],
        capture_output=True,
        env=_environment(None),
        timeout=120,
        check=True,
    )
    files = json.loads(listing.read_text())
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *files],
        env=_environment(cache),
        timeout=300,
        check=True,
    )


def _heavy_modules(args: list[str], listing: Path) -> list[str]:
    subprocess.run(
        [sys.executable, "-c", LOADED_MODULES, str(listing), *args],
        capture_output=True,
        env=_environment(None),
        timeout=120,
        check=True,
    )
    loaded = json.loads(listing.read_text())
    return [
        name
        for name in HEAVY
        if any(f"/{name.replace('.', '/')}" in path for path in loaded)
    ]


def test_start_to_first_paint_whole_process(tmp_path: Path, report: list[str]) -> None:
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
    app_png, bare_png = tmp_path / "app.png", tmp_path / "bare.png"
    app_args = ["open", "--data-dir", str(data), "--screenshot", str(app_png)]
    app_args.append("--first-paint")
    installed = Path(sys.executable).with_name("deliverables")
    app_command = [str(installed) if installed.exists() else sys.executable]
    if not installed.exists():
        app_command += ["-m", "app"]
    app_command += app_args
    bare_command = [sys.executable, "-c", BARE_WINDOW, str(bare_png)]

    cache = tmp_path / "bytecode"
    _compile_what_loads(app_args, cache, tmp_path / "app.json")
    _compile_what_loads(["-c", BARE_WINDOW, str(bare_png)], cache, tmp_path / "b.json")
    heavy = _heavy_modules(app_args, tmp_path / "heavy.json")

    rows: dict[str, tuple[list[str], Path, Path | None]] = {
        "bare": (bare_command, bare_png, None),
        "app": (app_command, app_png, None),
        "bare, compiled": (bare_command, bare_png, cache),
        "app, compiled": (app_command, app_png, cache),
    }
    frozen = _frozen_app()
    if frozen is not None:
        rows["packaged app"] = ([str(frozen), *app_args], app_png, None)
    for run in rows.values():  # one untimed start each fills the caches
        _first_paint_s(*run)
    times: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(ROUNDS):  # interleaved, so all meet the same machine load
        for name, run in rows.items():
            times[name].append(_first_paint_s(*run))
    median = {name: statistics.median(found) for name, found in times.items()}

    def row(name: str, anchor: str) -> str:
        ratios = [a / b for a, b in zip(times[name], times[anchor], strict=True)]
        return (
            f"start to first paint, whole process, {name}: {median[name] * 1000:.0f} "
            f"ms; {anchor} {median[anchor] * 1000:.0f} ms; ratio of medians "
            f"{median[name] / median[anchor]:.2f}, median ratio "
            f"{statistics.median(ratios):.2f} (target <= 2; {ROUNDS} rounds)"
        )

    report.append(row("app", "bare"))
    report.append(row("app, compiled", "bare, compiled"))
    if frozen is not None:
        report.append(row("packaged app", "bare, compiled"))
    report.append(f"start-up loads none of {', '.join(HEAVY)}: {heavy or 'none'}")
    assert heavy == []
