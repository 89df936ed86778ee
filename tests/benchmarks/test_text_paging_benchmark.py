"""Benchmark of paged text on a generated 1 GiB log: first page, index, jumps."""

from __future__ import annotations

import random
import statistics
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from pygments import lex
from pygments.lexers import PythonLexer

from app.core.trust.safeio import open_verified
from app.formats.line_index import LineIndex
from app.formats.text_pages import PagedText
from tests.benchmarks.conftest import (
    log_block,
    need_commands,
    run_command,
    versus,
    write_repeated,
)

pytestmark = pytest.mark.benchmark

MIB = 1 << 20
ROUNDS = 3


@pytest.fixture(scope="module")
def big_log(
    tmp_path_factory: pytest.TempPathFactory, gib_log: Path
) -> Iterator[tuple[Path, Path, Path]]:
    folder = tmp_path_factory.mktemp("paging")
    block = log_block()
    files = folder / "small.log", folder / "medium.log"
    for path, size in zip(files, (MIB, 16 * MIB), strict=True):
        write_repeated(path, block, size)
    yield files[0], files[1], gib_log
    for path in files:
        path.unlink()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def first_page_time(path: Path) -> float:
    began = time.perf_counter()
    with open_verified(str(path)) as opened:
        PagedText(opened, path=str(path)).first_page()
    return time.perf_counter() - began


def test_first_page_by_file_size(
    big_log: tuple[Path, Path, Path], report: list[str]
) -> None:
    small, medium, large = big_log
    times: dict[Path, list[float]] = {small: [], medium: [], large: []}
    for _ in range(15):  # interleaved, so noise hits every size alike
        for path, samples in times.items():
            samples.append(first_page_time(path))
    small_median, medium_median, large_median = (
        statistics.median(samples) for samples in times.values()
    )
    report.append(
        f"text first page: 1 GiB {ms(large_median)} (target <= 50 ms), "
        f"1 MiB (whole file) {ms(small_median)}, ratio "
        f"{large_median / small_median:.2f} (target <= 1.5); "
        f"16 MiB (also one 2 MiB page) {ms(medium_median)}, ratio "
        f"{large_median / medium_median:.2f}"
    )


def test_index_time_memory_and_random_jumps(
    big_log: tuple[Path, Path, Path], report: list[str]
) -> None:
    need_commands("wc")
    large = big_log[2]
    with open_verified(str(large)) as opened:
        tracemalloc.start()
        began = time.perf_counter()
        LineIndex.build(opened, path=str(large))
        first_build = time.perf_counter() - began
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        builds, anchor = [], []
        for _ in range(ROUNDS):  # interleaved: noise on the machine hits both
            began = time.perf_counter()
            index = LineIndex.build(opened, path=str(large))
            builds.append(time.perf_counter() - began)
            elapsed, printed = run_command("wc", "-l", str(large))
            anchor.append(elapsed)
        # The generated file is cut mid-line: its last line has no line end.
        assert int(printed.split()[0]) + 1 == index.total_lines
        rng = random.Random(5)
        jumps = []
        for _ in range(200):
            line = rng.randrange(index.total_lines)
            began = time.perf_counter()
            index.offset_of_line(line)
            shown = index.lines(line, 50)
            jumps.append(time.perf_counter() - began)
            assert shown
    jumps.sort()
    report.append(
        f"text line index 1 GiB ({index.total_lines:,} lines): "
        f"first {first_build:.2f} s (traced); warm {versus(builds, anchor, 'wc -l')} "
        "(target <= 1.25x wc -l)"
    )
    report.append(
        f"text line index memory peak {peak / MIB:.2f} MiB (target <= 32 MiB)"
    )
    report.append(
        f"text go to line + 50 lines: p50 {ms(statistics.median(jumps))}, "
        f"p95 {ms(jumps[int(len(jumps) * 0.95) - 1])} (target <= 16 ms)"
    )


def test_highlighting_the_visible_window(report: list[str]) -> None:
    source = Path(__file__).read_text()
    window = "\n".join(source.splitlines()[:50])
    lexer = PythonLexer()
    highlight, baseline = [], []
    for _ in range(30):
        began = time.perf_counter()
        tokens = list(lex(window, lexer))
        highlight.append(time.perf_counter() - began)
        began = time.perf_counter()
        window.splitlines()
        baseline.append(time.perf_counter() - began)
    assert tokens
    median = statistics.median(highlight)
    report.append(
        f"pygments 50 visible lines: {ms(median)} (target <= 5 ms), "
        f"str.splitlines {ms(statistics.median(baseline))}, "
        f"ratio {median / statistics.median(baseline):.0f}"
    )
