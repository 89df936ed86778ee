"""Changed on disk: the preview stays, a notice offers Reload; deletion is said."""

from __future__ import annotations

import os
from pathlib import Path

from pytestqt.qtbot import QtBot

from app.ui.workspace import WorkspaceWidget
from app.ui.workspace.tabs import DiskState
from previewers.text.widget import CodePreviewWidget


def _open_text(
    qtbot: QtBot, workspace: WorkspaceWidget, path: Path
) -> CodePreviewWidget:
    assert workspace.open_path(str(path))
    qtbot.waitUntil(workspace.is_loaded)
    preview = workspace.current_preview()
    assert isinstance(preview, CodePreviewWidget)
    return preview


def test_modified_file_keeps_its_preview_until_reload(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    path = root / "notes.txt"
    preview = _open_text(qtbot, workspace, path)
    page = workspace.tabs.current_page()
    assert page is not None
    path.write_text("second version, longer than the first\n")
    qtbot.waitUntil(lambda: page.disk_state is DiskState.CHANGED)
    assert page.notice_text() == "This file changed on disk."
    assert page.reload_button.isVisibleTo(page)
    assert preview.text() == "first notes\n"
    with qtbot.waitSignal(workspace.loaded):
        page.reload_button.click()
    reloaded = workspace.current_preview()
    assert isinstance(reloaded, CodePreviewWidget)
    assert reloaded is not preview
    assert preview.is_released()
    assert reloaded.text() == "second version, longer than the first\n"
    assert page.notice_text() == ""


def test_deleted_file_says_so_without_reload(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    path = root / "notes.txt"
    preview = _open_text(qtbot, workspace, path)
    page = workspace.tabs.current_page()
    assert page is not None
    path.unlink()
    qtbot.waitUntil(lambda: page.disk_state is DiskState.DELETED)
    assert page.notice_text() == "This file was deleted on disk."
    assert not page.reload_button.isVisibleTo(page)
    assert preview.text() == "first notes\n"


def test_sibling_changes_raise_no_notice(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    _open_text(qtbot, workspace, root / "notes.txt")
    page = workspace.tabs.current_page()
    assert page is not None
    other = workspace.watcher
    with qtbot.waitSignal(other.pathChanged, timeout=3000) as blocker:
        (root / ".hidden").write_text("changed too\n")
        (root / "notes.txt").touch()
    assert blocker.args == [str(root / "notes.txt")]
    qtbot.waitUntil(lambda: page.disk_state is DiskState.CHANGED)


def test_event_without_a_real_change_raises_no_notice(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    path = root / "notes.txt"
    _open_text(qtbot, workspace, path)
    page = workspace.tabs.current_page()
    assert page is not None
    # The watcher reports the path, but size, mtime and inode are unchanged.
    workspace.watcher.pathChanged.emit(os.path.normpath(str(path)))
    assert page.disk_state is DiskState.SAME
    assert page.notice_text() == ""


def test_reload_shortcut_refuses_a_file_now_denied(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path, policy: object
) -> None:
    path = root / "notes.txt"
    preview = _open_text(qtbot, workspace, path)
    policy.extra.append("notes.txt")  # type: ignore[attr-defined]
    with qtbot.waitSignal(workspace.notice) as blocker:
        workspace.reload_current()
    assert blocker.args == [
        "Cannot open notes.txt: denied by read-deny rule notes.txt (test)."
    ]
    assert workspace.current_preview() is preview


def test_watcher_stops_on_shutdown(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    _open_text(qtbot, workspace, root / "notes.txt")
    assert workspace.watcher.watched_files() == {str(root / "notes.txt")}
    workspace.close_current()
    assert workspace.watcher.watched_files() == set()
    workspace.shutdown()
    assert workspace.tab_count() == 0


def test_workspace_screenshot(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path, tmp_path: Path
) -> None:
    (root / "docs" / "report.txt").write_text(
        "Quarterly report\n================\n\n"
        "Revenue grew 12% while costs stayed flat.\n"
        "The new pipeline cut processing time in half.\n"
    )
    for path in (root / "src" / "main.py", root / "docs" / "guide.md"):
        assert workspace.open_path(str(path))
        qtbot.waitUntil(workspace.is_loaded)
    target = root / "docs" / "report.txt"
    _open_text(qtbot, workspace, target)
    workspace.reveal(str(target))
    page = workspace.tabs.current_page()
    assert page is not None
    with target.open("a") as handle:
        handle.write("A late addition.\n")
    qtbot.waitUntil(lambda: page.disk_state is DiskState.CHANGED)
    assert workspace.tab_count() == 3
    image = workspace.grab()
    assert image.width() == 1000
    assert image.save(str(tmp_path / "workspace.png"))
