"""Document tabs: five at most, the LRU inactive one released and freed."""

from __future__ import annotations

import gc
import os
import weakref
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core.filetype import Kind
from app.core.trust.safeio import open_verified
from app.ui.workspace import WorkspaceWidget
from app.ui.workspace.tabs import MAX_TABS
from previewers.markdown.widget import MarkdownPreviewWidget
from previewers.widget import PreviewWidget


def _files(root: Path, count: int) -> list[Path]:
    folder = root / "many"
    folder.mkdir(exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"file{index:03d}.txt"
        path.write_text(f"content {index}\n" * 200)
        paths.append(path)
    return paths


def _open(qtbot: QtBot, workspace: WorkspaceWidget, path: Path) -> PreviewWidget:
    assert workspace.open_path(str(path))
    qtbot.waitUntil(workspace.is_loaded)
    preview = workspace.current_preview()
    assert preview is not None
    return preview


def _flush_deletions() -> None:
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect(0)


def test_sixth_open_releases_the_least_recently_used_inactive_tab(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    paths = _files(root, 6)
    previews = [_open(qtbot, workspace, path) for path in paths[:5]]
    # Use the first tab again: the second becomes the least recently used.
    workspace.tabs.setCurrentIndex(0)
    workspace.tabs.setCurrentIndex(4)
    released: list[str] = []
    workspace.tabs.pageReleased.connect(released.append)
    sixth = _open(qtbot, workspace, paths[5])
    assert workspace.tab_count() == MAX_TABS
    assert released == [str(paths[1])]
    assert previews[1].is_released()
    assert not any(p.is_released() for i, p in enumerate(previews) if i != 1)
    assert workspace.current_preview() is sixth
    qtbot.waitUntil(lambda: not shiboken6.isValid(previews[1]))


def test_reopening_a_released_file_loads_it_again(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    paths = _files(root, 6)
    first = _open(qtbot, workspace, paths[0])
    for path in paths[1:]:
        _open(qtbot, workspace, path)
    assert first.is_released()
    again = _open(qtbot, workspace, paths[0])
    assert again is not first
    assert again.is_loaded()
    assert again.text().startswith("content 0")  # type: ignore[attr-defined]


def test_opening_an_open_file_activates_its_tab(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    paths = _files(root, 2)
    first = _open(qtbot, workspace, paths[0])
    _open(qtbot, workspace, paths[1])
    assert _open(qtbot, workspace, paths[0]) is first
    assert workspace.tab_count() == 2


def test_source_view_of_an_open_file_gets_its_own_tab(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    path = root / "docs" / "guide.md"
    _open(qtbot, workspace, path)
    assert workspace.open_path(str(path), source_view=True)
    assert workspace.tab_count() == 2
    assert workspace.tabs.tabText(1) == "guide.md (source)"


def test_open_verified_takes_ownership_and_keeps_the_ref(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    path = root / "notes.txt"
    file = open_verified(str(path))
    ref = object()
    assert workspace.open_verified(str(path), file, ref=ref)
    qtbot.waitUntil(workspace.is_loaded)
    requested: list[tuple[str, str, object]] = []
    workspace.actionRequested.connect(lambda *args: requested.append(args))
    workspace.tabs.menuActionRequested.emit("copy_path", workspace.tabs.page(0))
    assert requested == [("copy_path", str(path), ref)]
    workspace.close_current()
    assert file.fd == -1


def test_the_recorded_kind_reaches_the_preview_and_survives_a_reload(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    # A record that says Markdown is believed over the name, for text bytes.
    path = root / "notes.txt"
    path.write_text("# Notes\n\nSome *words*.\n")
    assert workspace.open_verified(
        str(path), open_verified(str(path)), ref=object(), kind=Kind.MARKDOWN
    )
    qtbot.waitUntil(workspace.is_loaded)
    assert isinstance(workspace.current_preview(), MarkdownPreviewWidget)
    workspace.reload_current()
    qtbot.waitUntil(workspace.is_loaded)
    assert isinstance(workspace.current_preview(), MarkdownPreviewWidget)


def test_tab_title_is_the_plain_name_and_tooltip_the_path(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    path = root / "a&b <i>.txt"
    path.write_text("x\n")
    _open(qtbot, workspace, path)
    assert workspace.tabs.tabText(0) == "a&&b <i>.txt"
    tip = workspace.tabs.tabToolTip(0)
    assert "&lt;i&gt;" in tip
    assert "<i>" not in tip


def test_closing_a_tab_releases_its_preview(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    preview = _open(qtbot, workspace, root / "notes.txt")
    workspace.close_current()
    assert preview.is_released()
    assert workspace.tab_count() == 0
    qtbot.waitUntil(lambda: not shiboken6.isValid(preview))


def test_shortcut_handlers_switch_tabs_and_zoom(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    paths = _files(root, 3)
    for path in paths:
        _open(qtbot, workspace, path)
    workspace.next_tab()
    assert workspace.tabs.currentIndex() == 0
    workspace.previous_tab()
    assert workspace.tabs.currentIndex() == 2
    preview = workspace.current_preview()
    assert preview is not None
    size = preview._view_font().pointSizeF()  # type: ignore[attr-defined]
    workspace.zoom_in()
    assert preview._view_font().pointSizeF() == size + 1  # type: ignore[attr-defined]
    workspace.zoom_reset()
    assert preview._view_font().pointSizeF() == size  # type: ignore[attr-defined]
    workspace.find_in_current()
    assert preview.find_bar.isVisibleTo(preview)  # type: ignore[attr-defined]


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_hundred_files_in_turn_keep_five_previews_and_bounded_memory(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    paths = _files(root, 100)
    made: list[weakref.ref[PreviewWidget]] = []
    fds_before = len(os.listdir("/proc/self/fd"))
    rss_after_twenty = 0
    for index, path in enumerate(paths):
        made.append(weakref.ref(_open(qtbot, workspace, path)))
        _flush_deletions()
        # Freed on both sides: no Qt object and no Python wrapper left over.
        alive = [p for ref in made if (p := ref()) is not None]
        assert len(alive) <= MAX_TABS
        assert all(shiboken6.isValid(p) for p in alive)
        del alive
        if index == 19:
            rss_after_twenty = _rss()
    growth = _rss() - rss_after_twenty
    assert workspace.tab_count() == MAX_TABS
    assert sum(ref() is not None for ref in made) == MAX_TABS
    # Eighty more previews built and freed: allow allocator slack, not growth
    # in proportion (a kept preview costs far more than 100 KiB each).
    assert growth < 8 * 1024 * 1024, f"RSS grew by {growth / 1024:.0f} KiB"
    # Every released preview closed its descriptor.
    assert len(os.listdir("/proc/self/fd")) <= fds_before + MAX_TABS + 4


def test_empty_workspace_counts_as_loaded(workspace: WorkspaceWidget) -> None:
    assert workspace.tab_count() == 0
    assert workspace.is_loaded()


def test_the_tab_the_limit_closes_is_named_in_a_quiet_notice(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    paths = _files(root, 6)
    for path in paths[:5]:
        _open(qtbot, workspace, path)
    quiet: list[str] = []
    workspace.quietNotice.connect(quiet.append)
    _open(qtbot, workspace, paths[5])
    assert quiet == [f"Closed file000.txt to keep {MAX_TABS} tabs open."]


def test_the_tree_follows_the_active_tab(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    guide, main = root / "docs" / "guide.md", root / "src" / "main.py"
    _open(qtbot, workspace, guide)
    _open(qtbot, workspace, main)
    assert workspace.tree.selected_path() == str(main)
    workspace.tabs.setCurrentIndex(0)
    assert workspace.tree.selected_path() == str(guide)
    assert workspace.tree.isExpanded(workspace.tree.currentIndex().parent())


def test_a_link_to_another_local_page_opens_it_through_the_workspace_checks(
    qtbot: QtBot, workspace: WorkspaceWidget, root: Path
) -> None:
    (root / "docs" / "index.html").write_text('<a href="next.html">next</a>')
    (root / "docs" / "next.html").write_text("<p>the next page</p>")
    page = _open(qtbot, workspace, root / "docs" / "index.html")
    refusals: list[str] = []
    workspace.notice.connect(refusals.append)

    page.pageRequested.emit(str(root / "docs" / "next.html"))  # type: ignore[attr-defined]
    qtbot.waitUntil(workspace.is_loaded)
    current = workspace.current_preview()
    assert current is not None and current.source.path == str(
        root / "docs" / "next.html"
    )
    assert workspace.tab_count() == 2

    page.pageRequested.emit(str(root / ".env"))  # type: ignore[attr-defined]
    assert workspace.tab_count() == 2 and refusals
