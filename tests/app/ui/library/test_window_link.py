"""The library through the real window, on a store the real writers filled."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QDate, Qt
from PySide6.QtGui import QGuiApplication

from app.core.chat.blocks import DeliverableBlock
from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.ui.window.layout import CHAT_MIN_WIDTH
from app.ui.window.main_window import MainWindow

from ...core.store.library_seed import (
    agent_turn,
    claude_import,
    mcp_present,
    workspace_with_files,
)

pytestmark = pytest.mark.qt


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    ws = workspace_with_files(
        tmp_path / "ws", "report.md", "chart.pdf", "data.csv", "figures.pdf"
    )
    with Store(data) as store:
        agent_turn(store, ws, tmp_path, ("report.md", "chart.pdf"), ("report.md",))
        mcp_present(store, data, ws, "codex", "data.csv")
        mcp_present(store, data, ws, "cursor", "figures.pdf")
        repo = workspace_with_files(tmp_path / "home" / "repo", "fix.py")
        claude_import(store, repo, "fix.py")
    return data


@pytest.fixture
def window(qtbot, data_dir: Path) -> Iterator[MainWindow]:
    store = Store(data_dir)
    win = MainWindow(store, data_dir)
    qtbot.addWidget(win)
    win.refresh_conversations()
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()
    store.close()


def open_library(window: MainWindow, qtbot) -> None:
    qtbot.mouseClick(
        window.conversations_panel.library_button, Qt.MouseButton.LeftButton
    )
    assert window.library.showing()


def listed(window: MainWindow) -> list[str]:
    model = window.library.pane.model
    return [model.item(row).name for row in range(model.rowCount())]


def choose(menu_button, *values: str) -> None:
    for action in menu_button.menu().actions():
        if action.data() in values:
            action.trigger()


def test_the_library_lists_every_writer_newest_first_beside_the_conversations(
    window: MainWindow, qtbot
) -> None:
    open_library(window, qtbot)

    assert listed(window) == [
        "fix.py",
        "figures.pdf",
        "data.csv",
        "report.md",
        "chart.pdf",
    ]
    pane = window.library.pane
    model = pane.model
    assert model.index(3, 0).data() == "report.md  (2 versions)"
    assert [model.index(r, 2).data() for r in range(5)] == [
        "Claude Code",
        "Cursor",
        "Codex",
        "Deliverables agent",
        "Deliverables agent",
    ]
    assert model.index(0, 5).data() == "imported · not verified"
    assert model.index(0, 3).data() == "Write the files"
    assert window.splitter.indexOf(window.middle) == 1


def test_filters_and_search_as_you_type(window: MainWindow, qtbot) -> None:
    open_library(window, qtbot)
    pane = window.library.pane

    choose(pane.kinds, "pdf")
    assert listed(window) == ["figures.pdf", "chart.pdf"]
    choose(pane.agents, "Codex", "Cursor")
    assert listed(window) == ["figures.pdf"]
    choose(pane.kinds, "pdf")
    choose(pane.agents, "Codex", "Cursor")
    qtbot.keyClicks(pane.search, "rep")
    qtbot.waitUntil(lambda: listed(window) == ["report.md"])
    pane.search.clear()
    qtbot.waitUntil(lambda: len(listed(window)) == 5)


def test_a_date_range_includes_its_last_day_and_excludes_the_rest(
    window: MainWindow, qtbot
) -> None:
    open_library(window, qtbot)
    pane = window.library.pane
    today = QDate.currentDate()
    pane.dates.setCurrentIndex(pane.dates.count() - 1)
    pane.dates.activated.emit(pane.dates.count() - 1)
    assert pane.date_from.isVisible() and pane.date_to.isVisible()

    pane.date_from.setDate(today.addDays(-3))
    pane.date_to.setDate(today.addDays(-1))
    assert listed(window) == []
    pane.date_to.setDate(today)
    assert len(listed(window)) == 5


def test_opening_an_item_checks_it_as_its_card_and_shows_it(
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    open_library(window, qtbot)
    pane = window.library.pane
    pane.select_row(listed(window).index("chart.pdf"))

    qtbot.mouseClick(pane.open_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: window.workspace.tab_count() == 1)
    page = window.workspace.tabs.current_page()
    assert page is not None and page.path == str(tmp_path / "ws" / "chart.pdf")


def test_an_item_whose_file_was_swapped_is_refused_as_its_card_is(
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    open_library(window, qtbot)
    pane = window.library.pane
    target = tmp_path / "ws" / "data.csv"
    target.unlink()
    os.symlink("/etc/hostname", target)
    pane.select_row(listed(window).index("data.csv"))

    qtbot.mouseClick(pane.open_button, Qt.MouseButton.LeftButton)

    assert window.workspace.tab_count() == 0
    assert "data.csv" in window.notice_bar.text()


def test_an_imported_item_stays_unverified_and_does_not_open(
    window: MainWindow, qtbot
) -> None:
    open_library(window, qtbot)
    pane = window.library.pane
    pane.select_row(listed(window).index("fix.py"))

    qtbot.mouseClick(pane.open_button, Qt.MouseButton.LeftButton)

    assert window.workspace.tab_count() == 0
    assert "fix.py" in window.notice_bar.text()


def test_an_item_has_its_cards_menu_and_an_import_none(
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    open_library(window, qtbot)
    model = window.library.pane.model
    names = listed(window)

    menu = window.library.menu_for(model.item(names.index("chart.pdf")))
    assert menu is not None
    [copy] = [a for a in menu.actions() if a.text() == "&Copy path"]
    copy.trigger()

    assert QGuiApplication.clipboard().text() == str(tmp_path / "ws" / "chart.pdf")
    assert window.library.menu_for(model.item(names.index("fix.py"))) is None


def test_go_to_the_turn_shows_the_conversation_with_the_card_selected(
    window: MainWindow, qtbot
) -> None:
    open_library(window, qtbot)
    pane = window.library.pane
    row = listed(window).index("report.md")
    item = pane.model.item(row)
    pane.select_row(row)

    qtbot.mouseClick(pane.turn_button, Qt.MouseButton.LeftButton)

    assert not window.library.showing() and window.chat_column.isVisible()
    assert window.current_conversation_id() == item.key.conversation_id
    block = window.chat.chat_model().block(window.chat.currentIndex().row())
    assert isinstance(block, DeliverableBlock)
    assert block.ref == DeliverableRef(item.key.conversation_id, "call-1", 0)


@pytest.fixture
def image_workspace(tmp_path: Path) -> Path:
    ws = workspace_with_files(tmp_path / "ws", "notes.md", "later.csv")
    Image.new("RGB", (64, 48), (200, 40, 40)).save(ws / "chart.png")
    Image.new("RGB", (64, 48), (40, 40, 200)).save(ws / "photo.png")
    return ws


@pytest.fixture
def image_window(qtbot, tmp_path: Path, image_workspace: Path) -> Iterator[MainWindow]:
    workspace = image_workspace
    data = tmp_path / "data"
    with Store(data) as store:
        # The swapped one first: it is checked before the good one is made.
        agent_turn(store, workspace, tmp_path, ("photo.png", "chart.png", "notes.md"))
    store = Store(data)
    win = MainWindow(store, data)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()
    store.close()


def keys_of(window: MainWindow) -> dict[str, object]:
    model = window.library.pane.model
    return {model.item(r).name: model.item(r).key for r in range(model.rowCount())}


def test_an_image_gets_its_thumbnail_and_a_swapped_one_does_not(
    image_window: MainWindow, qtbot, image_workspace: Path, tmp_path: Path
) -> None:
    window, workspace = image_window, image_workspace
    (workspace / "photo.png").unlink()
    Image.new("RGB", (8, 8)).save(tmp_path / "elsewhere.png")
    os.symlink(tmp_path / "elsewhere.png", workspace / "photo.png")

    qtbot.mouseClick(
        window.conversations_panel.library_button, Qt.MouseButton.LeftButton
    )

    model = window.library.pane.model
    found = keys_of(window)
    qtbot.waitUntil(lambda: model.has_thumbnail(found["chart.png"]), timeout=10_000)
    assert not model.has_thumbnail(found["photo.png"])
    assert not model.has_thumbnail(found["notes.md"])


def test_an_item_presented_while_the_library_is_shown_appears(
    image_window: MainWindow, qtbot, image_workspace: Path, tmp_path: Path
) -> None:
    window, workspace = image_window, image_workspace
    qtbot.mouseClick(
        window.conversations_panel.library_button, Qt.MouseButton.LeftButton
    )
    assert "later.csv" not in keys_of(window)
    mcp_present(
        window.library._store, tmp_path / "data", workspace, "codex", "later.csv"
    )
    [conversation] = [
        c for c in window.library._store.conversations() if c.title.startswith("Codex")
    ]

    window.refresh_from_store(conversation.id)

    assert next(iter(keys_of(window))) == "later.csv"


def test_the_library_gets_the_width_its_controls_need_and_gives_it_back(
    window: MainWindow, qtbot
) -> None:
    window.resize(1280, 800)
    open_library(window, qtbot)
    pane = window.library.pane
    # A preview is open beside it, as when a user opened an item first.
    pane.select_row(listed(window).index("report.md"))
    qtbot.mouseClick(pane.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.workspace.tab_count() == 1)
    # The preview and the tree give up room; no button or filter is cut.
    qtbot.waitUntil(lambda: pane.width() >= pane.minimumSizeHint().width())
    for button in (
        pane.open_button,
        pane.turn_button,
        pane.versions_button,
        pane.save_button,
        pane.export_button,
    ):
        assert button.width() >= button.sizeHint().width(), button.text()
    pane.select_row(0)
    qtbot.mouseClick(pane.turn_button, Qt.MouseButton.LeftButton)
    assert not window.library.showing()
    assert window.middle.minimumWidth() == CHAT_MIN_WIDTH
