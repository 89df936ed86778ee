"""The window on an ssh:// workspace, against real sshd: open, tree, tabs, quit."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QAction
from pytestqt.qtbot import QtBot

from app.core.store import Store
from app.remote.manager import RemoteManager
from app.ui.window.main_window import MainWindow
from app.ui.workspace.remote_tree import RemoteTreeView
from app.ui.workspace.tabs import TAB_MENU, DocumentPageWidget

from .fixtures import SshHome
from .fixtures import openers as openers

HANG = 30_000  # a hang guard, not a speed figure


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def window(qtbot: QtBot, data: Path, ssh_home: SshHome) -> Iterator[MainWindow]:
    store = Store(data)
    win = MainWindow(store, data)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()
    store.close()


def opened_remote(qtbot: QtBot, window: MainWindow, address: str) -> RemoteTreeView:
    window.open_remote_workspace(address)
    qtbot.waitUntil(lambda: window.workspace.remote_tree is not None, timeout=HANG)
    tree = window.workspace.remote_tree
    assert tree is not None
    return tree


def row(qtbot: QtBot, tree: RemoteTreeView, path: str) -> Any:
    qtbot.waitUntil(lambda: tree.tree_model.listed_item(path) is not None, timeout=HANG)
    return tree.tree_model.listed_item(path)


def test_the_file_menu_opens_a_remote_workspace_in_a_new_conversation(
    qtbot: QtBot, window: MainWindow, ssh_home: SshHome, remote_root: Path
) -> None:
    texts = [action.text() for action in window.findChildren(QAction)]
    assert "Open &remote workspace…" in texts

    address = ssh_home.address(remote_root)
    tree = opened_remote(qtbot, window, address)

    conversation_id = window.current_conversation_id()
    assert conversation_id is not None
    conversation = window._store.conversation(conversation_id)
    # The full address: the user and port the connection used.
    server = ssh_home.server
    assert (
        conversation.workspace
        == f"ssh://{server.user}@devbox:{server.port}{remote_root}"
    )
    assert conversation.title == f"{remote_root.name} on devbox"
    # The remote tree stands where the local one was; the local one is empty.
    assert tree.isVisible()
    assert not window.workspace.tree.isVisible()
    assert window.workspace.tree.tree_model.root is None
    assert row(qtbot, tree, f"{remote_root}/notes.md") is not None


def test_opening_the_same_remote_workspace_again_continues_its_conversation(
    qtbot: QtBot, window: MainWindow, ssh_home: SshHome, remote_root: Path
) -> None:
    address = ssh_home.address(remote_root)
    opened_remote(qtbot, window, address)
    first = window.current_conversation_id()
    window.show_conversation(window._store.create_conversation("local", "/").id)
    qtbot.waitUntil(lambda: window.workspace.remote_tree is None, timeout=HANG)

    opened_remote(qtbot, window, address)

    assert window.current_conversation_id() == first
    remote = [
        conversation
        for conversation in window._store.conversations()
        if conversation.workspace.startswith("ssh://")
    ]
    assert len(remote) == 1


def test_a_remote_file_activated_in_the_tree_opens_in_a_tab(
    qtbot: QtBot, window: MainWindow, ssh_home: SshHome, remote_root: Path
) -> None:
    tree = opened_remote(qtbot, window, ssh_home.address(remote_root))
    notes = row(qtbot, tree, f"{remote_root}/notes.md")

    with qtbot.waitSignal(window.workspace.previewOpened, timeout=HANG) as opened:
        tree.activated.emit(notes.index())
    assert opened.args == [f"{remote_root}/notes.md"]
    page = window.workspace.tabs.current_page()
    assert isinstance(page, DocumentPageWidget)
    assert page.remote is window.workspace.remote_workspace()
    assert window.workspace.tab_count() == 1
    qtbot.waitUntil(window.workspace.is_loaded, timeout=HANG)

    # Reload reads it again from the host, into the same tab.
    (remote_root / "notes.md").write_text("# Notes, again\n")
    with qtbot.waitSignal(window.workspace.previewOpened, timeout=HANG):
        window.workspace.reload_current()
    assert window.workspace.tab_count() == 1
    assert window.workspace.tabs.current_page() is page


def test_a_remote_file_that_cannot_be_opened_is_a_notice_with_its_sentence(
    qtbot: QtBot, window: MainWindow, ssh_home: SshHome, remote_root: Path
) -> None:
    opened_remote(qtbot, window, ssh_home.address(remote_root))
    (remote_root / "link.md").symlink_to(remote_root / "notes.md")
    notices: list[str] = []
    window.workspace.notice.connect(notices.append)

    future = window.workspace.open_remote(f"{remote_root}/missing.md")
    assert future is not None
    qtbot.waitUntil(lambda: len(notices) == 1, timeout=HANG)
    assert notices[0].startswith("Cannot open missing.md: ")
    window.workspace.open_remote(f"{remote_root}/link.md")
    qtbot.waitUntil(lambda: len(notices) == 2, timeout=HANG)
    assert notices[1].startswith("Cannot open link.md: ")
    assert window.workspace.tab_count() == 0
    assert not window.workspace.remote_loading()


def test_a_remote_tab_offers_nothing_that_hands_its_path_to_this_computer(
    qtbot: QtBot,
    window: MainWindow,
    ssh_home: SshHome,
    remote_root: Path,
    openers: list[tuple[str, tuple[Any, ...]]],
) -> None:
    tree = opened_remote(qtbot, window, ssh_home.address(remote_root))
    notes = row(qtbot, tree, f"{remote_root}/notes.md")
    with qtbot.waitSignal(window.workspace.previewOpened, timeout=HANG):
        tree.activated.emit(notes.index())
    page = window.workspace.tabs.current_page()
    assert page is not None
    requested: list[str] = []
    window.workspace.actionRequested.connect(
        lambda action, *_: requested.append(action)
    )

    for action, _text in TAB_MENU:
        if action not in ("close", "reload"):
            window.workspace.tabs.menuActionRequested.emit(action, page)
    # Copy path copies the remote coordinate; nothing is passed on to the
    # card actions, and no native opener is called.
    from PySide6.QtGui import QGuiApplication

    url = f"ssh://{ssh_home.server.user}@devbox:{ssh_home.server.port}"
    assert QGuiApplication.clipboard().text() == f"{url}{remote_root}/notes.md"
    assert requested == []
    assert openers == []


def test_a_remote_conversation_shown_again_connects_in_the_background(
    qtbot: QtBot, data: Path, ssh_home: SshHome, remote_root: Path
) -> None:
    address = ssh_home.address(remote_root)
    with Store(data) as store:
        conversation = store.create_conversation("remote", address)
    store = Store(data)
    win = MainWindow(store, data)
    qtbot.addWidget(win)
    try:
        win.show_conversation(conversation.id)
        # Nothing waited for the host: the tree comes when it answers.
        qtbot.waitUntil(lambda: win.workspace.remote_tree is not None, timeout=HANG)
        workspace = win.workspace.remote_workspace()
        assert workspace is not None
        assert workspace.root == str(remote_root)
        assert win.remote_workspace_for(address) is workspace
    finally:
        win.close()
        store.close()


def test_quitting_closes_the_window_connections(
    qtbot: QtBot,
    window: MainWindow,
    ssh_home: SshHome,
    remote_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened_remote(qtbot, window, ssh_home.address(remote_root))
    closed: list[RemoteManager] = []
    close = RemoteManager.close

    def spy(manager: RemoteManager) -> None:
        closed.append(manager)
        close(manager)

    monkeypatch.setattr(RemoteManager, "close", spy)
    manager = window.remote_manager()
    window.close()
    assert closed == [manager]


def test_a_scripted_turn_on_the_remote_workspace_shows_a_remote_card(
    qtbot: QtBot, data: Path, ssh_home: SshHome, remote_root: Path
) -> None:
    from app.agent.models import RecordingChatModel
    from tests.app.agent.scripts import answer, present

    model = RecordingChatModel(
        replies=[present("c1", "notes.md"), answer("Here are the notes.")]
    )
    store = Store(data)
    win = MainWindow(
        store, data, model_spec="scripted:test", model_factory=lambda _spec: model
    )
    qtbot.addWidget(win)
    win.resize(1280, 720)
    win.show()
    qtbot.waitExposed(win)
    try:
        opened_remote(qtbot, win, ssh_home.address(remote_root))
        win.chat_input._edit.setPlainText("Show me the notes")
        win.chat_input.sendRequested.emit("Show me the notes")
        qtbot.waitUntil(lambda: len(win.chat.deliverable_refs()) == 1, timeout=HANG)
        qtbot.waitUntil(lambda: not win.is_busy(), timeout=HANG)
        (ref,) = win.chat.deliverable_refs()
        texts = [a.text() for a in win.file_actions.menu_for(ref, win).actions()]
        assert texts[0] == "On devbox (remote)"
        assert not any("system" in text or "file manager" in text for text in texts)
        with qtbot.waitSignal(win.workspace.previewOpened, timeout=HANG):
            win.file_actions.perform("open", ref)
        qtbot.waitUntil(win.is_loaded, timeout=HANG)
        shot = os.environ.get("DELIVERABLES_REMOTE_SHOT")
        if shot:
            win.grab().save(shot)
    finally:
        win.close()
        store.close()


def test_a_remote_show_image_is_drawn_from_the_hosts_bytes(
    qtbot: QtBot, data: Path, ssh_home: SshHome, remote_root: Path
) -> None:
    from PySide6.QtGui import QColor, QImage

    from app.agent.models import RecordingChatModel
    from app.ui.chat.model import ImageRole
    from tests.app.agent.scripts import answer, tool_calls

    (remote_root / "public").mkdir()
    picture = QImage(40, 30, QImage.Format.Format_RGB32)
    picture.fill(QColor("#2a9d8f"))
    assert picture.save(str(remote_root / "public" / "chart.png"))
    model = RecordingChatModel(
        replies=[
            tool_calls(("i1", "show_image", {"filename": "chart.png"})),
            answer("That is the chart."),
        ]
    )
    store = Store(data)
    win = MainWindow(
        store, data, model_spec="scripted:test", model_factory=lambda _spec: model
    )
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    try:
        opened_remote(qtbot, win, ssh_home.address(remote_root))
        win.chat_input.sendRequested.emit("Show me the chart")
        qtbot.waitUntil(lambda: not win.is_busy(), timeout=HANG)
        qtbot.waitUntil(lambda: win.chat.chat_model().has_image("i1"), timeout=HANG)
        row_of = next(
            row
            for row in range(win.chat.chat_model().rowCount())
            if win.chat.chat_model().index(row).data(ImageRole) is not None
        )
        shown = win.chat.chat_model().index(row_of).data(ImageRole)
        assert isinstance(shown, QImage), shown
        assert shown.pixelColor(5, 5) == QColor("#2a9d8f")
    finally:
        win.close()
        store.close()


def _tree_menu(
    qtbot: QtBot, window: MainWindow, tree: RemoteTreeView, path: str, monkeypatch: Any
) -> dict[str, QAction]:
    """Right-click the row of ``path`` and return its menu's actions by id."""
    from tests.app.ui.workspace.test_tree import right_click

    shown: list[Any] = []
    monkeypatch.setattr(window, "show_menu", lambda menu, _at: shown.append(menu))
    item = row(qtbot, tree, path)
    right_click(tree, tree.visualRect(item.index()).center())
    assert len(shown) == 1
    return {str(a.data()): a for a in shown[0].actions() if a.data()}


