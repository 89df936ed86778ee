"""Benchmark of find across a generated 1 GiB log, against grep on the same file."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.trust.safeio import open_verified
from app.formats.line_index import LineIndex
from tests.benchmarks.conftest import need_commands, run_command, versus

pytestmark = pytest.mark.benchmark

ROUNDS = 3
ABSENT = "Zq-not-in-the-log"
# At most once per line, so grep's count of lines is also a count of matches.
PRESENT = "Worker-3 Request"


@pytest.fixture(scope="module")
def index(gib_log: Path) -> Iterator[LineIndex]:
    need_commands("grep")
    with open_verified(str(gib_log)) as opened:
        yield LineIndex.build(opened, path=str(gib_log))


def timed_find(index: LineIndex, needle: str, case_sensitive: bool) -> float:
    began = time.perf_counter()
    assert index.find(needle, case_sensitive=case_sensitive) is None
    return time.perf_counter() - began


def test_find_with_no_match_against_grep(
    index: LineIndex, gib_log: Path, report: list[str]
) -> None:
    for case_sensitive, flags in ((False, "-ciF"), (True, "-cF")):
        ours, anchor = [], []
        for _ in range(ROUNDS):
            ours.append(timed_find(index, ABSENT, case_sensitive))
            elapsed, printed = run_command("grep", flags, ABSENT, str(gib_log))
            anchor.append(elapsed)
            assert printed.strip() == "0"
        kind = "case-sensitive" if case_sensitive else "ignoring case"
        target = "0.99x" if case_sensitive else "0.41x"
        report.append(
            f"find, no match, 1 GiB, {kind}: {versus(ours, anchor, f'grep {flags}')} "
            f"(target <= {target})"
        )


def test_match_count_against_grep(
    index: LineIndex, gib_log: Path, report: list[str]
) -> None:
    ours, anchor = [], []
    for _ in range(ROUNDS):
        began = time.perf_counter()
        count = index.count(PRESENT)
        ours.append(time.perf_counter() - began)
        elapsed, printed = run_command("grep", "-ciF", PRESENT, str(gib_log))
        anchor.append(elapsed)
        assert count == int(printed) > 0
    report.append(
        f"find, match count ({count:,}), 1 GiB, ignoring case: "
        f"{versus(ours, anchor, 'grep -ciF')} (target <= 0.29x)"
    )
