"""Diffs as data: unified hunks and side-by-side rows between two texts, or why not.

The lines two texts share come from ``app.core.changes.line_match``, bounded in work
and cancellable; a diff past its budget, or with more changed lines than a
view can lay out, is a ``NoDiff`` that says so.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Literal

from app.core.changes.line_match import (
    Block,
    CompareBudget,
    ComparisonCancelledError,
    TooLargeToCompareError,
    matching_blocks,
)

CONTEXT_LINES: Final = 3
MAX_CHANGED_LINES: Final = 200_000
"""Removed plus added lines a diff may have: past it the view would hold
hundreds of megabytes of laid-out lines, so it says the diff is too large."""

LineKind = Literal["context", "added", "removed"]


class NoDiffReason(StrEnum):
    """Why a change shows no diff; each has a sentence in ``NoDiff.message``."""

    BINARY = "binary"
    TOO_LARGE = "too_large"
    CHANGED_SINCE = "changed_since"
    MISSING = "missing"
    NOT_RECORDED = "not_recorded"
    REFUSED = "refused"  # the revalidation refused the file (policy, link, trust)
    CANCELLED = "cancelled"  # the view closed while the diff was worked out


@dataclass(frozen=True)
class NoDiff:
    reason: NoDiffReason
    message: str


@dataclass(frozen=True)
class DiffLine:
    """One line of a hunk; numbers are 1-based, ``None`` where the side lacks it."""

    kind: LineKind
    old_number: int | None
    new_number: int | None
    text: str  # without its line end


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[DiffLine, ...]

    @property
    def header(self) -> str:
        return (
            f"@@ -{_range(self.old_start, self.old_count)}"
            f" +{_range(self.new_start, self.new_count)} @@"
        )


@dataclass(frozen=True)
class SideBySideRow:
    """One row of a two-column view: the old line left, the new line right."""

    old: DiffLine | None
    new: DiffLine | None


@dataclass(frozen=True)
class Diff:
    """The difference between the text before and after, as hunks."""

    path: str
    hunks: tuple[Hunk, ...]
    added: int
    removed: int

    @property
    def identical(self) -> bool:
        return not self.hunks

    def unified_text(self) -> str:
        """The diff in unified format, for copying or a plain view."""
        out = [f"--- a/{self.path}", f"+++ b/{self.path}"]
        marks = {"context": " ", "added": "+", "removed": "-"}
        for hunk in self.hunks:
            out.append(hunk.header)
            out.extend(marks[line.kind] + line.text for line in hunk.lines)
        return "\n".join(out) + "\n"

    def side_by_side(self) -> tuple[tuple[SideBySideRow, ...], ...]:
        """Each hunk as rows; removed and added runs are paired line by line."""
        return tuple(_pair(hunk.lines) for hunk in self.hunks)


def _range(start: int, count: int) -> str:
    return f"{start}" if count == 1 else f"{start},{count}"


def _split(text: str) -> list[str]:
    # splitlines would also split on form feeds and other separators that an
    # editor shows inside a line; only line ends split here.
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


class _Matched(difflib.SequenceMatcher[str]):
    """difflib's opcodes and hunk grouping over blocks found elsewhere.

    ``get_opcodes`` and ``get_grouped_opcodes`` work from
    ``get_matching_blocks`` alone; the blocks come from the bounded matcher
    instead of difflib's own search, which has no bound.
    """

    def __init__(self, blocks: Sequence[Block]) -> None:
        super().__init__(None, "", "", autojunk=False)
        self._blocks = [difflib.Match(*block) for block in blocks]

    def get_matching_blocks(self) -> list[difflib.Match]:
        return self._blocks


def diff_texts(
    path: str,
    before: str,
    after: str,
    context: int = CONTEXT_LINES,
    *,
    budget: CompareBudget | None = None,
    cancelled: threading.Event | None = None,
) -> Diff | NoDiff:
    """The diff from ``before`` to ``after``; ``path`` only labels it.

    Bounded in work by ``budget`` and stopped when ``cancelled`` is set: a
    ``NoDiff`` then says the texts are too large to compare, or that the
    comparison was stopped.
    """
    old, new = _split(before), _split(after)
    try:
        blocks = matching_blocks(old, new, budget=budget, cancelled=cancelled)
    except TooLargeToCompareError as error:
        return NoDiff(NoDiffReason.TOO_LARGE, f"it is too large to compare ({error})")
    except ComparisonCancelledError:
        return NoDiff(NoDiffReason.CANCELLED, "the comparison was stopped")
    same = sum(size for _i, _j, size in blocks)
    changed = len(old) + len(new) - 2 * same
    if changed > MAX_CHANGED_LINES:
        return NoDiff(
            NoDiffReason.TOO_LARGE,
            f"it is too large to compare ({changed:,} lines changed; a diff shows "
            f"at most {MAX_CHANGED_LINES:,})",
        )
    matcher = _Matched(blocks)
    hunks: list[Hunk] = []
    added = removed = 0
    for group in matcher.get_grouped_opcodes(context):
        lines: list[DiffLine] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(
                    DiffLine("context", i + 1, j + 1, old[i])
                    for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
                )
                continue
            lines.extend(
                DiffLine("removed", i + 1, None, old[i]) for i in range(i1, i2)
            )
            lines.extend(DiffLine("added", None, j + 1, new[j]) for j in range(j1, j2))
            removed += i2 - i1
            added += j2 - j1
        first, last = group[0], group[-1]
        old_count, new_count = last[2] - first[1], last[4] - first[3]
        hunks.append(
            Hunk(
                # An empty side starts at the line before it, as diff -u writes it.
                first[1] + (1 if old_count else 0),
                old_count,
                first[3] + (1 if new_count else 0),
                new_count,
                tuple(lines),
            )
        )
    return Diff(path, tuple(hunks), added, removed)


def _pair(lines: tuple[DiffLine, ...]) -> tuple[SideBySideRow, ...]:
    rows: list[SideBySideRow] = []
    removed: list[DiffLine] = []
    added: list[DiffLine] = []

    def flush() -> None:
        for index in range(max(len(removed), len(added))):
            rows.append(
                SideBySideRow(
                    removed[index] if index < len(removed) else None,
                    added[index] if index < len(added) else None,
                )
            )
        removed.clear()
        added.clear()

    for line in lines:
        if line.kind == "removed":
            if added:
                flush()
            removed.append(line)
        elif line.kind == "added":
            added.append(line)
        else:
            flush()
            rows.append(SideBySideRow(line, line))
    flush()
    return tuple(rows)
