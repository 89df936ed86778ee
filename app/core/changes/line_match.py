"""The lines two texts share, found within a budget of work and cancellable.

``difflib.SequenceMatcher`` is O(n·m) on lines that repeat (a file of a few
dozen distinct lines, shuffled, took minutes at 1 MiB), and one of its calls
cannot be interrupted. This matcher bounds its work instead:

1. lines become small integers; the common head and tail are set aside;
2. lines found on one side only can match nothing and are set aside too, so
   a rewrite with no common line costs one linear pass;
3. lines found exactly once on each side anchor the rest (their longest
   increasing run, as "patience diff" does), cutting the problem into gaps;
4. each gap is matched with Myers' O(ND) algorithm, every step counted
   against one work budget shared by all gaps.

Past the budget, the time limit, or ``cancelled``, it stops with an exception
(``TooLargeToCompareError`` or ``ComparisonCancelledError``), never a partial answer.
"""

from __future__ import annotations

import threading
import time
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

MAX_LINES: Final = 200_000
"""Lines a side may have to be compared at all."""
MAX_WORK: Final = 2_000_000
"""Steps (diagonals tried plus lines followed along them) one comparison may
take: one to two seconds of one core, and at most 8 MB of search trace."""
MAX_SECONDS: Final = 10.0
"""A backstop for slow machines: the work budget ends sooner here."""


@dataclass(frozen=True)
class CompareBudget:
    """How much a comparison may cost; past it, it gives up and says so."""

    lines: int = MAX_LINES
    work: int = MAX_WORK
    seconds: float = MAX_SECONDS


class TooLargeToCompareError(Exception):
    """The comparison was refused or stopped at its budget; the message says which."""


class ComparisonCancelledError(Exception):
    """The comparison was cancelled (its view closed) before it finished."""


# Long runs along the diagonals are counted (and the cancel flag read) at
# least this often, not only once per edit step.
_CHECK_EVERY: Final = 1 << 16

Block = tuple[int, int, int]
"""Lines ``a[i:i+size]`` equal ``b[j:j+size]``: ``(i, j, size)``."""


class _Meter:
    """The work done so far, the clock and the cancel flag, checked together."""

    def __init__(
        self, budget: CompareBudget, cancelled: threading.Event | None
    ) -> None:
        self.budget = budget
        self.cancelled = cancelled
        self.left = budget.work
        self.deadline = time.monotonic() + budget.seconds

    def spend(self, steps: int) -> None:
        self.left -= steps
        if self.cancelled is not None and self.cancelled.is_set():
            raise ComparisonCancelledError
        if self.left < 0:
            raise TooLargeToCompareError(
                "the versions differ in too many places to work out"
            )
        if time.monotonic() > self.deadline:
            raise TooLargeToCompareError(
                f"working it out took over {self.budget.seconds:g} seconds"
            )


def matching_blocks(
    a: Sequence[str],
    b: Sequence[str],
    *,
    budget: CompareBudget | None = None,
    cancelled: threading.Event | None = None,
) -> list[Block]:
    """The runs of lines ``a`` and ``b`` share, in order, as ``difflib`` gives them.

    Ends with the ``(len(a), len(b), 0)`` sentinel. Raises
    ``TooLargeToCompareError`` or ``ComparisonCancelledError``.
    """
    budget = budget or CompareBudget()
    longest = max(len(a), len(b))
    if longest > budget.lines:
        raise TooLargeToCompareError(
            f"{longest:,} lines; a diff compares at most {budget.lines:,}"
        )
    meter = _Meter(budget, cancelled)
    codes: dict[str, int] = {}
    old = [codes.setdefault(line, len(codes)) for line in a]
    new = [codes.setdefault(line, len(codes)) for line in b]
    meter.spend(0)
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    pairs = _middle(old[head : len(old) - tail], new[head : len(new) - tail], meter)
    found = [(head + i, head + j) for i, j in pairs]
    blocks: list[Block] = [(0, 0, head)] if head else []
    for i, j in found:
        if (
            blocks
            and blocks[-1][0] + blocks[-1][2] == i
            and (blocks[-1][1] + blocks[-1][2] == j)
        ):
            start_i, start_j, size = blocks[-1]
            blocks[-1] = (start_i, start_j, size + 1)
        else:
            blocks.append((i, j, 1))
    if tail:
        start = (len(old) - tail, len(new) - tail)
        if (
            blocks
            and blocks[-1][0] + blocks[-1][2] == start[0]
            and (blocks[-1][1] + blocks[-1][2] == start[1])
        ):
            blocks[-1] = (blocks[-1][0], blocks[-1][1], blocks[-1][2] + tail)
        else:
            blocks.append((*start, tail))
    blocks.append((len(a), len(b), 0))
    return blocks


