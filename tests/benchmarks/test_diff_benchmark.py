"""Benchmark: what a diff costs on the worst rewrites, bounded against unbounded."""

from __future__ import annotations

import difflib
import random
import time

import pytest

from app.core.changes.diffs import Diff, NoDiff, NoDiffReason, diff_texts

MIB = 1 << 20


def _rows(seed: int, size: int, distinct: int | None) -> str:
    """``size`` bytes of CSV rows: ``distinct`` different rows shuffled, or unique."""
    chooser = random.Random(seed)
    kinds = [
        f"{region},{n:03d},{n * 37 % 1000}" for n, region in enumerate("NSEW" * 30)
    ]
    lines: list[str] = []
    total = 0
    while total < size:
        if distinct is None:
            line = f"{chooser.getrandbits(64):016x},{chooser.getrandbits(32):08x}\n"
        else:
            line = kinds[chooser.randrange(distinct)] + "\n"
        lines.append(line)
        total += len(line)
    return "".join(lines)


def _timed(run: object) -> tuple[float, object]:
    start = time.perf_counter()
    result = run()  # type: ignore[operator]
    return time.perf_counter() - start, result


@pytest.mark.benchmark
def test_a_diff_bomb_against_linear_diffs_figures(
    report: list[str],
) -> None:
    # The anchor: a 1 MiB rewrite with no common line, which is linear work.
    plain_before, plain_after = _rows(1, MIB, None), _rows(2, MIB, None)
    linear, found = _timed(lambda: diff_texts("ids.txt", plain_before, plain_after))
    assert isinstance(found, Diff) and found.removed > 0

    bomb_before, bomb_after = _rows(3, MIB, 60), _rows(4, MIB, 60)
    bounded, refused = _timed(lambda: diff_texts("sales.csv", bomb_before, bomb_after))
    assert isinstance(refused, NoDiff) and refused.reason is NoDiffReason.TOO_LARGE

    # The unbounded matcher, on a sixteenth of the same rewrite: it grows with
    # the product of the two line counts, so the whole would take ~256 times.
    sample = MIB // 16
    small_before, small_after = bomb_before[:sample], bomb_after[:sample]
    unbounded, _ = _timed(
        lambda: difflib.SequenceMatcher(
            None, small_before.splitlines(), small_after.splitlines(), autojunk=False
        ).get_opcodes()
    )
    report.append(
        f"diff of a 1 MiB rewrite of 60 distinct rows: gives up after {bounded:.2f} s "
        f"= {bounded / linear:.1f}x a 1 MiB no-common-line diff ({linear:.2f} s); "
        f"difflib took {unbounded:.2f} s on 1/16 of it (~{unbounded * 256:.0f} s "
        "for the whole at n*m)"
    )
