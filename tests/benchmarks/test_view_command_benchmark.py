"""``view`` of a 1 GiB log against a 1 MiB one: the whole process, to the screenshot.

A person runs ``deliverables view FILE``; what they wait for is the window
with the file's first page on it. The command is timed from launch to exit
with ``--screenshot``, which is taken as soon as the workspace says it is
loaded. Past the first page, a big file costs only work the window does not
wait for (the line index, on a worker), so the two should take about as long.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.benchmarks.conftest import MIB, log_block, write_repeated

pytestmark = pytest.mark.benchmark

ROUNDS = 3


def _view(path: Path, data: Path, png: Path) -> float:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    began = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "view",
            str(path),
            "--data-dir",
            str(data),
            "--screenshot",
            str(png),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    elapsed = time.perf_counter() - began
    assert done.returncode == 0, done.stderr
    assert png.stat().st_size > 0
    png.unlink()
    return elapsed


def test_view_of_a_gib_log_against_a_mib_log(
    gib_log: Path, tmp_path: Path, report: list[str]
) -> None:
    small = tmp_path / "small.log"
    write_repeated(small, log_block(), MIB)
    data = tmp_path / "data"
    png = tmp_path / "view.png"
    _view(small, data, png)  # the interpreter's caches, for both alike
    big_s: list[float] = []
    small_s: list[float] = []
    for _ in range(ROUNDS):
        big_s.append(_view(gib_log, data, png))
        small_s.append(_view(small, data, png))
    ratios = [big / little for big, little in zip(big_s, small_s, strict=True)]
    report.append(
        f"view, whole process to the screenshot: 1 GiB log {min(big_s):.2f} s, "
        f"1 MiB log {min(small_s):.2f} s; ratio best {min(ratios):.2f}, "
        f"median {statistics.median(ratios):.2f} ({ROUNDS} rounds)"
    )
