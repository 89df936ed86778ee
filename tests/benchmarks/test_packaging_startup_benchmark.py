"""Start of the packaged (frozen) app against the virtualenv's, in the same run.

Finds the frozen app through ``DELIVERABLES_FROZEN``, an installed package
(``/opt/deliverables``) or the last ``packaging/build.py`` bundle, and skips
when there is none. Both open the demo conversation and save a screenshot
once it has loaded; the figure is the wall time from process start to exit.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.benchmark

ROOT = Path(__file__).resolve().parents[2]
RUNS = 3


def _frozen_app() -> Path | None:
    candidates = [
        os.environ.get("DELIVERABLES_FROZEN", ""),
        "/opt/deliverables/deliverables",
        str(ROOT / "build/packaging/stage/bundle/deliverables/deliverables"),
    ]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def _start_to_screenshot(command: list[str], data: Path, png: Path) -> float:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    png.unlink(missing_ok=True)
    started = time.perf_counter()
    result = subprocess.run(
        [*command, "open", "--data-dir", str(data), "--screenshot", str(png)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    seconds = time.perf_counter() - started
    assert result.returncode == 0, result.stderr[-2000:]
    assert png.is_file()
    return seconds


def test_packaged_app_start_against_the_virtualenv(
    tmp_path: Path, report: list[str]
) -> None:
    frozen = _frozen_app()
    if frozen is None:
        pytest.skip("no package built (python packaging/build.py) or installed")
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
    commands = {"packaged": [str(frozen)], "virtualenv": [sys.executable, "-m", "app"]}
    png = tmp_path / "start.png"
    for command in commands.values():  # one untimed start each fills the caches
        _start_to_screenshot(command, data, png)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(RUNS):  # interleaved, so both meet the same machine load
        for name, command in commands.items():
            times[name].append(_start_to_screenshot(command, data, png))
    packaged = statistics.median(times["packaged"])
    virtualenv = statistics.median(times["virtualenv"])
    report.append(f"packaged app: {frozen}")
    report.append(f"start to screenshot, packaged:   {packaged * 1000:6.0f} ms")
    report.append(f"start to screenshot, virtualenv: {virtualenv * 1000:6.0f} ms")
    report.append(f"ratio packaged / virtualenv:     {packaged / virtualenv:6.2f}")
