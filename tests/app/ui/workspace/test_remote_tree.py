"""The remote tree over real sshd: lazy folders, locked secrets, links, locate."""

from __future__ import annotations

import os
from pathlib import Path

from pytestqt.qtbot import QtBot

from app.remote.workspace import RemoteWorkspace
from app.ui.workspace.remote_tree import LOADING, RemoteTreeView
from app.ui.workspace.tree import NODE_ROLE, RULE_ROLE, Node
from app.workspace.choose import ssh_workspace
from tests.remote.fixtures import manager as manager
from tests.remote.fixtures import remote_root as remote_root
from tests.remote.fixtures import ssh_home as ssh_home
from tests.remote.fixtures import sshd as sshd
from tests.remote.fixtures import workspace as workspace


def children(view: RemoteTreeView, path: str) -> dict[str, object]:
    item = view.tree_model.listed_item(path)
    assert item is not None
    found = {}
    for row in range(item.rowCount()):
        child = item.child(row)
        found[child.text()] = child.data(NODE_ROLE)
    return found


def test_folders_are_listed_when_opened_with_secrets_locked_and_links_shown(
    qtbot: QtBot, workspace: RemoteWorkspace, remote_root: Path
) -> None:
    (remote_root / ".env").write_text("TOKEN=1")
    (remote_root / "data").mkdir()
    (remote_root / "data" / "deep").mkdir()
    (remote_root / "data" / "table.csv").write_text("a,b\n")
    os.symlink("/etc/passwd", remote_root / "passwd-link")
    view = RemoteTreeView(ssh_workspace(workspace))
    qtbot.addWidget(view)
    root = str(remote_root)

    with qtbot.waitSignal(view.tree_model.folderListed, timeout=30_000):
        pass
    top = children(view, root)
    # Folders first, then files, by name; the link is shown, not followed.
    assert list(top) == ["data", "report", ".env", "notes.md", "passwd-link"]
    assert top["passwd-link"] == Node.SYMLINK
    env = view.tree_model.listed_item(f"{root}/.env")
    assert env is not None and env.data(RULE_ROLE)
    # The subfolder is not listed until it is opened.
    data = view.tree_model.listed_item(f"{root}/data")
    assert data is not None and data.child(0).text() == LOADING

    refused: list[str] = []
    view.refused.connect(refused.append)
    view.activated.emit(env.index())
    link = view.tree_model.listed_item(f"{root}/passwd-link")
    assert link is not None
    # Rows are the local tree's: a remote link shows its target, never followed.
    assert "\nSymbolic link to /etc/passwd (never followed)<" in link.toolTip()
    view.activated.emit(link.index())
    assert refused[0].startswith("Cannot open .env: denied by read-deny rule")
    assert "symbolic link" in refused[1]

    with qtbot.waitSignal(view.tree_model.folderListed, timeout=30_000):
        view.expand(data.index())
    assert children(view, f"{root}/data") == {
        "deep": Node.FOLDER,
        "table.csv": Node.FILE,
    }
    opened: list[str] = []
    view.openRequested.connect(opened.append)
    table = view.tree_model.listed_item(f"{root}/data/table.csv")
    assert table is not None
    view.activated.emit(table.index())
    assert opened == [f"{root}/data/table.csv"]


def test_locate_opens_the_folders_down_to_a_file_and_selects_it(
    qtbot: QtBot, workspace: RemoteWorkspace, remote_root: Path
) -> None:
    deep = remote_root / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "result.json").write_text("{}")
    view = RemoteTreeView(ssh_workspace(workspace))
    qtbot.addWidget(view)
    target = f"{remote_root}/a/b/c/result.json"

    with qtbot.waitSignal(view.located, timeout=30_000) as located:
        assert view.locate(target)
    assert located.args == [target]
    assert view.selected_path() == target
    assert not view.locate("/etc/passwd")


def test_a_folder_that_cannot_be_listed_says_why(
    qtbot: QtBot, workspace: RemoteWorkspace, remote_root: Path
) -> None:
    (remote_root / "gone").mkdir()
    view = RemoteTreeView(ssh_workspace(workspace))
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.tree_model.folderListed, timeout=30_000):
        pass
    gone = view.tree_model.listed_item(f"{remote_root}/gone")
    assert gone is not None
    (remote_root / "gone").rmdir()

    with qtbot.waitSignal(view.tree_model.folderListed, timeout=30_000):
        view.expand(gone.index())
    assert gone.child(0).text().startswith("Cannot list this folder: ")


def test_a_folder_cut_short_says_it_holds_more_than_is_listed(
    qtbot: QtBot, workspace: RemoteWorkspace, remote_root: Path
) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (remote_root / name).write_text(name)
    view = RemoteTreeView(ssh_workspace(workspace), limit=2)
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.tree_model.folderListed, timeout=30_000):
        pass
    root = view.tree_model.root_item
    assert root is not None
    rows = [root.child(row).text() for row in range(root.rowCount())]
    assert len(rows) == 3
    assert rows[-1] == "This folder holds more entries than are listed"
