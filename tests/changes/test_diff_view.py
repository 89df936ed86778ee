"""The diff view: a real change's diff, unified and side by side, or why not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QColor, QGuiApplication
from pytestqt.qtbot import QtBot

from app.agent.tools import AgentSession
from app.core.changes.change_diff import change_diff
from app.core.changes.diffs import Diff, NoDiff, NoDiffReason, diff_texts
from app.core.store import Store
from app.ui.changes.diff_view import DiffView, lay_out

from .test_change_index import by_name, first_turn, run_edit_turn

BEFORE = "def area(w, h):\n    return w * h\n\n\nprint(area(2, 3))\n"
AFTER = BEFORE.replace("):\n", "):\n    if w < 0:\n        raise ValueError(w)\n", 1)


def shown(qtbot: QtBot, view: DiffView, compute: object) -> None:
    with qtbot.waitSignal(view.ready, timeout=10_000):
        view.load(compute)  # type: ignore[arg-type]


def background_of(column: Any, line: int) -> QColor | None:
    found: QColor | None = column.colours.background(line)
    return found


def painted_at_right_edge(column: Any, line: int) -> QColor:
    """The colour painted near the right edge of line ``line``'s row."""
    block = column.document().findBlockByNumber(line)
    rect = column.blockBoundingGeometry(block).translated(column.contentOffset())
    image = column.viewport().grab().toImage()
    return image.pixelColor(image.width() - 4, int(rect.center().y()))


def test_a_real_turns_change_shows_its_diff_off_the_gui_thread(
    qtbot: QtBot, store: Store, session: AgentSession, workspace: Path
) -> None:
    cid, _ = run_edit_turn(store, session, workspace)
    index = first_turn(store, cid)
    ref = index.ref(by_name(index)["notes.md"])
    view = DiffView("notes.md")
    qtbot.addWidget(view)

    shown(qtbot, view, lambda _cancelled: change_diff(store, ref, session.policy()))

    text = view.unified.toPlainText().splitlines()
    assert text[0] == "@@ -1,2 +1,2 @@"
    assert view.layout_shown is not None
    rows = view.layout_shown.unified[1:]
    assert [(row.kind, row.text[row.gutter :]) for row in rows] == [
        ("context", "# Notes"),
        ("removed", "kept-before-the-turn 7f3a"),
        ("added", "second edit"),
    ]
    assert text[1:] == [row.text for row in rows]
    assert text[2].split() == ["2", "-", "kept-before-the-turn", "7f3a"]
    assert "+1 \u22121 lines" in view.summary.text()
    assert view.copy_button.isEnabled()
    view.copy_button.click()
    assert (
        QGuiApplication.clipboard().text().startswith("--- a/notes.md\n+++ b/notes.md")
    )


def test_side_by_side_pairs_old_and_new_lines_and_scrolls_together(
    qtbot: QtBot,
) -> None:
    long_before = "".join(f"line {n}\n" for n in range(400))
    long_after = "".join(
        "line two hundred\n" if n == 200 else f"LINE {n}\n" if n % 3 else f"line {n}\n"
        for n in range(400)
    )
    view = DiffView("log.txt")
    qtbot.addWidget(view)
    view.resize(800, 300)
    view.show()
    shown(qtbot, view, lambda _stop: diff_texts("log.txt", long_before, long_after))

    view.side_button.click()
    assert view.mode == "side_by_side" and view.stack.currentIndex() == 1
    left = view.left.toPlainText().splitlines()
    right = view.right.toPlainText().splitlines()
    assert len(left) == len(right)
    changed = next(n for n, line in enumerate(left) if line.endswith("line 200"))
    assert right[changed].endswith("line two hundred")
    assert background_of(view.left, changed) != background_of(view.right, changed)
    qtbot.waitUntil(lambda: view.right.verticalScrollBar().maximum() > 3)
    view.left.verticalScrollBar().setValue(3)
    assert view.right.verticalScrollBar().value() == 3


def test_lines_are_coloured_by_kind_and_code_by_its_language(qtbot: QtBot) -> None:
    view = DiffView("shapes.py")
    qtbot.addWidget(view)
    shown(qtbot, view, lambda _cancelled: diff_texts("shapes.py", BEFORE, AFTER))

    lines = view.layout_shown.unified if view.layout_shown else ()
    kinds = [line.kind for line in lines]
    assert kinds.count("added") == 2 and kinds.count("removed") == 0
    added = kinds.index("added")
    context = kinds.index("context")
    assert background_of(view.unified, context) is None
    assert background_of(view.unified, added) is not None
    view.resize(900, 400)
    view.show()
    qtbot.waitExposed(view)
    # The added line's colour spans the whole width, not just its text.
    assert painted_at_right_edge(view.unified, added) == background_of(
        view.unified, added
    )
    assert painted_at_right_edge(view.unified, context) != background_of(
        view.unified, added
    )
    # "if" and "raise" are keywords: the file's own lexer coloured them.
    assert any(
        text == "if" or "Keyword" in str(token)
        for start, length, token in lines[added].spans
        for text in [lines[added].text[lines[added].gutter + start :][:length]]
    )


def test_no_diff_says_why_and_a_failure_is_a_sentence(qtbot: QtBot) -> None:
    view = DiffView("big.log")
    qtbot.addWidget(view)
    shown(
        qtbot,
        view,
        lambda _cancelled: NoDiff(NoDiffReason.TOO_LARGE, "it is larger than 1 MiB"),
    )
    assert view.summary.text() == "No diff is shown: it is larger than 1 MiB."
    assert not view.copy_button.isEnabled() and view.stack.isHidden()

    def broken(_cancelled: object) -> Diff:
        raise OSError(5, "Input/output error")

    shown(qtbot, view, broken)
    assert view.summary.text().startswith(
        "No diff is shown: the diff could not be made"
    )
    assert "Traceback" not in view.summary.text()


def test_a_huge_diff_is_laid_out_with_colours_only_within_the_budget() -> None:
    before = "".join(f"value_{n} = {n}\n" for n in range(60_000))
    after = "".join(f"value_{n} = {n + 1}\n" for n in range(60_000))
    layout = lay_out(diff_texts("values.py", before, after))

    assert len(layout.unified) == 1 + 120_000
    coloured = sum(1 for line in layout.unified if line.spans)
    assert 0 < coloured < len(layout.unified)
