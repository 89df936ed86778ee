"""Save copies and export from the library, through the real window."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.core.store import Store
from app.ui.library.keeping import Keeper
from app.ui.window.main_window import MainWindow

from ...core.store.library_seed import agent_turn, workspace_with_files

pytestmark = pytest.mark.qt


@pytest.fixture
def window(qtbot, tmp_path: Path, monkeypatch) -> Iterator[MainWindow]:
    data = tmp_path / "data"
    ws = workspace_with_files(tmp_path / "ws", "a/notes.md", "b/notes.md", "c.csv")
    with Store(data) as store:
        agent_turn(store, ws, tmp_path, ("a/notes.md", "b/notes.md", "c.csv"))
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(Keeper, "choose_folder", lambda *_args: str(out))
    store = Store(data)
    win = MainWindow(store, data)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    qtbot.mouseClick(win.conversations_panel.library_button, Qt.MouseButton.LeftButton)
    yield win
    win.close()
    store.close()


def test_several_items_are_saved_at_once_clashes_numbered(
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    pane = window.library.pane
    pane.table.selectAll()
    assert pane.save_button.text() == "Save copies…"

    with qtbot.waitSignal(window.library.keeper.finished, timeout=10_000):
        qtbot.mouseClick(pane.save_button, Qt.MouseButton.LeftButton)

    assert sorted(os.listdir(tmp_path / "out")) == ["c.csv", "notes (2).md", "notes.md"]
    assert window.notice_bar.text() == "Saved 3 of 3 copies."


def test_a_conversation_is_exported_with_its_index(
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    pane = window.library.pane
    pane.select_row(0)

    with qtbot.waitSignal(window.library.keeper.finished, timeout=10_000):
        qtbot.mouseClick(pane.export_button, Qt.MouseButton.LeftButton)

    [folder] = (tmp_path / "out").iterdir()
    assert sorted(os.listdir(folder)) == [
        "c.csv",
        "index.md",
        "notes (2).md",
        "notes.md",
    ]
    assert window.notice_bar.text().startswith(f"Exported to {folder}.")
