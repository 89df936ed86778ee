"""Imported cards in the real window: "not verified", Verify's verdicts, actions."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.core.chat.blocks import ImportedFileBlock
from app.core.store import Store
from app.importers.session import import_transcript
from app.ui.chat.model import VerdictRole
from app.ui.chat.paint_imported import verify_button_rect
from app.ui.window.main_window import MainWindow

from .test_verify import claude_session, on_disk

SHOTS = os.environ.get("DELIVERABLES_SHOTS")


@pytest.fixture
def window(qtbot: QtBot, store: Store, tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(win)
    win.resize(1280, 900)
    yield win
    win.close()


def cards(win: MainWindow) -> dict[str, int]:
    model = win.chat.chat_model()
    return {
        block.file.path.rsplit("/", 1)[-1]: row
        for row, block in ((r, model.block(r)) for r in range(model.rowCount()))
        if isinstance(block, ImportedFileBlock)
    }


def message(win: MainWindow, row: int) -> str:
    state = win.chat.chat_model().index(row).data(VerdictRole)
    return str(state.message)


def click(qtbot: QtBot, win: MainWindow, row: int, part: str) -> None:
    index = win.chat.chat_model().index(row)
    win.chat.scrollTo(index)
    rect = win.chat.visualRect(index)
    point = verify_button_rect(rect).center()
    if part == "card":
        point.setX(rect.left() + rect.width() // 3)
    qtbot.mouseClick(win.chat.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_verify_gives_each_imported_card_its_verdict_and_only_then_actions(
    qtbot: QtBot, window: MainWindow, store: Store, repo: Path, tmp_path: Path
) -> None:
    on_disk(repo, tmp_path)
    summary = import_transcript(store, str(claude_session(repo)), workspace=str(repo))
    window.refresh_conversations()
    window.show_conversation(summary.conversation_id)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(window.is_loaded, timeout=10_000)
    rows = cards(window)
    assert set(rows) >= {"kept.txt", "changed.txt", "gone.txt", "config.py"}
    assert {message(window, row) for row in rows.values()} == {
        "imported — not verified"
    }

    # Not verified: no file action, and the notice says why.
    click(qtbot, window, rows["kept.txt"], "card")
    assert window.notice_bar.text() == "Can't open kept.txt: imported — not verified"
    assert window.workspace.tab_count() == 0

    for name in ("kept.txt", "changed.txt", "gone.txt", "link.txt"):
        click(qtbot, window, rows[name], "verify")
    qtbot.waitUntil(lambda: not window.imported_cards.busy(), timeout=10_000)
    assert message(window, rows["kept.txt"]) == "unchanged since the session"
    assert message(window, rows["changed.txt"]) == "modified since the session"
    assert message(window, rows["gone.txt"]) == "missing"
    assert message(window, rows["link.txt"]).startswith("refused (")
    assert "symlink" in message(window, rows["link.txt"])
    assert message(window, rows["config.py"]) == "imported — not verified"
    if SHOTS:
        window.chat.grab().save(os.path.join(SHOTS, "imported-cards.png"))

    # Verified: the card opens, revalidated as any card.
    click(qtbot, window, rows["kept.txt"], "card")
    qtbot.waitUntil(window.workspace.is_loaded, timeout=10_000)
    assert window.workspace.tab_count() == 1
    (repo / "kept.txt").write_text("changed after Verify\n")
    click(qtbot, window, rows["kept.txt"], "card")
    assert "kept.txt changed since it was verified" in window.notice_bar.text()
    click(qtbot, window, rows["gone.txt"], "card")
    assert window.notice_bar.text() == "Can't open gone.txt: imported — not verified"

    # A new window reads the verdicts back from the store.
    window.show_conversation(summary.conversation_id)
    assert message(window, rows["changed.txt"]) == "modified since the session"
    assert message(window, rows["gone.txt"]) == "imported — not verified"


def test_a_cards_state_is_drawn_whole_before_its_path(qtbot: QtBot) -> None:
    from PySide6.QtGui import QFont, QFontMetrics

    from app.core.store.imported_files import ImportedFile, ImportedFileRef
    from app.ui.chat.paint_imported import state_line

    path = "/home/someone/projects/quarterly/reports/2026/final/summary-draft.md"
    file = ImportedFile(
        "e1", path, path, "/home/someone", "created", None, 10,
        "claude-code", "s1", "t.jsonl", (1,), 0,
    )  # fmt: skip
    block = ImportedFileBlock(ImportedFileRef("c", "e1"), file)
    message = "imported — not verified"
    font = QFont()
    width = QFontMetrics(font).horizontalAdvance(message) + 160

    line = state_line(message, block, font, width)

    assert line.startswith(message + " \u00b7 ")
    assert "…" in line and line.endswith(".md")
