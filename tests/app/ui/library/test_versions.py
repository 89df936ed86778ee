"""An item's versions in the real window: listed by turn, two compared in the diff."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.core.chat.blocks import ChangesBlock
from app.core.store import Store
from app.ui.window.main_window import MainWindow

from ...core.store.library_seed import (
    report_in_two_turns,
    report_with_a_turn_between,
    workspace_with_files,
)

pytestmark = pytest.mark.qt

FIRST = "# Report\n\nSales rose.\n"
SECOND = "# Report\n\nSales rose by 12%.\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return workspace_with_files(tmp_path / "ws")


@pytest.fixture
def window(qtbot, tmp_path: Path, workspace: Path) -> Iterator[MainWindow]:
    data = tmp_path / "data"
    with Store(data) as store:
        report_in_two_turns(store, workspace, tmp_path, FIRST, SECOND)
    store = Store(data)
    win = MainWindow(store, data)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    qtbot.mouseClick(win.conversations_panel.library_button, Qt.MouseButton.LeftButton)
    yield win
    win.close()
    store.close()


def open_versions(window: MainWindow, qtbot):
    pane = window.library.pane
    assert pane.model.rowCount() == 1
    pane.select_row(0)
    qtbot.mouseClick(pane.versions_button, Qt.MouseButton.LeftButton)
    dialog = window.library.versions_dialog
    assert dialog is not None
    return dialog


def texts(dialog) -> list[str]:
    table = dialog.table
    return [table.item(row, 3).text() for row in range(table.rowCount())]


def test_two_versions_of_a_text_file_are_compared_in_the_diff_view(
    window: MainWindow, qtbot
) -> None:
    dialog = open_versions(window, qtbot)
    assert texts(dialog) == ["can be compared", "can be compared"]
    dialog.select(0, 1)

    qtbot.mouseClick(dialog.compare_button, Qt.MouseButton.LeftButton)
    diff = window.library.diff_dialog
    assert diff is not None
    qtbot.waitUntil(lambda: diff.view.layout_shown is not None, timeout=10_000)

    assert diff.view.summary.text() == "+1 \u22121 lines, in 1 place"
    assert "Sales rose by 12%." in diff.view.layout_shown.diff.unified_text()


def test_a_version_whose_file_is_gone_says_so(
    window: MainWindow, qtbot, workspace: Path
) -> None:
    (workspace / "report.md").unlink()

    dialog = open_versions(window, qtbot)

    assert texts(dialog) == [
        "no text: its file is gone and no copy of this version was kept",
        "can be compared",
    ]
    dialog.select(0, 1)
    qtbot.mouseClick(dialog.compare_button, Qt.MouseButton.LeftButton)
    diff = window.library.diff_dialog
    assert diff is not None
    qtbot.waitUntil(lambda: "No diff is shown" in diff.view.summary.text())
    assert "the newer version: its file is gone" in diff.view.summary.text()


THIRD = "# Report\n\nSales rose by 12% in May.\n"


@pytest.fixture
def between_window(qtbot, tmp_path: Path, workspace: Path) -> Iterator[MainWindow]:
    data = tmp_path / "data"
    with Store(data) as store:
        report_with_a_turn_between(store, workspace, tmp_path, (FIRST, SECOND, THIRD))
    store = Store(data)
    win = MainWindow(store, data)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    qtbot.mouseClick(win.conversations_panel.library_button, Qt.MouseButton.LeftButton)
    yield win
    win.close()
    store.close()


def row_of(window: MainWindow, name: str) -> int:
    model = window.library.pane.model
    names = [model.item(row).name for row in range(model.rowCount())]
    return names.index(name)


def test_a_turn_that_changed_the_file_without_presenting_it_is_a_version(
    between_window: MainWindow, qtbot
) -> None:
    window = between_window
    pane = window.library.pane
    pane.select_row(row_of(window, "report.md"))
    qtbot.mouseClick(pane.versions_button, Qt.MouseButton.LeftButton)
    dialog = window.library.versions_dialog
    assert dialog is not None

    assert texts(dialog) == ["can be compared"] * 3
    dialog.select(0, 1)
    qtbot.mouseClick(dialog.compare_button, Qt.MouseButton.LeftButton)
    diff = window.library.diff_dialog
    assert diff is not None
    qtbot.waitUntil(lambda: diff.view.layout_shown is not None, timeout=10_000)
    unified = diff.view.layout_shown.diff.unified_text()
    assert "-Sales rose by 12%." in unified and "+Sales rose by 12% in May." in unified


def test_a_changed_only_file_opens_as_its_changed_files_row_does(
    between_window: MainWindow, qtbot, workspace: Path
) -> None:
    window = between_window
    pane = window.library.pane
    row = row_of(window, "notes.md")
    pane.select_row(row)

    qtbot.mouseClick(pane.open_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: window.workspace.tab_count() == 1)
    page = window.workspace.tabs.current_page()
    assert page is not None and page.path == str(workspace / "notes.md")
    qtbot.mouseClick(pane.turn_button, Qt.MouseButton.LeftButton)
    block = window.chat.chat_model().block(window.chat.currentIndex().row())
    assert isinstance(block, ChangesBlock)
    assert block.changes.turn_position == pane.model.item(row).position


def test_a_changed_only_file_whose_change_was_forged_does_not_open(
    between_window: MainWindow, qtbot, workspace: Path, tmp_path: Path
) -> None:
    window = between_window
    # Someone with the database points the change at another file.
    (workspace / "secret.txt").write_text("secret\n")
    with Store(tmp_path / "data") as other, other.transaction(write=True) as conn:
        conn.execute("UPDATE changes SET raw = replace(raw, 'notes.md', 'secret.txt')")
        conn.execute(
            "UPDATE library SET item = replace(item, 'notes.md', 'secret.txt'),"
            " name = 'secret.txt' WHERE name = 'notes.md'"
        )
    pane = window.library.pane
    pane.reload()
    pane.select_row(row_of(window, "secret.txt"))

    qtbot.mouseClick(pane.open_button, Qt.MouseButton.LeftButton)

    assert window.workspace.tab_count() == 0
    assert "not recorded by this app" in window.notice_bar.text()
