"""A turn's "Changed files (N)" in the real window: expanded, opened, diffed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from app.agent.models import RecordingChatModel
from app.agent.runner import AgentRunner
from app.agent.tools import AgentSession
from app.core.chat.blocks import ChangesBlock
from app.core.store import Store
from app.ui.chat.model import ExpandedRole
from app.ui.chat.paint_changes import FILE_ROW, diff_button_rect
from app.ui.chat.style import TOOL_HEADER
from app.ui.window.main_window import MainWindow

from ..app.agent.scripts import answer, present
from .test_change_index import (
    NOTES_V1,
    NOTES_V2,
    ORIGINAL_NOTES,
    SUMMARY,
    run_edit_turn,
    write,
)

SHOTS = os.environ.get("DELIVERABLES_SHOTS")


@pytest.fixture
def window(qtbot: QtBot, store: Store, tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(win)
    win.resize(1280, 860)
    yield win
    win.close()


def shown(qtbot: QtBot, win: MainWindow, conversation_id: str) -> None:
    win.refresh_conversations()
    win.show_conversation(conversation_id)
    win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(win.is_loaded, timeout=10_000)


def changes_row(win: MainWindow) -> int:
    model = win.chat.chat_model()
    rows = [
        row
        for row in range(model.rowCount())
        if isinstance(model.block(row), ChangesBlock)
    ]
    assert len(rows) == 1
    return rows[0]


def row_rect(win: MainWindow, row: int):  # type: ignore[no-untyped-def]
    index = win.chat.chat_model().index(row)
    win.chat.scrollTo(index)
    return win.chat.visualRect(index)


def click(qtbot: QtBot, win: MainWindow, point: QPoint) -> None:
    qtbot.mouseClick(win.chat.viewport(), Qt.MouseButton.LeftButton, pos=point)


def file_point(win: MainWindow, row: int, index: int) -> QPoint:
    rect = row_rect(win, row)
    top = rect.top() + 3 + TOOL_HEADER + index * FILE_ROW
    return QPoint(rect.left() + rect.width() // 3, top + FILE_ROW // 2)


def diff_shown(qtbot: QtBot, win: MainWindow, row: int, index: int) -> list[str]:
    """Click "Diff" of file ``index`` and return the unified diff's lines."""
    point = diff_button_rect(row_rect(win, row), index).center()
    before = getattr(win, "diff_dialog", None)
    click(qtbot, win, point)
    dialog = win.diff_dialog
    assert dialog is not before and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.view.layout_shown is not None, timeout=10_000)
    lines: list[str] = dialog.view.unified.toPlainText().splitlines()
    dialog.close()
    return lines


def test_a_turn_that_edits_three_files_shows_changed_files_3_with_working_diffs(
    qtbot: QtBot,
    window: MainWindow,
    store: Store,
    session: AgentSession,
    workspace: Path,
) -> None:
    from previewers.markdown.widget import MarkdownPreviewWidget

    cid, _ = run_edit_turn(store, session, workspace)
    shown(qtbot, window, cid)
    model = window.chat.chat_model()
    row = changes_row(window)
    index = model.index(row)
    block = model.block(row)
    assert isinstance(block, ChangesBlock)
    # After the answer and the card for the presented file, before the turn actions.
    assert index.data(Qt.ItemDataRole.DisplayRole) == "Changed files (3)"
    assert type(model.block(row - 1)).__name__ == "DeliverableBlock"
    assert type(model.block(row + 1)).__name__ == "TurnActionsBlock"
    assert [(f.path, f.presented) for f in block.changes.files] == [
        ("summary.md", True),
        ("notes.md", False),
        ("charts/data.csv", False),
    ]
    assert not index.data(ExpandedRole)
    collapsed = row_rect(window, row).height()

    click(qtbot, window, row_rect(window, row).topLeft() + QPoint(60, 15))
    assert index.data(ExpandedRole)
    qtbot.waitUntil(lambda: row_rect(window, row).height() > collapsed + 2 * FILE_ROW)
    if SHOTS:
        window.chat.grab().save(os.path.join(SHOTS, "changed-files.png"))

    notes = diff_shown(qtbot, window, row, 1)
    assert notes[0] == "@@ -1,2 +1,2 @@"
    assert any("kept-before-the-turn" in line for line in notes)
    assert any("second edit" in line for line in notes)
    summary = diff_shown(qtbot, window, row, 0)
    assert any("Three files changed." in line for line in summary)
    data = diff_shown(qtbot, window, row, 2)
    assert any("1,2" in line for line in data)

    # A click on a file opens it as a card's Open does.
    click(qtbot, window, file_point(window, row, 0))
    qtbot.waitUntil(window.workspace.is_loaded, timeout=10_000)
    assert isinstance(window.workspace.current_preview(), MarkdownPreviewWidget)

    # A file changed after the turn still opens, and says so.
    (workspace / "notes.md").write_text("# Notes\nedited by hand later\n")
    click(qtbot, window, file_point(window, row, 1))
    qtbot.waitUntil(window.workspace.is_loaded, timeout=10_000)
    assert "notes.md changed after the turn" in window.notice_bar.text()
    assert window.workspace.tab_count() == 2

    # A deleted one is refused with the reason.
    (workspace / "charts" / "data.csv").unlink()
    click(qtbot, window, file_point(window, row, 2))
    assert window.notice_bar.text() == (
        "Can't open charts/data.csv: the file no longer exists"
    )

    click(qtbot, window, row_rect(window, row).topLeft() + QPoint(60, 15))
    assert not index.data(ExpandedRole)


def test_a_live_run_shows_the_same_row_as_the_stored_turn(
    qtbot: QtBot,
    window: MainWindow,
    store: Store,
    session: AgentSession,
    workspace: Path,
) -> None:
    (workspace / "notes.md").write_text(ORIGINAL_NOTES)
    model = RecordingChatModel(
        replies=[
            write("w1", "summary.md", SUMMARY),
            write("w2", "notes.md", NOTES_V1),
            write("w4", "notes.md", NOTES_V2),
            present("p1", "summary.md"),
            answer("Done."),
        ]
    )
    conversation = store.create_conversation("live", str(workspace))
    shown(qtbot, window, conversation.id)
    runner = AgentRunner(store, conversation.id, model, session)

    runner.run("Write the files", window.chat.apply_event)

    live = window.chat.chat_model().block(changes_row(window))
    window.show_conversation(conversation.id)
    stored = window.chat.chat_model().block(changes_row(window))
    assert isinstance(live, ChangesBlock) and isinstance(stored, ChangesBlock)
    assert live.changes.count == 2
    assert live.changes == stored.changes
