"""The file tree: lazy, read-only, locks denied files, never follows links."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QThreadPool
from PySide6.QtGui import QStandardItem
from pytestqt.qtbot import QtBot

from app.core.trust.records import FileEntry
from app.ui.workspace import WorkspaceWidget
from app.ui.workspace.tree import (
    BATCH,
    NODE_ROLE,
    PATH_ROLE,
    RULE_ROLE,
    FileTreeModel,
    Node,
)

from .conftest import PolicyBox


def _names(item: QStandardItem) -> list[str]:
    return [item.child(row).text() for row in range(item.rowCount())]


def _entry(path: Path, scope: str = "external") -> FileEntry:
    status = path.stat()
    return FileEntry(
        str(path), str(path), "a file", scope, status.st_size,
        status.st_mtime_ns, status.st_dev, status.st_ino, "text",
    )  # fmt: skip


def _activate(workspace: WorkspaceWidget, path: Path) -> None:
    item = workspace.tree.tree_model.find_item(str(path))
    assert item is not None
    workspace.tree.activated.emit(item.index())


def test_folders_are_listed_only_when_expanded(
    workspace: WorkspaceWidget, root: Path
) -> None:
    model = workspace.tree.tree_model
    top = model.root_item
    assert top is not None
    assert _names(top) == ["docs", "src", ".env", ".hidden", "link.txt", "notes.txt"]
    docs = top.child(0)
    assert docs.child(0).data(NODE_ROLE) == Node.PLACEHOLDER  # not listed yet
    workspace.tree.expand(docs.index())
    assert _names(docs) == ["guide.md"]


def test_huge_folder_lists_in_batches(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    big = root / "big"
    big.mkdir()
    for index in range(BATCH + 5):
        (big / f"f{index:05d}").touch()
    workspace.set_root(root)
    assert workspace.reveal(str(big / f"f{BATCH + 3:05d}"))
    item = workspace.tree.tree_model.find_item(str(big))
    assert item is not None
    assert item.rowCount() == BATCH + 5


def test_huge_folder_shows_a_more_row(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    big = root / "big"
    big.mkdir()
    for index in range(BATCH + 5):
        (big / f"f{index:05d}").touch()
    workspace.set_root(root)
    item = workspace.tree.tree_model.find_item(str(big))
    assert item is not None
    workspace.tree.expand(item.index())
    qtbot.waitUntil(lambda: item.rowCount() == BATCH + 1)
    more = item.child(BATCH)
    assert more.data(NODE_ROLE) == Node.MORE
    assert more.text() == "Show 5 more…"
    workspace.tree.activated.emit(more.index())
    assert item.rowCount() == BATCH + 5


def test_denied_file_is_locked_and_refused_with_the_rule(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    item = workspace.tree.tree_model.find_item(str(root / ".env"))
    assert item is not None
    assert item.data(RULE_ROLE) == ".env (built-in)"
    assert "Locked: denied by read-deny rule .env (built-in)" in item.toolTip()
    with qtbot.waitSignal(workspace.notice) as blocker:
        _activate(workspace, root / ".env")
    assert blocker.args == [
        "Cannot open .env: denied by read-deny rule .env (built-in)."
    ]
    assert workspace.tab_count() == 0


def test_rule_added_after_listing_still_refuses_the_open(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path, policy: PolicyBox
) -> None:
    workspace.tree.tree_model.find_item(str(root / "notes.txt"))
    policy.extra.append("notes.*")
    with qtbot.waitSignal(workspace.notice) as blocker:
        _activate(workspace, root / "notes.txt")
    assert blocker.args == [
        "Cannot open notes.txt: denied by read-deny rule notes.* (test)."
    ]
    assert workspace.tab_count() == 0


def test_final_symlink_is_marked_and_refused(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    item = workspace.tree.tree_model.find_item(str(root / "link.txt"))
    assert item is not None
    assert item.data(NODE_ROLE) == Node.SYMLINK
    with qtbot.waitSignal(workspace.notice) as blocker:
        _activate(workspace, root / "link.txt")
    assert "symbolic link" in blocker.args[0]
    assert workspace.tab_count() == 0
    # The open path refuses too, whoever asks.
    with qtbot.waitSignal(workspace.notice):
        assert not workspace.open_path(str(root / "link.txt"))


def test_file_replaced_by_symlink_after_listing_is_refused(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    workspace.tree.tree_model.find_item(str(root / "notes.txt"))
    os.remove(root / "notes.txt")
    (root / "notes.txt").symlink_to(root / "src" / "main.py")
    with qtbot.waitSignal(workspace.notice) as blocker:
        _activate(workspace, root / "notes.txt")
    assert "symbolic link" in blocker.args[0]
    assert workspace.tab_count() == 0


def test_activating_a_file_opens_it(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    with qtbot.waitSignal(workspace.loaded):
        _activate(workspace, root / "src" / "main.py")
    assert workspace.tab_count() == 1
    assert workspace.is_loaded()


def test_external_node_lists_only_the_files(
    workspace: WorkspaceWidget, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "sibling.txt").write_text("not presented\n")
    report = outside / "report.txt"
    report.write_text("external\n")
    workspace.set_external_entries(
        [_entry(report), _entry(root / "notes.txt", scope="workspace")]
    )
    node = workspace.tree.tree_model.external_item
    assert node is not None
    assert node.text() == "External files"
    assert _names(node) == ["report.txt"]
    child = node.child(0)
    assert child.data(PATH_ROLE) == str(report)
    assert str(report) in child.toolTip()
    assert not child.hasChildren()


def test_reveal_selects_and_expands(workspace: WorkspaceWidget, root: Path) -> None:
    target = root / "docs" / "guide.md"
    assert workspace.reveal(str(target))
    assert workspace.tree.selected_path() == str(target)
    docs = workspace.tree.tree_model.find_item(str(root / "docs"))
    assert docs is not None
    assert workspace.tree.isExpanded(docs.index())


def test_reveal_external_file_selects_it_under_external_files(
    workspace: WorkspaceWidget, tmp_path: Path
) -> None:
    report = tmp_path / "report.txt"
    report.write_text("x\n")
    workspace.set_external_entries([_entry(report)])
    assert workspace.reveal(str(report))
    index = workspace.tree.currentIndex()
    assert index.parent().data() == "External files"


def test_reveal_of_an_unknown_path_says_so(
    qtbot: QtBot, workspace: WorkspaceWidget, tmp_path: Path
) -> None:
    with qtbot.waitSignal(workspace.notice) as blocker:
        assert not workspace.reveal(str(tmp_path / "nowhere.txt"))
    assert blocker.args == ["nowhere.txt is not in the file tree."]


def test_tree_is_read_only(workspace: WorkspaceWidget) -> None:
    tree = workspace.tree
    assert tree.editTriggers() == tree.EditTrigger.NoEditTriggers
    assert tree.dragDropMode() == tree.DragDropMode.NoDragDrop
    assert tree.accessibleName() == "Workspace files"


def test_files_show_a_type_icon_and_their_size_beside_them(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    (root / "src" / "big.bin").write_bytes(b"\0" * 1536)  # listed when first opened
    model = workspace.tree.tree_model
    notes = model.find_item(str(root / "notes.txt"))
    big = model.find_item(str(root / "src" / "big.bin"))
    guide = model.find_item(str(root / "docs" / "guide.md"))
    assert notes is not None and big is not None and guide is not None
    size_of = lambda item: item.index().siblingAtColumn(1).data()  # noqa: E731
    assert size_of(notes) == "12 bytes"
    assert size_of(big) == "1.5 KiB"
    folder = model.find_item(str(root / "docs"))
    assert folder is not None and not size_of(folder)
    # Icons by kind: a Markdown file and a text file do not look the same.
    assert not guide.icon().isNull() and not notes.icon().isNull()
    assert guide.icon().cacheKey() != notes.icon().cacheKey()


def _big_folder(root: Path, count: int) -> Path:
    big = root / "big"
    big.mkdir()
    for index in range(count):
        (big / f"f{index:06d}").touch()
    (big / "sub").mkdir()
    return big


def _expand_big_folder(
    workspace: WorkspaceWidget, root: Path, count: int
) -> tuple[Path, FileTreeModel, QStandardItem]:
    """Expand a new folder of ``count`` files; its listing is left running."""
    big = _big_folder(root, count)
    workspace.set_root(root)
    model = workspace.tree.tree_model
    item = model.find_item(str(big))
    assert item is not None
    workspace.tree.expand(item.index())
    assert model.listing_in_progress()
    return big, model, item


def test_a_big_folder_is_listed_on_a_worker_while_the_window_goes_on(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    _, model, item = _expand_big_folder(workspace, root, 20_000)
    # Back at once: the folder still shows its "Loading…" row.
    assert _names(item) == ["Loading…"]
    qtbot.waitUntil(lambda: not model.listing_in_progress(), timeout=20_000)
    names = _names(item)
    assert names[0] == "sub" and names[1] == "f000000"  # folders first, sorted
    assert len(names) == BATCH + 1 and names[-1] == f"Show {20_001 - BATCH:,} more…"


def _workers_done(qtbot: QtBot) -> None:
    assert QThreadPool.globalInstance().waitForDone(20_000)
    qtbot.wait(50)  # their queued answers arrive


def test_revealing_a_row_lists_its_folder_now_and_the_late_listing_is_dropped(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    big, _, item = _expand_big_folder(workspace, root, 5_000)
    assert workspace.reveal(str(big / "f000007"))
    listed = _names(item)
    assert listed.count("f000007") == 1
    _workers_done(qtbot)
    assert _names(item) == listed


def test_a_listing_still_running_when_the_root_changes_never_lands(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path, tmp_path: Path
) -> None:
    _, model, _ = _expand_big_folder(workspace, root, 5_000)
    other = tmp_path / "other"
    other.mkdir()
    (other / "only.txt").touch()
    workspace.set_root(other)
    assert not model.listing_in_progress()
    _workers_done(qtbot)
    top = model.root_item
    assert top is not None and _names(top) == ["only.txt"]


def test_a_big_folder_that_cannot_be_read_on_says_so(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path, monkeypatch
) -> None:
    import app.ui.workspace.tree as tree

    big = _big_folder(root, 2_000)
    workspace.set_root(root)
    model = workspace.tree.tree_model
    item = model.find_item(str(big))
    assert item is not None

    def failing(folder, entries, policy):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tree, "listed_entries", failing)
    workspace.tree.expand(item.index())
    qtbot.waitUntil(lambda: not model.listing_in_progress(), timeout=20_000)
    assert _names(item) == ["Cannot list this folder: Permission denied"]


def test_a_right_click_on_a_file_row_asks_for_its_file_menu(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    workspace.show()
    qtbot.waitExposed(workspace)
    tree = workspace.tree
    item = tree.tree_model.find_item(str(root / "notes.txt"))
    assert item is not None
    folder = tree.tree_model.find_item(str(root / "docs"))
    assert folder is not None
    asked: list[tuple[str, object]] = []
    workspace.fileMenuRequested.connect(
        lambda path, remote, _at: asked.append((path, remote))
    )

    spot = tree.visualRect(folder.index()).center()
    right_click(tree, spot)  # a folder: no file menu
    spot = tree.visualRect(item.index()).center()
    right_click(tree, spot)

    assert asked == [(str(root / "notes.txt"), None)]
    assert tree.selected_path() == str(root / "notes.txt")

    # The Menu key asks for the current row's menu, wherever the pointer is.
    guide = tree.tree_model.find_item(str(root / "docs" / "guide.md"))
    assert guide is not None
    tree.setCurrentIndex(guide.index())
    right_click(tree, spot, keyboard=True)
    assert asked[-1] == (str(root / "docs" / "guide.md"), None)


def test_a_name_gets_the_row_before_its_size(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    from app.ui.workspace.tree_rows import size_fits

    (root / "summary-of-the-quarter.md").write_text("# Summary\n" * 50)
    workspace.set_root(root)
    workspace.show()
    workspace.splitter.setSizes([210, 790])
    qtbot.waitExposed(workspace)
    tree = workspace.tree
    item = tree.tree_model.find_item(str(root / "summary-of-the-quarter.md"))
    assert item is not None
    name_room = tree.visualRect(item.index()).width()
    row_room = tree.viewport().width() - tree.visualRect(item.index()).left()
    # The whole row is the name's; the size is drawn only in what it leaves.
    assert name_room >= row_room - 1
    assert item.index().siblingAtColumn(1).data() == "500 bytes"
    assert not size_fits(150, 40, 180)
    assert size_fits(100, 40, 180)


def right_click(tree: Any, spot: Any, *, keyboard: bool = False) -> None:
    """Ask for ``tree``'s context menu at ``spot`` (viewport), as a user does."""
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication

    reason = (
        QContextMenuEvent.Reason.Keyboard
        if keyboard
        else QContextMenuEvent.Reason.Mouse
    )
    event = QContextMenuEvent(reason, spot, tree.viewport().mapToGlobal(spot))
    QApplication.sendEvent(tree.viewport(), event)