def test_a_remote_file_is_saved_from_the_tree_menu(
    qtbot: QtBot,
    window: MainWindow,
    ssh_home: SshHome,
    remote_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    openers: list[tuple[str, tuple[Any, ...]]],
) -> None:
    from app.ui.cards.remote_actions import RemoteCardActions

    tree = opened_remote(qtbot, window, ssh_home.address(remote_root))
    actions = _tree_menu(qtbot, window, tree, f"{remote_root}/notes.md", monkeypatch)
    # What a remote card offers, and nothing that hands the path to this computer.
    assert set(actions) == {"open", "show_source", "copy_url", "copy_scp", "save_local"}
    target = tmp_path / "kept" / "notes.md"
    target.parent.mkdir()
    monkeypatch.setattr(
        RemoteCardActions, "ask_target", lambda _self, _name: str(target)
    )
    notices: list[str] = []
    window.remote_actions.notice.connect(notices.append)

    actions["save_local"].trigger()

    qtbot.waitUntil(lambda: bool(notices), timeout=HANG)
    assert notices == [f"Saved notes.md to {target}"]
    assert target.read_bytes() == (remote_root / "notes.md").read_bytes()
    assert openers == []


def test_a_remote_file_shows_its_source_from_the_tree_menu(
    qtbot: QtBot,
    window: MainWindow,
    ssh_home: SshHome,
    remote_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    openers: list[tuple[str, tuple[Any, ...]]],
) -> None:
    tree = opened_remote(qtbot, window, ssh_home.address(remote_root))
    path = f"{remote_root}/notes.md"
    actions = _tree_menu(qtbot, window, tree, path, monkeypatch)

    with qtbot.waitSignal(window.workspace.previewOpened, timeout=HANG) as opened:
        actions["show_source"].trigger()

    assert opened.args == [path]
    page = window.workspace.tabs.current_page()
    assert isinstance(page, DocumentPageWidget)
    assert page.source_view and page.path == path
    assert page.remote is window.workspace.remote_workspace()
    assert openers == []


