"""The listed items' states, found in the background, through the real window."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.core.store import Store
from app.ui.main_window import MainWindow

from ...core.store.library_seed import agent_turn, claude_import, workspace_with_files

pytestmark = pytest.mark.qt


@pytest.fixture
def window(qtbot, tmp_path: Path) -> Iterator[MainWindow]:
    data = tmp_path / "data"
    ws = workspace_with_files(
        tmp_path / "ws", "same.md", "edited.md", "gone.md", "swapped.md"
    )
    with Store(data) as store:
        agent_turn(
            store, ws, tmp_path, ("same.md", "edited.md", "gone.md", "swapped.md")
        )
        repo = workspace_with_files(tmp_path / "home" / "repo", "fix.py")
        claude_import(store, repo, "fix.py")
    (ws / "edited.md").write_text("edited since it was presented\n")
    (ws / "gone.md").unlink()
    (ws / "swapped.md").unlink()
    os.symlink(tmp_path / "home" / "repo" / "fix.py", ws / "swapped.md")
    store = Store(data)
    win = MainWindow(store, data)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()
    store.close()


def states(window: MainWindow) -> dict[str, str]:
    model = window.library.pane.model
    return {
        model.item(row).name: model.index(row, 5).data()
        for row in range(model.rowCount())
    }


def test_states_are_found_in_the_background_and_then_filter(
    window: MainWindow, qtbot
) -> None:
    qtbot.mouseClick(
        window.conversations_panel.library_button, Qt.MouseButton.LeftButton
    )

    expected = {
        "fix.py": "imported · not verified",
        "same.md": "unchanged",
        "edited.md": "modified since",
        "gone.md": "missing",
        "swapped.md": "refused",
    }
    qtbot.waitUntil(lambda: states(window) == expected, timeout=10_000)
    pane = window.library.pane
    for action in pane.states.menu().actions():
        if action.data() in ("missing", "refused"):
            action.trigger()
    assert set(states(window)) == {"gone.md", "swapped.md"}
