"""The lines two texts share: right, minimal where no anchor cuts, and bounded."""

from __future__ import annotations

import random
import threading

import pytest

from app.core.changes.line_match import (
    CompareBudget,
    ComparisonCancelledError,
    TooLargeToCompareError,
    matching_blocks,
)


def longest_common(a: list[str], b: list[str]) -> int:
    """The length of the longest common subsequence, by the textbook table."""
    previous = [0] * (len(b) + 1)
    for line in a:
        current = [0]
        for j, other in enumerate(b):
            current.append(
                previous[j] + 1 if line == other else max(previous[j + 1], current[j])
            )
        previous = current
    return previous[-1]


def shared(a: list[str], b: list[str], blocks: list[tuple[int, int, int]]) -> int:
    """Checks the blocks as difflib defines them; returns the lines they match."""
    end_a = end_b = total = 0
    for i, j, size in blocks[:-1]:
        assert i >= end_a and j >= end_b and size > 0
        assert a[i : i + size] == b[j : j + size]
        assert (i, j) != (end_a, end_b) or total == 0  # adjacent runs are merged
        end_a, end_b, total = i + size, j + size, total + size
    assert blocks[-1] == (len(a), len(b), 0)
    return total


def test_small_edits_match_every_line_they_keep() -> None:
    before = [f"line {n}" for n in range(1, 21)]
    after = list(before)
    after[2] = "line three"
    after.insert(15, "new 15b")
    blocks = matching_blocks(before, after)
    assert blocks == [(0, 0, 2), (3, 3, 12), (15, 16, 5), (20, 21, 0)]


def test_repeated_lines_get_right_blocks_and_a_shortest_edit() -> None:
    chooser = random.Random(7)
    for _ in range(400):
        # Every line twice on its side: none anchors, the search does it all.
        a = [str(chooser.randint(0, 3)) for _ in range(chooser.randint(0, 15))] * 2
        b = [str(chooser.randint(0, 3)) for _ in range(chooser.randint(0, 15))] * 2
        assert shared(a, b, matching_blocks(a, b)) == longest_common(a, b)


def test_a_rewrite_with_no_common_line_is_matched_with_no_search() -> None:
    before = [f"old {n:x}" for n in range(100_000)]
    after = [f"new {n:x}" for n in range(100_000)]
    # Not one step of search is allowed: lines found on one side only are
    # set aside in a linear pass.
    blocks = matching_blocks(before, after, budget=CompareBudget(work=0))
    assert blocks == [(100_000, 100_000, 0)]


def test_unique_lines_anchor_scattered_changes_within_a_small_budget() -> None:
    before = [f"line {n} {n * 7919 % 10007}" for n in range(30_000)]
    after = [
        line + " changed" if n % 10 == 0 else line for n, line in enumerate(before)
    ]
    blocks = matching_blocks(before, after, budget=CompareBudget(work=20_000))
    assert shared(before, after, blocks) == 27_000


def test_a_shuffle_of_few_distinct_lines_is_given_up_at_the_budget() -> None:
    chooser = random.Random(1)
    words = [f"value {n}" for n in range(50)]
    before = [chooser.choice(words) for _ in range(20_000)]
    after = [chooser.choice(words) for _ in range(20_000)]
    with pytest.raises(TooLargeToCompareError, match="too many places"):
        matching_blocks(before, after, budget=CompareBudget(work=50_000))


def test_too_many_lines_are_refused_before_any_work() -> None:
    with pytest.raises(
        TooLargeToCompareError, match="3 lines; a diff compares at most 2"
    ):
        matching_blocks(["a", "b", "c"], ["a"], budget=CompareBudget(lines=2))


class _SetAfter(threading.Event):
    """An event that becomes set after it has been looked at ``times`` times."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.looks = 0
        self._times = times

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks > self._times


def test_a_cancel_stops_the_search_at_its_next_check() -> None:
    chooser = random.Random(2)
    before = [str(chooser.randint(0, 9)) for _ in range(20_000)]
    after = [str(chooser.randint(0, 9)) for _ in range(20_000)]
    cancelled = _SetAfter(5)
    with pytest.raises(ComparisonCancelledError):
        matching_blocks(before, after, cancelled=cancelled)
    assert cancelled.looks == 6