def test_a_tree_menu_action_checks_the_remote_file_again_when_chosen(
    qtbot: QtBot,
    window: MainWindow,
    ssh_home: SshHome,
    remote_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.ui.cards.remote_actions import RemoteCardActions

    tree = opened_remote(qtbot, window, ssh_home.address(remote_root))
    actions = _tree_menu(qtbot, window, tree, f"{remote_root}/notes.md", monkeypatch)
    asked: list[str] = []
    monkeypatch.setattr(
        RemoteCardActions,
        "ask_target",
        lambda _self, name: asked.append(name) or str(tmp_path / "x"),
    )
    # Swapped for a link to a secret after the menu opened.
    secret = remote_root / ".env"
    secret.write_text("TOKEN=1\n")
    (remote_root / "notes.md").unlink()
    (remote_root / "notes.md").symlink_to(secret)
    refusals: list[str] = []
    window.remote_actions.refused.connect(refusals.append)

    actions["save_local"].trigger()

    qtbot.waitUntil(lambda: bool(refusals), timeout=HANG)
    assert "symbolic link" in refusals[0]
    assert asked == []
    assert not (tmp_path / "x").exists()


def test_a_remote_tab_saves_to_local_from_its_menu(
    qtbot: QtBot,
    window: MainWindow,
    ssh_home: SshHome,
    remote_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.ui.cards.remote_actions import RemoteCardActions
    from app.ui.workspace.tabs import tab_menu

    tree = opened_remote(qtbot, window, ssh_home.address(remote_root))
    notes = row(qtbot, tree, f"{remote_root}/notes.md")
    with qtbot.waitSignal(window.workspace.previewOpened, timeout=HANG):
        tree.activated.emit(notes.index())
    page = window.workspace.tabs.current_page()
    assert page is not None
    assert ("save_local", "Save to local…") in tab_menu(page)
    target = tmp_path / "notes-copy.md"
    monkeypatch.setattr(
        RemoteCardActions, "ask_target", lambda _self, _name: str(target)
    )
    notices: list[str] = []
    window.remote_actions.notice.connect(notices.append)

    window.workspace.tabs.menuActionRequested.emit("save_local", page)

    qtbot.waitUntil(lambda: bool(notices), timeout=HANG)
    assert target.read_bytes() == (remote_root / "notes.md").read_bytes()
