"""The "Changed files (N)" row: its words, its height, what a point on it hits."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QFont, QImage, QPainter, QPalette

from app.core.changes.change import Before, FileChange, Operation
from app.core.changes.index import ChangedFile, TurnChanges
from app.core.chat.blocks import ChangesBlock
from app.ui.chat.paint_changes import (
    FILE_ROW,
    MINUS,
    change_summary,
    changes_height,
    changes_title,
    diff_button_rect,
    hit_changes,
    paint_changes,
)
from app.ui.chat.style import TOOL_HEADER, Colours


def changed(
    index: int,
    path: str,
    operation: Operation,
    *,
    lines: tuple[int | None, int | None] = (None, None),
    counts: tuple[int | None, int | None] = (None, None),
    presented: bool = False,
) -> ChangedFile:
    last = FileChange(path, "/ws/" + path, operation.value, "write_file", "", "text")
    return ChangedFile(
        index=index,
        path=path,
        resolved="/ws/" + path,
        operation=operation,
        before=Before.TEXT,
        size_before=None,
        size_after=None,
        lines_before=lines[0],
        lines_after=lines[1],
        lines_added=counts[0],
        lines_removed=counts[1],
        sha256_after=None,
        presented=presented,
        trusted=True,
        imported=False,
        edits=1,
        first=(1, 0),
        last=last,
    )


FILES = (
    changed(0, "summary.md", Operation.CREATED, lines=(None, 3), presented=True),
    changed(1, "notes.md", Operation.MODIFIED, lines=(2, 4)),
    changed(2, "old.csv", Operation.DELETED, lines=(5, None)),
)
BLOCK = ChangesBlock(TurnChanges("c", 1, FILES, ()))
ROW = QRect(0, 100, 700, changes_height(BLOCK, True))


def test_each_change_says_what_happened_and_by_how_many_lines() -> None:
    assert changes_title(BLOCK) == "Changed files (3)"
    assert [change_summary(f) for f in FILES] == [
        "created, +3 \u22120",
        "modified, 2 \u2192 4 lines",
        "deleted, +0 \u22125",
    ]
    known = changed(0, "a.py", Operation.MODIFIED, lines=(2, 4), counts=(3, 1))
    assert change_summary(known) == f"modified, +3 {MINUS}1"
    assert change_summary(changed(0, "b", Operation.MODIFIED)) == "modified"
    one_line = changed(0, "c", Operation.MODIFIED, lines=(2, 1))
    assert change_summary(one_line) == "modified, 2 \u2192 1 line"


def test_collapsed_it_is_one_header_and_expanded_one_line_per_file() -> None:
    assert changes_height(BLOCK, False) == TOOL_HEADER + 6
    assert changes_height(BLOCK, True) == TOOL_HEADER + 3 * FILE_ROW + 12


def test_the_header_toggles_a_line_opens_and_diff_diffs() -> None:
    header = QPoint(200, ROW.top() + 15)
    assert hit_changes(ROW, BLOCK, False, header) == "toggle"
    assert hit_changes(ROW, BLOCK, True, header) == "toggle"
    line = QPoint(200, ROW.top() + 3 + TOOL_HEADER + FILE_ROW + FILE_ROW // 2)
    assert hit_changes(ROW, BLOCK, True, line) == "file:1"
    assert hit_changes(ROW, BLOCK, False, line) is None
    assert hit_changes(ROW, BLOCK, True, diff_button_rect(ROW, 1).center()) == "diff:1"
    # A deleted file has nothing after the turn to diff against; its line opens.
    deleted = diff_button_rect(ROW, 2).center()
    assert hit_changes(ROW, BLOCK, True, deleted) is None
    assert hit_changes(ROW, BLOCK, True, QPoint(5, ROW.top() + 15)) is None


def test_it_paints_collapsed_and_expanded_without_error(qapp: object) -> None:
    image = QImage(700, ROW.bottom() + 10, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    colours = Colours.of(QPalette())
    paint_changes(painter, ROW, BLOCK, False, colours, QFont(), None)
    paint_changes(painter, ROW, BLOCK, True, colours, QFont(), "diff:0")
    painter.end()
    inside = ROW.top() + 3 + TOOL_HEADER + FILE_ROW // 2
    assert image.pixelColor(diff_button_rect(ROW, 0).left() + 6, inside).alpha() > 0
