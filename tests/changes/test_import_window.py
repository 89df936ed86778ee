"""File → Import session… in the real window: imported sessions are listed and shown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.chat.blocks import UserBlock
from app.core.store import Store
from app.ui.window.main_window import MainWindow

from ..app.importers.test_discover import fake_home


@pytest.fixture
def window(qtbot: QtBot, store: Store, tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(win)
    win.refresh_conversations()
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


def test_the_file_menu_opens_the_import_dialog(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[bool] = []
    monkeypatch.setattr(window, "open_import_dialog", lambda: opened.append(True))
    [file_menu] = [
        action.menu()
        for action in window.menuBar().actions()
        if action.text() == "&File"
    ]
    [item] = [a for a in file_menu.actions() if a.text() == "&Import session…"]

    item.trigger()

    assert opened == [True]


def test_imported_sessions_are_listed_and_the_first_is_shown(
    qtbot: QtBot, window: MainWindow, store: Store, tmp_path: Path
) -> None:
    home, _, _ = fake_home(tmp_path)
    assert window.conversations.model().rowCount() == 0
    dialog = window.open_import_dialog(home=home, env={})
    qtbot.waitUntil(lambda: not dialog.busy())
    dialog.sessions.selectAll()

    with qtbot.waitSignal(dialog.imported, timeout=30_000) as done:
        dialog.start_import(dialog.selected_paths())

    first = done.args[0][0]
    assert window.conversations.model().rowCount() == 2
    assert window._conversation_id == first.conversation_id
    assert window.windowTitle().startswith(first.title)
    model = window.chat.chat_model()
    users = [
        block.text
        for block in (model.block(row) for row in range(model.rowCount()))
        if isinstance(block, UserBlock)
    ]
    assert users == ["Fix the   failing\ntests please"]
