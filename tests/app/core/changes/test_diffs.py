"""Diffs as data: hunks agree with difflib's unified format; rows pair up."""

from __future__ import annotations

import difflib
import threading

import pytest

from app.core.changes.diffs import (
    MAX_CHANGED_LINES,
    NoDiff,
    NoDiffReason,
    SideBySideRow,
    diff_texts,
)
from app.core.changes.line_match import CompareBudget

BEFORE = "".join(f"line {n}\n" for n in range(1, 21))
AFTER = BEFORE.replace("line 3\n", "line three\n").replace(
    "line 15\n", "line 15\nnew 15b\n"
)


def reference(before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), "a/f.txt", "b/f.txt", lineterm=""
    )
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (BEFORE, AFTER),
        ("", "one\ntwo\nthree\n"),
        ("one\ntwo\n", ""),
        ("a\nb\nc\n", "a\nc\n"),
        ("x\n" * 3, "y\n" * 5),
    ],
)
def test_unified_text_matches_the_standard_unified_format(
    before: str, after: str
) -> None:
    diff = diff_texts("f.txt", before, after)
    assert diff.unified_text() == reference(before, after)


def test_hunks_count_lines_and_number_both_sides() -> None:
    diff = diff_texts("f.txt", BEFORE, AFTER)

    assert (diff.added, diff.removed) == (2, 1)
    assert len(diff.hunks) == 2
    first = diff.hunks[0]
    assert first.header == "@@ -1,6 +1,6 @@"
    changed = [line for line in first.lines if line.kind != "context"]
    assert [
        (line.kind, line.old_number, line.new_number, line.text) for line in changed
    ] == [
        ("removed", 3, None, "line 3"),
        ("added", None, 3, "line three"),
    ]


def test_side_by_side_pairs_a_replaced_line_and_leaves_an_added_one_alone() -> None:
    rows = diff_texts("f.txt", BEFORE, AFTER).side_by_side()
    replaced = [
        row for row in rows[0] if row.old is not None and row.old.kind != "context"
    ]
    added = [row for row in rows[1] if row.old is None]

    assert replaced[0].old is not None and replaced[0].new is not None
    assert (replaced[0].old.text, replaced[0].new.text) == ("line 3", "line three")
    assert len(added) == 1 and added[0].new is not None
    assert added[0].new.text == "new 15b"
    context = rows[0][0]
    assert context == SideBySideRow(context.old, context.old)


def test_identical_texts_have_no_hunks() -> None:
    diff = diff_texts("f.txt", BEFORE, BEFORE)
    assert diff.identical and (diff.added, diff.removed) == (0, 0)


def test_windows_line_ends_do_not_count_as_changes() -> None:
    assert diff_texts("f.txt", "a\nb\n", "a\r\nb\r\n").identical


def test_a_diff_past_its_budget_says_it_is_too_large_to_compare() -> None:
    before = "".join(f"value {n % 7}\n" for n in range(3000))
    after = "".join(f"value {n * 5 % 11}\n" for n in range(3000))
    found = diff_texts("f.txt", before, after, budget=CompareBudget(work=1000))
    assert isinstance(found, NoDiff) and found.reason is NoDiffReason.TOO_LARGE
    assert found.message == (
        "it is too large to compare "
        "(the versions differ in too many places to work out)"
    )


def test_a_cancelled_diff_stops_with_no_diff() -> None:
    cancelled = threading.Event()
    cancelled.set()
    found = diff_texts("f.txt", BEFORE, AFTER, cancelled=cancelled)
    assert isinstance(found, NoDiff) and found.reason is NoDiffReason.CANCELLED


def test_more_changed_lines_than_a_view_lays_out_are_refused() -> None:
    lines = MAX_CHANGED_LINES // 2 + 1
    before = "".join(f"a{n}\n" for n in range(lines))
    after = "".join(f"b{n}\n" for n in range(lines))
    found = diff_texts("f.txt", before, after)
    assert isinstance(found, NoDiff) and found.reason is NoDiffReason.TOO_LARGE
    assert f"{2 * lines:,} lines changed" in found.message
