"""The built-in browser window: the preview sandbox with reload, zoom and close."""

from __future__ import annotations

import io
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PIL import Image
from PySide6.QtWidgets import QLabel

from app.core.trust.safeio import open_verified
from app.demo.workspace import build_demo_workspace
from app.ui.window.browser_window import BrowserWindow
from previewers.context import PreviewContext
from previewers.web import preview as web_preview

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    build_demo_workspace(tmp_path)
    return tmp_path


@pytest.fixture
def windows(qtbot: Any) -> Any:
    made: list[BrowserWindow] = []

    def make(path: Path, root: Path | None = None) -> BrowserWindow:
        context = PreviewContext(root=str(root) if root else None)
        window = BrowserWindow(str(path), open_verified(str(path)), context=context)
        made.append(window)
        window.show()
        qtbot.waitUntil(window.preview.is_settled, timeout=20000)
        return window

    yield make
    for window in made:
        if shiboken6.isValid(window):  # closed windows delete themselves
            window.close()
    if "previewers.web.sandbox" in sys.modules:
        retiring = sys.modules["previewers.web.sandbox"].retiring_count
        qtbot.waitUntil(lambda: retiring() == 0)


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_window_says_it_is_isolated_and_names_the_file_plainly(
    windows, tmp_path, monkeypatch
):
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    page = tmp_path / "<b>bold.html"
    page.write_text("<p>hi</p>")
    window = windows(page)
    assert window.windowTitle() == "<b>bold.html"
    label = window.findChild(QLabel, "isolatedLabel")
    assert label.text() == ("Isolated preview — no access to your files or the network")
    assert label.textFormat().name == "PlainText"
    assert label.isVisible()
    names = [action.text() for action in window.toolbar.actions() if action.text()]
    assert names == ["Reload", "Zoom out", "Reset zoom", "Zoom in", "Close"]


def test_as_root_an_image_is_refused_with_the_reason(windows, demo, monkeypatch):
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    window = windows(demo / "report" / "chart.png")
    assert not window.preview.is_loaded()
    assert "need the browser sandbox" in window.preview.message_text()
    assert "(root)" in window.preview.message_text()


def test_as_root_a_page_shows_its_source(windows, demo, monkeypatch):
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    window = windows(demo / "report" / "index.html", demo)
    assert window.preview.is_loaded()
    assert window.preview.showing_source()
    assert "Quarterly sales analysis" in window.preview.source_text()


def test_close_releases_the_file(windows, demo, monkeypatch, qtbot):
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    window = windows(demo / "report" / "index.html", demo)
    with qtbot.waitSignal(window.closed):
        window.action("close").trigger()
    assert window.preview.is_released()


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_demo_report_renders_with_its_css_script_and_image(windows, demo, qtbot):
    window = windows(demo / "report" / "index.html", demo)
    preview = window.preview
    assert preview.is_loaded()
    assert window.windowTitle() == "index.html"

    def evaluate(script: str) -> Any:
        box: list[Any] = []
        preview.page.runJavaScript(script, 0, box.append)
        qtbot.waitUntil(lambda: bool(box))
        return box[0]

    qtbot.waitUntil(
        lambda: (
            "Waiting"
            not in evaluate("document.getElementById('script-status').textContent")
        ),
        timeout=10000,
    )
    assert evaluate("document.querySelectorAll('#quarters tbody tr').length") == 4
    assert evaluate("document.querySelector('img').naturalWidth") > 0
    header = "getComputedStyle(document.querySelector('header')).backgroundColor"
    assert evaluate(header) != "rgba(0, 0, 0, 0)"


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_zoom_reload_and_close_work_on_the_page(windows, demo, qtbot):
    window = windows(demo / "report" / "index.html", demo)
    preview = window.preview
    window.action("zoom_in").trigger()
    assert preview.view.zoomFactor() == pytest.approx(1.2)
    window.action("zoom_reset").trigger()
    assert preview.view.zoomFactor() == pytest.approx(1.0)
    window.action("zoom_out").trigger()
    assert preview.view.zoomFactor() == pytest.approx(1 / 1.2)
    with qtbot.waitSignal(preview.page.loadFinished, timeout=20000):
        window.action("reload").trigger()
    url = preview.publication.url
    assert _status(url) == 200
    with qtbot.waitSignal(window.closed):
        window.action("close").trigger()
    assert _status(url) == 410


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_an_image_is_shown_in_a_wrapper_page(windows, tmp_path, qtbot):
    picture = tmp_path / "photo.png"
    buffer = io.BytesIO()
    Image.new("RGB", (30, 20), (10, 120, 200)).save(buffer, "PNG")
    picture.write_bytes(buffer.getvalue())
    window = windows(picture)
    assert window.preview.is_loaded()
    box: list[Any] = []
    window.preview.page.toHtml(box.append)
    qtbot.waitUntil(lambda: bool(box))
    assert '<img src="photo.png" alt="photo.png">' in box[0]


def test_the_browser_chooses_by_the_bytes_not_the_name(
    windows, demo, tmp_path, monkeypatch
):
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    words = tmp_path / "chart.png"
    words.write_text("not a picture at all\n")
    window = windows(words)
    assert not window.preview.is_loaded()
    assert "shows pages and images" in window.preview.message_text()
    disguised = tmp_path / "page.html"
    disguised.write_bytes((demo / "report" / "chart.png").read_bytes())
    window = windows(disguised)
    assert "Previews of images in the built-in browser" in (
        window.preview.message_text()
    )