def _middle(a: list[int], b: list[int], meter: _Meter) -> list[tuple[int, int]]:
    """The matched ``(i, j)`` pairs of ``a`` and ``b``, in order."""
    in_a, in_b = Counter(a), Counter(b)
    # A line on one side only matches nothing: set it aside.
    keep_a = [i for i, code in enumerate(a) if code in in_b]
    keep_b = [j for j, code in enumerate(b) if code in in_a]
    meter.spend(0)  # linear passes are bounded by the line limit, not counted
    if not keep_a or not keep_b:
        return []
    short_a = [a[i] for i in keep_a]
    short_b = [b[j] for j in keep_b]
    pairs: list[tuple[int, int]] = []
    start_a = start_b = 0
    for anchor_a, anchor_b in [*_anchors(short_a, short_b, in_a, in_b), (-1, -1)]:
        end_a = len(short_a) if anchor_a < 0 else anchor_a
        end_b = len(short_b) if anchor_b < 0 else anchor_b
        gap = _myers(short_a[start_a:end_a], short_b[start_b:end_b], meter)
        pairs.extend((start_a + i, start_b + j) for i, j in gap)
        if anchor_a >= 0:
            pairs.append((anchor_a, anchor_b))
        start_a, start_b = end_a + 1, end_b + 1
    return [(keep_a[i], keep_b[j]) for i, j in pairs]


def _anchors(
    a: list[int], b: list[int], in_a: Counter[int], in_b: Counter[int]
) -> list[tuple[int, int]]:
    """Lines found once on each side, as the longest run in order on both."""
    where_b = {code: j for j, code in enumerate(b) if in_a[code] == 1 == in_b[code]}
    unique = [(i, where_b[code]) for i, code in enumerate(a) if code in where_b]
    # Patience sorting: the longest increasing run of b positions.
    tops: list[int] = []
    top_index: list[int] = []
    back = [-1] * len(unique)
    for index, (_i, j) in enumerate(unique):
        pile = bisect_left(tops, j)
        if pile == len(tops):
            tops.append(j)
            top_index.append(index)
        else:
            tops[pile] = j
            top_index[pile] = index
        back[index] = top_index[pile - 1] if pile else -1
    run: list[tuple[int, int]] = []
    index = top_index[-1] if top_index else -1
    while index >= 0:
        run.append(unique[index])
        index = back[index]
    run.reverse()
    return run


def _myers(a: list[int], b: list[int], meter: _Meter) -> list[tuple[int, int]]:
    """A shortest edit between ``a`` and ``b`` (Myers 1986), as matched pairs."""
    n, m = len(a), len(b)
    if not n or not m:
        return []
    offset = n + m
    reach = [0] * (2 * offset + 2)
    trace: list[array[int]] = []
    for d in range(offset + 1):
        trace.append(array("i", reach[offset - d : offset + d + 1]))
        steps = d + 1
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and reach[offset + k - 1] < reach[offset + k + 1]):
                x = reach[offset + k + 1]  # a line of b inserted
            else:
                x = reach[offset + k - 1] + 1  # a line of a removed
            y = x - k
            start = x
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            steps += x - start
            reach[offset + k] = x
            if x >= n and y >= m:
                return _path(a, b, trace, d)
            if steps > _CHECK_EVERY:
                meter.spend(steps)
                steps = 0
        meter.spend(steps)
    raise AssertionError("an edit script always exists")


def _path(
    a: list[int], b: list[int], trace: list[array[int]], d: int
) -> list[tuple[int, int]]:
    """The matched pairs along the edit of ``d`` steps that ends at the end."""
    pairs: list[tuple[int, int]] = []
    x, y = len(a), len(b)
    for step in range(d, 0, -1):
        # How far each diagonal reached before this step: diagonal q at q + step.
        row = trace[step]
        k = x - y
        if k == -step or (k != step and row[k - 1 + step] < row[k + 1 + step]):
            start_x = row[k + 1 + step]  # came down: a line of b inserted
            start_y = start_x - (k + 1)
            mid_x, mid_y = start_x, start_y + 1
        else:
            start_x = row[k - 1 + step]  # came right: a line of a removed
            start_y = start_x - (k - 1)
            mid_x, mid_y = start_x + 1, start_y
        while x > mid_x and y > mid_y:
            x, y = x - 1, y - 1
            pairs.append((x, y))
        x, y = start_x, start_y
    while x > 0 and y > 0:
        x, y = x - 1, y - 1
        pairs.append((x, y))
    pairs.reverse()
    return pairs
