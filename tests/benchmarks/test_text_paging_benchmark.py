"""Benchmark of paged text on a generated 1 GiB log: first page, index, jumps."""

from __future__ import annotations

import random
import shutil
import statistics
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from pygments import lex
from pygments.lexers import PythonLexer

from app.core.safeio import open_verified
from app.formats.line_index import LineIndex
from app.formats.text_pages import PagedText

pytestmark = pytest.mark.benchmark

GIB = 1 << 30
MIB = 1 << 20
LEVELS = ("DEBUG", "INFO", "INFO", "INFO", "WARNING", "ERROR")


def log_block(seed: int = 1) -> bytes:
    """About 1 MiB of log lines of varied length."""
    rng = random.Random(seed)
    lines: list[str] = []
    size = 0
    while size < MIB:
        words = " ".join(
            f"item{rng.randint(0, 9_999)}" for _ in range(rng.randint(1, 30))
        )
        line = (
            f"2025-05-{rng.randint(1, 28):02d}T12:{rng.randint(0, 59):02d}:"
            f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z "
            f"{rng.choice(LEVELS):7} worker-{rng.randint(1, 8)} request done: {words}\n"
        )
        lines.append(line)
        size += len(line)
    return "".join(lines).encode()


def write_repeated(path: Path, block: bytes, total: int) -> None:
    chunk = block * max(1, (16 * MIB) // len(block))
    with open(path, "wb") as out:
        written = 0
        while written < total:
            written += out.write(chunk[: total - written])


@pytest.fixture(scope="module")
def big_log(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, Path, Path]]:
    folder = tmp_path_factory.mktemp("paging")
    if shutil.disk_usage(folder).free < 3 * GIB:
        pytest.skip("needs 3 GiB of free disk for the generated log")
    block = log_block()
    files = folder / "small.log", folder / "medium.log", folder / "large.log"
    for path, size in zip(files, (MIB, 16 * MIB, GIB), strict=True):
        write_repeated(path, block, size)
    yield files
    for path in files:
        path.unlink()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def first_page_time(path: Path) -> float:
    began = time.perf_counter()
    with open_verified(str(path)) as opened:
        PagedText(opened, path=str(path)).first_page()
    return time.perf_counter() - began


def test_first_page_does_not_grow_with_file_size(
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
    large = big_log[2]
    with open_verified(str(large)) as opened:
        tracemalloc.start()
        began = time.perf_counter()
        LineIndex.build(opened, path=str(large))
        first_build = time.perf_counter() - began
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        began = time.perf_counter()
        index = LineIndex.build(opened, path=str(large))
        warm_build = time.perf_counter() - began
        baseline_began = time.perf_counter()
        count = sum(chunk.count(b"\n") for chunk in opened.chunks())
        baseline = time.perf_counter() - baseline_began
        # The generated file is cut mid-line: its last line has no line end.
        assert count + 1 == index.total_lines
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
        f"first {first_build:.2f} s (traced), warm {warm_build:.2f} s "
        "(target <= 1 s); plain newline count "
        f"{baseline:.2f} s, ratio {warm_build / baseline:.2f}"
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
