"""The code previewer on files over 2 MiB: first page, line index, fence, bad input."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from app.formats.line_index import LineIndex
from previewers import registry
from previewers.text import CodePreviewer
from previewers.text.paged_view import DISPLAY_LINE_CHARS, PagedTextView
from previewers.text.widget import CHANGED_NOTICE, CodePreviewWidget
from tests.previewers.conftest import OpenPreview

LINES = 120_000  # about 3.4 MiB: two pages


@pytest.fixture(autouse=True)
def code_first(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(
        registry.REGISTRY, "_table", [CodePreviewer(), *registry.REGISTRY._table]
    )
    yield


def _log(path: Path, lines: int = LINES, end: bytes = b"\n") -> Path:
    path.write_bytes(
        b"".join(b"%06d entry of the big log" % n + end for n in range(lines))
    )
    return path


def _opened(
    qtbot: QtBot, preview: object, *, indexed: bool = True
) -> CodePreviewWidget:
    assert isinstance(preview, CodePreviewWidget)
    preview.resize(700, 400)
    preview.show()
    qtbot.waitUntil(preview.is_loaded)
    if indexed:
        qtbot.waitUntil(preview.is_indexed, timeout=20_000)
    return preview


def _view(preview: CodePreviewWidget) -> PagedTextView:
    assert preview.paged_view is not None
    return preview.paged_view


def test_first_page_shows_then_the_index_covers_the_whole_file(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The index waits until the first page has been looked at: however fast
    # it is, the first page must have been shown without it.
    looked = threading.Event()
    build = LineIndex.build

    def held_build(*args: Any, **kwargs: Any) -> LineIndex:
        looked.wait(timeout=20)
        return build(*args, **kwargs)

    monkeypatch.setattr(LineIndex, "build", held_build)
    preview = _opened(qtbot, open_preview(_log(tmp_path / "big.log")), indexed=False)
    view = _view(preview)
    assert view.shown_lines()[0] == "000000 entry of the big log"
    first_page_lines = view.source().total
    assert not preview.is_indexed()
    looked.set()
    assert 0 < first_page_lines < LINES
    qtbot.waitUntil(preview.is_indexed, timeout=20_000)
    assert preview.line_count() == LINES
    assert view.verticalScrollBar().maximum() > first_page_lines
    assert preview.status.text().endswith(f"{LINES:,} lines")
    assert preview.go_bar.range_label.text() == f"of {LINES:,}"


def test_go_to_line_reads_just_that_part_of_the_file(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _opened(qtbot, open_preview(_log(tmp_path / "big.log")))
    preview.go_to_line(119_000)
    view = _view(preview)
    assert "118999 entry of the big log" in view.shown_lines()
    assert preview.current_line() == 119_000
    assert view.copy_selection() == "118999 entry of the big log"
    assert QGuiApplication.clipboard().text() == "118999 entry of the big log"


def test_find_across_pages_shows_the_match_line(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _opened(qtbot, open_preview(_log(tmp_path / "big.log")))
    preview.focus_find()
    preview.find_next("117321 entry")
    qtbot.waitUntil(lambda: preview.find_status() == "Line 117,322", timeout=20_000)
    assert "117321 entry of the big log" in _view(preview).shown_lines()
    preview.find_next("no such text")
    qtbot.waitUntil(lambda: preview.find_status() == "No matches", timeout=20_000)


def test_find_counts_the_matches_of_the_whole_file_without_waiting(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _opened(qtbot, open_preview(_log(tmp_path / "big.log")))
    preview.focus_find()
    preview.find_next("7 ENTRY")
    # 12,000 lines end in 7: one match each.
    qtbot.waitUntil(lambda: preview.match_count_text() == "12,000 matches")
    assert preview.find_status() == "Line 8"
    assert not preview.find_bar.cancel.isVisible()
    preview.find_next("117321 entry")
    qtbot.waitUntil(lambda: preview.match_count_text() == "1 match")
    preview.find_next("no such text")
    qtbot.waitUntil(lambda: preview.match_count_text() == "0 matches")


def test_cancel_stops_the_search_and_the_count(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    preview = _opened(qtbot, open_preview(_log(tmp_path / "big.log")))
    counting = threading.Event()
    count = LineIndex.count

    def slow_count(self: LineIndex, needle: str, **kwargs: Any) -> int:
        counting.set()
        polled = kwargs["cancelled"]
        while not polled():  # stands for a count over a very large file
            time.sleep(0.01)
        return count(self, needle, **kwargs)

    monkeypatch.setattr(LineIndex, "count", slow_count)
    preview.focus_find()
    preview.find_next("entry")
    qtbot.waitUntil(counting.is_set)
    qtbot.waitUntil(lambda: preview.find_status() == "Line 1")
    assert preview.match_count_text().startswith("Counting…")
    assert preview.find_bar.cancel.isVisible()
    preview.find_bar.cancel.click()
    assert preview.find_status() == "Find cancelled"
    assert preview.match_count_text() == ""
    assert not preview.find_bar.cancel.isVisible()
    qtbot.wait(100)  # the cancelled count's outcome changes nothing
    assert preview.match_count_text() == ""


def test_find_before_the_index_waits_for_it(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _opened(qtbot, open_preview(_log(tmp_path / "big.log")), indexed=False)
    preview.find_next("119998 entry")
    qtbot.waitUntil(lambda: preview.find_status() == "Line 119,999", timeout=20_000)


@pytest.mark.parametrize("change", ["append", "truncate", "replace"])
def test_a_changed_file_stops_paging_and_keeps_what_is_shown(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, change: str
) -> None:
    path = _log(tmp_path / "big.log")
    preview = _opened(qtbot, open_preview(path))
    reloads: list[bool] = []
    preview.reloadRequested.connect(lambda: reloads.append(True))
    view = _view(preview)
    shown = view.shown_lines()
    if change == "append":
        with open(path, "ab") as out:
            out.write(b"a new line\n")
    elif change == "truncate":
        os.truncate(path, 1000)
    else:
        _log(tmp_path / "other.log", 130_000, b" (new)\n")
        os.replace(tmp_path / "other.log", path)
    preview.go_to_line(100_000)
    assert view.is_frozen()
    assert view.shown_lines() == shown
    assert CHANGED_NOTICE in preview.notice_text()
    assert preview.notice.reload_button.isVisibleTo(preview)
    preview.notice.reload_button.click()
    assert reloads == [True]


def test_a_file_that_grows_while_indexing_gets_the_notice(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _log(tmp_path / "big.log")
    build = LineIndex.build

    def grow_then_build(*args: Any, **kwargs: Any) -> LineIndex:
        # The file grows after the first page was read, before indexing.
        with open(path, "ab") as out:
            out.write(b"more\n")
        return build(*args, **kwargs)

    monkeypatch.setattr(LineIndex, "build", grow_then_build)
    preview = _opened(qtbot, open_preview(path), indexed=False)
    qtbot.waitUntil(lambda: CHANGED_NOTICE in preview.notice_text(), timeout=20_000)
    assert not preview.is_indexed()
    assert _view(preview).shown_lines()[0] == "000000 entry of the big log"


def test_a_100_mb_single_line_shows_cut_and_stays_responsive(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "one.txt"
    with open(path, "wb") as out:
        chunk = b"0123456789abcdef" * 65_536
        for _ in range(100):
            out.write(chunk)
    preview = _opened(qtbot, open_preview(path), indexed=False)
    shown = _view(preview).shown_lines()
    assert len(shown) == 1 and len(shown[0]) == DISPLAY_LINE_CHARS + 1
    qtbot.waitUntil(preview.is_indexed, timeout=30_000)
    assert preview.line_count() == 1
    assert len(_view(preview).shown_lines()[0]) == DISPLAY_LINE_CHARS + 1


def test_cr_only_large_file_counts_lines_by_cr(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _opened(qtbot, open_preview(_log(tmp_path / "mac.log", end=b"\r")))
    assert preview.line_count() == LINES
    preview.go_to_line(40_001)
    assert "040000 entry of the big log" in _view(preview).shown_lines()


def test_release_during_indexing_stops_quietly(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    build = LineIndex.build
    building, never = threading.Event(), threading.Event()

    def held(*args: Any, cancelled: Callable[[], bool], **kwargs: Any) -> Any:
        # The build goes on once the preview is let go: it is surely running.
        building.set()
        while not cancelled():
            never.wait(0.005)
        return build(*args, cancelled=cancelled, **kwargs)

    monkeypatch.setattr(LineIndex, "build", held)
    preview = _opened(
        qtbot, open_preview(_log(tmp_path / "big.log", 400_000)), indexed=False
    )
    qtbot.waitUntil(building.is_set)
    preview.release()
    assert preview.is_released()
    assert not preview.is_indexed()
