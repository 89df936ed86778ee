"""The listed items' states, found in the background, through the real window."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.core.imported.verify import verify_imported
from app.core.store import Store
from app.core.store.database import DATABASE_NAME
from app.core.store.import_store import ImportStore
from app.core.store.imported_files import ImportedFileRef
from app.ui.window.main_window import MainWindow

from ...core.store.library_seed import (
    agent_turn,
    claude_import,
    quiet_policy,
    workspace_with_files,
)

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


def test_an_imported_item_shows_what_verify_found_and_a_forged_verdict_nothing(
    qtbot, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    repo = workspace_with_files(tmp_path / "home" / "repo", "fix.py", "other.py")
    for name in ("fix.py", "other.py"):
        (repo / name).write_text("x\n")  # what the session wrote
    with Store(data) as store:
        cid = claude_import(store, repo, "fix.py", "other.py")
        entries = {
            os.path.basename(e.resolved): e.entry_id
            for e in ImportStore(store).files(cid)
        }
        verified = verify_imported(
            store,
            ImportedFileRef(cid, entries["fix.py"]),
            quiet_policy(repo, tmp_path),
        )
        assert verified.verified
    with sqlite3.connect(data / DATABASE_NAME) as conn:  # a verdict not the app's
        conn.execute(
            "INSERT INTO verifications VALUES (?, ?, '{}', 'unchanged', 'forged')",
            (cid, entries["other.py"]),
        )
    store = Store(data)
    win = MainWindow(store, data)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    qtbot.mouseClick(win.conversations_panel.library_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(
        lambda: states(win).get("fix.py") == "imported · verified · unchanged",
        timeout=10_000,
    )
    assert states(win)["other.py"] == "imported · not verified"
    win.close()
    store.close()
