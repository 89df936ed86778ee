"""The library filled for an upgraded store, in the background of the real window."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.core.store import Store
from app.core.store.database import DATABASE_NAME
from app.ui.window.main_window import MainWindow

from ...core.store.library_seed import agent_turn, workspace_with_files

pytestmark = pytest.mark.qt


def upgraded_store(tmp_path: Path) -> Path:
    """A store the agent wrote, whose index an upgrade asked to fill again."""
    data = tmp_path / "data"
    ws = workspace_with_files(tmp_path / "ws", "report.md", "chart.pdf")
    with Store(data) as store:
        agent_turn(store, ws, tmp_path, ("report.md", "chart.pdf"))
    conn = sqlite3.connect(data / DATABASE_NAME, isolation_level=None)
    conn.execute("DELETE FROM library")
    conn.execute("INSERT INTO library_pending VALUES (1)")
    conn.close()
    return data


def test_the_library_says_it_is_prepared_while_the_window_goes_on(
    qtbot, tmp_path: Path
) -> None:
    data = upgraded_store(tmp_path)
    store = Store(data)
    # Another writer holds the store, so the fill waits where it can be seen.
    writer = sqlite3.connect(data / DATABASE_NAME, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    window = MainWindow(store, data)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        qtbot.mouseClick(
            window.conversations_panel.library_button, Qt.MouseButton.LeftButton
        )
        pane = window.library.pane

        assert pane.preparing.isVisible() and pane.preparing_bar.isVisible()
        assert "Preparing the library" in pane.preparing.text()
        assert not pane.search.isEnabled() and pane.model.rowCount() == 0
        # The window still reads the store while the index waits to be filled.
        window.refresh_conversations()
        assert window.conversations_panel.list.model().rowCount() == 1

        writer.execute("COMMIT")

        qtbot.waitUntil(lambda: pane.model.rowCount() == 2, timeout=10_000)
        assert not pane.preparing.isVisible() and pane.search.isEnabled()
        names = {pane.model.item(row).name for row in range(2)}
        assert names == {"report.md", "chart.pdf"}
    finally:
        if writer.in_transaction:
            writer.execute("ROLLBACK")
        writer.close()
        window.close()
        store.close()
