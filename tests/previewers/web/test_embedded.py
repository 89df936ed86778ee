"""A page another preview bound or wrote: loaded when it says so, bounded, refused
as root."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.serve.manifest import Bundle, Resource
from app.core.trust.safeio import open_verified
from previewers.context import STANDALONE
from previewers.source import PreviewSource
from previewers.web import made_page_widget
from previewers.web import preview as web_preview
from previewers.web.embedded import bound_page_widget

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
READY = "document.documentElement.dataset.ready === 'yes'"
LATE_READY = (
    b"setTimeout(() => { document.documentElement.dataset.ready = 'yes'; }, 1500);"
)


def _bundle(body: str, script: bytes = b"") -> Bundle:
    page = f'<!DOCTYPE html><meta charset="utf-8"><body>{body}'
    if script:
        page += '<script src="page.js"></script>'
    resources = [Resource.of("index.html", "text/html; charset=utf-8", page.encode())]
    if script:
        resources.append(Resource.of("page.js", "text/javascript", script))
    return Bundle.of("index.html", resources, [])


@pytest.fixture
def shown(qtbot: Any, tmp_path: Path) -> Iterator[Callable[[Bundle, str], Any]]:
    made: list[Any] = []

    def make(bundle: Bundle, ready: str) -> Any:
        path = tmp_path / "notes.md"
        path.write_text("# Notes\n")
        file = open_verified(str(path))
        source = PreviewSource.from_file(str(path), file)
        widget = bound_page_widget(
            source, file, None, bundle=bundle, ready_script=ready,
            what="test pages", context=STANDALONE,
        )  # fmt: skip
        made.append(widget)
        widget.resize(640, 420)
        widget.show()
        return widget

    yield make
    for widget in made:
        widget.release()
        widget.deleteLater()
    if "previewers.web.sandbox" in sys.modules:
        retiring = sys.modules["previewers.web.sandbox"].retiring_count
        qtbot.waitUntil(lambda: retiring() == 0)


def _run(qtbot: Any, widget: Any, script: str) -> Any:
    box: list[Any] = []
    widget.page.runJavaScript(script, 0, box.append)
    qtbot.waitUntil(lambda: bool(box))
    return box[0]


def test_as_root_the_page_is_refused_at_once_with_the_reason(
    shown, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    widget = shown(_bundle("<p>x</p>"), READY)
    assert widget.is_settled() and not widget.is_loaded()
    assert widget.reason() == f"Previews of test pages {web_preview.ROOT_REASON}"
    assert widget.page is None


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_a_page_is_loaded_only_once_its_ready_script_says_so(qtbot, shown) -> None:
    widget = shown(_bundle("<p>drawing</p>", LATE_READY), READY)
    seen: list[Any] = []
    widget.loaded.connect(lambda: widget.page.runJavaScript(READY, 0, seen.append))
    qtbot.waitUntil(widget.is_settled, timeout=20000)
    qtbot.waitUntil(lambda: bool(seen))
    assert widget.is_loaded() and seen == [True]


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_a_page_that_never_gets_ready_is_stopped_after_its_budget(
    qtbot, shown, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_preview, "LOAD_BUDGET_S", 3.0)
    widget = shown(_bundle("<p>never done</p>"), READY)
    qtbot.waitUntil(widget.is_settled, timeout=20000)
    assert not widget.is_loaded()
    assert widget.stopped_text() == web_preview.LOAD_TIMEOUT_MESSAGE.format(seconds=3)


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_scrolling_to_an_anchor_brings_its_element_into_view(qtbot, shown) -> None:
    tall = '<div style="height: 5000px"></div><h2 id="heading-end">End</h2>'
    widget = shown(_bundle(tall), "true")
    qtbot.waitUntil(widget.is_loaded, timeout=20000)
    assert _run(qtbot, widget, "window.scrollY") == 0
    widget.scroll_to_anchor("heading-end")
    qtbot.waitUntil(lambda: _run(qtbot, widget, "window.scrollY") > 4000)


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_a_written_page_is_finished_once_bound_and_loaded_once_ready(
    qtbot: Any, tmp_path: Path
) -> None:
    path = tmp_path / "notes.ipynb"
    path.write_text("{}")
    file = open_verified(str(path))
    source = PreviewSource.from_file(str(path), file)

    def render(_file: Any, _cancelled: Callable[[], bool]) -> bytes:
        late = LATE_READY.decode()
        return f"<!DOCTYPE html><body><p>written</p><script>{late}</script>".encode()

    def finish(bundle: Bundle) -> Bundle:
        entry = bundle.entry
        data = entry.data.replace(b"written", b"finished")
        served = Resource.of(entry.key, entry.content_type, data)
        return Bundle.of(bundle.entry_key, [served], list(bundle.left_out))

    widget = made_page_widget(
        source, file, None, render=render, what="test pages",
        finish=finish, ready_script=READY,
    )  # fmt: skip
    seen: list[Any] = []
    widget.loaded.connect(lambda: widget.page.runJavaScript(READY, 0, seen.append))
    widget.show()
    try:
        qtbot.waitUntil(widget.is_settled, timeout=20000)
        qtbot.waitUntil(lambda: bool(seen))
        assert widget.is_loaded() and seen == [True]
        assert _run(qtbot, widget, "document.querySelector('p').textContent") == (
            "finished"
        )
    finally:
        widget.release()
        widget.deleteLater()
        retiring = sys.modules["previewers.web.sandbox"].retiring_count
        qtbot.waitUntil(lambda: retiring() == 0)
