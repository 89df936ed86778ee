"""The window's panes: the preview gets room, lists fold away and come back."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.store import Store
from app.ui.window.main_window import MainWindow


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\n\nSome text.\n")
    (root / "data.csv").write_text("a,b\n1,2\n")
    return root


def open_window(qtbot, data: Path, folder: Path) -> tuple[MainWindow, Store]:
    store = Store(data)
    if not store.conversations():
        store.create_conversation("Work", str(folder))
    window = MainWindow(store, data)
    qtbot.addWidget(window)
    window.resize(1440, 900)
    window.refresh_conversations()
    window.show_conversation(store.conversations()[-1].id)
    window.show()
    qtbot.waitExposed(window)
    return window, store


def test_opening_a_preview_gives_the_workspace_at_least_half_the_window(
    qtbot, tmp_path: Path, folder: Path
) -> None:
    window, store = open_window(qtbot, tmp_path / "data", folder)
    qtbot.waitUntil(lambda: sum(window.splitter.sizes()) > 1000)
    before = window.splitter.sizes()
    assert before[2] < sum(before) // 2

    assert window.workspace.open_path(str(folder / "notes.md"))

    sizes = window.splitter.sizes()
    assert sizes[2] >= sum(sizes) // 2
    assert sizes[1] >= window.chat_column.minimumWidth()
    window.close()
    store.close()


def test_the_conversation_list_and_the_tree_fold_away_and_are_remembered(
    qtbot, tmp_path: Path, folder: Path
) -> None:
    data = tmp_path / "data"
    window, store = open_window(qtbot, data, folder)
    assert window.conversations_panel.isVisible()
    assert window.workspace.tree.isVisible()

    window.menu_actions.conversations.trigger()
    window.menu_actions.tree.trigger()

    assert not window.conversations_panel.isVisible()
    assert not window.workspace.tree.isVisible()
    assert not window.menu_actions.conversations.isChecked()
    window.close()
    store.close()

    again, store = open_window(qtbot, data, folder)
    assert not again.conversations_panel.isVisible()
    assert not again.workspace.tree.isVisible()
    again.menu_actions.conversations.trigger()
    assert again.conversations_panel.isVisible()
    again.close()
    store.close()


def test_the_toggles_have_standard_shortcuts(qtbot, tmp_path: Path, folder: Path):
    window, store = open_window(qtbot, tmp_path / "data", folder)
    actions = window.menu_actions
    assert actions.conversations.shortcut().toString() == "Ctrl+B"
    assert actions.tree.shortcut().toString() == "Ctrl+Shift+E"
    assert actions.focus.shortcut().toString() == "F11"
    window.close()
    store.close()


def test_focusing_the_preview_gives_it_the_whole_window_and_back(
    qtbot, tmp_path: Path, folder: Path
) -> None:
    window, store = open_window(qtbot, tmp_path / "data", folder)
    assert window.workspace.open_path(str(folder / "notes.md"))
    window.menu_actions.tree.trigger()  # the tree was hidden before focusing

    window.workspace.tabs.focus_button.click()

    assert window.panes.focused()
    assert not window.chat_column.isVisible()
    assert not window.conversations_panel.isVisible()
    assert not window.workspace.tree.isVisible()
    qtbot.waitUntil(lambda: window.workspace.width() > window.width() - 20)

    window.menu_actions.focus.trigger()

    assert not window.panes.focused()
    assert window.chat_column.isVisible()
    assert window.conversations_panel.isVisible()
    assert not window.workspace.tree.isVisible()  # as it was before
    assert not window.workspace.tabs.focus_button.isChecked()
    window.close()
    store.close()


def test_a_notice_floats_and_moves_nothing_under_the_pointer(
    qtbot, tmp_path: Path, folder: Path
) -> None:
    window, store = open_window(qtbot, tmp_path / "data", folder)
    chat_top = window.chat.mapTo(window, window.chat.rect().topLeft())
    chat_height = window.chat.height()

    window.notice_bar.show_message("Cannot open x: it is missing.", "warning")
    qtbot.waitUntil(window.notice_bar.isVisible)

    assert window.chat.mapTo(window, window.chat.rect().topLeft()) == chat_top
    assert window.chat.height() == chat_height
    bar = window.notice_bar.geometry()
    assert bar.bottom() < window.centralWidget().height()
    assert bar.right() < window.centralWidget().width()
    window.close()
    store.close()


def test_a_stale_warning_clears_when_a_later_action_succeeds(
    qtbot, tmp_path: Path, folder: Path
) -> None:
    window, store = open_window(qtbot, tmp_path / "data", folder)
    assert not window.workspace.open_path(str(folder / "gone.md"))
    assert window.notice_bar.isVisible()
    assert "gone.md" in window.notice_bar.text()

    assert window.workspace.open_path(str(folder / "notes.md"))

    assert not window.notice_bar.isVisible()
    window.close()
    store.close()


def test_a_notice_covers_no_control_or_content(
    qtbot, tmp_path: Path, folder: Path
) -> None:
    window, store = open_window(qtbot, tmp_path / "data", folder)
    window.resize(1440, 900)
    assert window.workspace.open_path(str(folder / "notes.md"))
    panes = window.splitter.geometry()

    window.notice_bar.show_message(
        "Cannot open a file with a long name: " + "very " * 60 + "long.", "warning"
    )
    qtbot.waitUntil(window.notice_bar.isVisible)

    bar = window.notice_bar.geometry()
    # Under the panes, never over the chat, the input or a preview's controls.
    assert not bar.intersects(window.splitter.geometry())
    assert window.splitter.geometry() == panes
    assert window.notice_bar.text().endswith("long.")
    window.close()
    store.close()
