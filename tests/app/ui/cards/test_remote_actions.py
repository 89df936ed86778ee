"""Remote cards in the window, against real sshd: their menu, each action, no opener."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu, QProgressDialog, QPushButton
from pytestqt.qtbot import QtBot

from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.core.trust.policy import PermissionMode
from app.ui.cards.remote_actions import REMOTE_ACTIONS, RemoteCardActions
from app.ui.window.main_window import MainWindow
from tests.remote.fixtures import SshHome
from tests.remote.fixtures import openers as openers
from tests.remote.fixtures import remote_root as remote_root
from tests.remote.fixtures import ssh_home as ssh_home
from tests.remote.fixtures import sshd as sshd

HANG = 30_000  # a hang guard, not a speed figure
LOCAL_ONLY = ("Open with system", "Show in file manager", "Save a copy", "Copy path")


@pytest.fixture
def shown(
    qtbot: QtBot, tmp_path: Path, ssh_home: SshHome, remote_root: Path
) -> Iterator[tuple[MainWindow, DeliverableRef]]:
    """A window on the remote workspace, its conversation holding a remote card."""
    data = tmp_path / "data"
    store = Store(data)
    window = MainWindow(store, data)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.open_remote_workspace(ssh_home.address(remote_root))
    qtbot.waitUntil(lambda: window.workspace.remote_tree is not None, timeout=HANG)
    workspace = window.workspace.remote_workspace()
    assert workspace is not None
    record = workspace.present(
        {"files": [{"path": "notes.md", "description": "The notes"}]},
        mode=PermissionMode.WORKSPACE_ONLY,
    ).result(30)
    conversation_id = window.current_conversation_id()
    assert conversation_id is not None
    message = {"type": "tool", "data": {"tool_call_id": "c1", "content": "ok"}}
    store.append_message(conversation_id, message, record.to_json(), "c1")
    window.show_conversation(conversation_id)
    yield window, DeliverableRef(conversation_id, "c1", 0)
    window.close()
    store.close()


def menu_texts(window: MainWindow, ref: DeliverableRef) -> list[str]:
    menu = window.file_actions.menu_for(ref, window)
    texts = [action.text() for action in menu.actions() if action.text()]
    menu.deleteLater()
    return texts


def run(qtbot: QtBot, window: MainWindow, action: str, ref: DeliverableRef) -> None:
    actions = window.remote_actions
    actions.perform(action, ref)
    qtbot.waitUntil(lambda: not actions.busy(), timeout=HANG)


def test_a_remote_card_menu_offers_the_remote_actions_and_no_local_one(
    shown: tuple[MainWindow, DeliverableRef],
) -> None:
    window, ref = shown
    texts = menu_texts(window, ref)
    assert texts[0] == "On devbox (remote)"
    assert texts[1:] == [spec.label for spec in REMOTE_ACTIONS]
    assert not [
        t for t in texts if any(t.replace("&", "").startswith(o) for o in LOCAL_ONLY)
    ]


def test_copy_remote_coordinate_copies_both_forms(
    qtbot: QtBot,
    shown: tuple[MainWindow, DeliverableRef],
    ssh_home: SshHome,
    remote_root: Path,
) -> None:
    window, ref = shown
    server = ssh_home.server
    run(qtbot, window, "copy_url", ref)
    url = f"ssh://{server.user}@devbox:{server.port}{remote_root}/notes.md"
    assert QGuiApplication.clipboard().text() == url
    run(qtbot, window, "copy_scp", ref)
    assert (
        QGuiApplication.clipboard().text()
        == f"{server.user}@devbox:{remote_root}/notes.md"
    )


def test_open_shows_the_remote_file_in_a_tab_and_locate_finds_it_in_the_tree(
    qtbot: QtBot, shown: tuple[MainWindow, DeliverableRef], remote_root: Path
) -> None:
    window, ref = shown
    path = f"{remote_root}/notes.md"
    with qtbot.waitSignal(window.workspace.previewOpened, timeout=HANG) as opened:
        window.file_actions.perform("open", ref)  # the card's double-click
    assert opened.args == [path]
    page = window.workspace.tabs.current_page()
    assert page is not None and page.remote is not None and page.ref == ref

    tree = window.workspace.remote_tree
    assert tree is not None
    with qtbot.waitSignal(tree.located, timeout=HANG) as located:
        window.remote_actions.perform("locate", ref)
    assert located.args == [path]
    assert tree.selected_path() == path


def test_an_opened_card_and_its_tab_hold_the_windows_one_workspace(
    qtbot: QtBot, shown: tuple[MainWindow, DeliverableRef]
) -> None:
    window, ref = shown
    with qtbot.waitSignal(window.workspace.previewOpened, timeout=HANG):
        window.file_actions.perform("open", ref)
    page = window.workspace.tabs.current_page()
    assert page is not None and page.remote is not None
    # The tab, the tree, the chat and the agent all hold the same workspace.
    assert page.remote is window.workspace.remote_workspace()
    assert page.remote is window.workspace_at(page.remote.address)


def test_a_card_file_changed_after_its_check_is_refused_as_it_opens(
    qtbot: QtBot, shown: tuple[MainWindow, DeliverableRef], remote_root: Path
) -> None:
    window, _ref = shown
    workspace = window.workspace.remote_workspace()
    assert workspace is not None
    [entry] = (
        workspace.present(
            {"files": [{"path": "notes.md", "description": "The notes"}]},
            mode=PermissionMode.WORKSPACE_ONLY,
        )
        .result(30)
        .files
    )
    notices: list[str] = []
    window.workspace.notice.connect(notices.append)
    # Rewritten between the card's check and the preview's open.
    (remote_root / "notes.md").write_text("# Notes, rewritten at another length\n")
    window.workspace.open_remote_on(workspace, entry)
    qtbot.waitUntil(lambda: bool(notices), timeout=HANG)
    assert notices == ["Cannot open notes.md: it was modified since it was presented"]
    assert window.workspace.tab_count() == 0


def test_a_changed_remote_file_is_refused_as_changed(
    qtbot: QtBot, shown: tuple[MainWindow, DeliverableRef], remote_root: Path
) -> None:
    window, ref = shown
    refused: list[str] = []
    window.remote_actions.refused.connect(refused.append)
    (remote_root / "notes.md").write_text("# Notes, rewritten at another length\n")
    verdicts: list[str] = []
    window.remote_actions.verdictChanged.connect(lambda _ref, v: verdicts.append(v))
    run(qtbot, window, "open", ref)
    run(qtbot, window, "save_local", ref)  # refused before any dialog
    assert refused == [
        "Can't open notes.md: it was modified since it was presented",
        "Can't save notes.md to this computer: it was modified since it was presented",
    ]
    assert verdicts == ["changed", "changed"]
    assert window.workspace.tab_count() == 0


def test_save_to_local_streams_the_file_to_the_chosen_place(
    qtbot: QtBot,
    shown: tuple[MainWindow, DeliverableRef],
    remote_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window, ref = shown
    target = tmp_path / "saved" / "notes.md"
    target.parent.mkdir()
    monkeypatch.setattr(
        RemoteCardActions, "ask_target", lambda _self, _name: str(target)
    )
    notices: list[str] = []
    window.remote_actions.notice.connect(notices.append)
    run(qtbot, window, "save_local", ref)
    assert target.read_bytes() == (remote_root / "notes.md").read_bytes()
    assert notices == [f"Saved notes.md to {target}"]
    assert list(target.parent.iterdir()) == [target]


def test_a_save_cancelled_from_its_dialog_leaves_nothing(
    qtbot: QtBot,
    shown: tuple[MainWindow, DeliverableRef],
    remote_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window, ref = shown
    target = tmp_path / "saved" / "notes.md"
    target.parent.mkdir()
    monkeypatch.setattr(
        RemoteCardActions, "ask_target", lambda _self, _name: str(target)
    )
    (remote_root / "notes.md").write_bytes(b"x" * (64 * 1024 * 1024))
    # The record must vouch for the big file: present it again.
    workspace = window.workspace.remote_workspace()
    assert workspace is not None
    record = workspace.present(
        {"files": [{"path": "notes.md", "description": "big"}]},
        mode=PermissionMode.WORKSPACE_ONLY,
    ).result(30)
    store = window._store
    message = {"type": "tool", "data": {"tool_call_id": "c2", "content": "ok"}}
    store.append_message(ref.conversation_id, message, record.to_json(), "c2")
    big = DeliverableRef(ref.conversation_id, "c2", 0)
    notices: list[str] = []
    window.remote_actions.notice.connect(notices.append)

    def press_cancel(_action: str) -> None:
        dialog = window.findChild(QProgressDialog)
        assert dialog is not None
        button = dialog.findChild(QPushButton)
        assert button is not None and button.text() == "Cancel"
        button.click()

    window.remote_actions.acted.connect(press_cancel)
    run(qtbot, window, "save_local", big)
    assert notices == ["Saving notes.md was cancelled; nothing was saved"]
    assert list(target.parent.iterdir()) == []


def test_no_remote_card_action_reaches_a_native_opener_from_the_window(
    qtbot: QtBot,
    shown: tuple[MainWindow, DeliverableRef],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    openers: list[tuple[str, tuple[Any, ...]]],
) -> None:
    window, ref = shown
    monkeypatch.setattr(
        RemoteCardActions, "ask_target", lambda _self, _name: str(tmp_path / "n.md")
    )
    menu: QMenu = window.file_actions.menu_for(ref, window)
    for action in menu.actions():
        if action.isEnabled() and action.data():
            action.trigger()
            qtbot.waitUntil(lambda: not window.remote_actions.busy(), timeout=HANG)
    menu.deleteLater()
    window.file_actions.perform("open", ref)
    qtbot.waitUntil(lambda: not window.remote_actions.busy(), timeout=HANG)
    qtbot.waitUntil(lambda: not window.workspace.remote_loading(), timeout=HANG)
    # Every tab action of the remote tab, too.
    page = window.workspace.tabs.current_page()
    assert page is not None
    for name in ("open_native", "show_in_file_manager", "save_copy", "copy_path"):
        window.workspace.tabs.menuActionRequested.emit(name, page)
    assert openers == []
