"""HTML and SVG previews: previewer choice, Source/Preview, info bar, root fallback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.trust.safeio import open_verified
from previewers import registry
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource
from previewers.web import HTML_PREVIEWER, SVG_PREVIEWER
from previewers.web import preview as web_preview

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


PAGE = (
    b'<!DOCTYPE html><html><head><meta charset="utf-8"><title>Report</title>'
    b'<link rel="stylesheet" href="style.css"></head><body><h1 id="h">Hi &amp; bye'
    b'</h1><img src="../outside.png"><img src="https://example.com/x.png">'
    b'<script type="module" src="mod.js"></script></body></html>\n'
)
SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30">'
    b'<rect width="40" height="30" fill="#2563eb"/></svg>\n'
)


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register both previewers ahead of the rest, as the app will."""
    monkeypatch.setattr(
        registry.REGISTRY,
        "_table",
        [SVG_PREVIEWER, HTML_PREVIEWER, *registry.REGISTRY._table],
    )


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    (root / "report").mkdir(parents=True)
    (root / "report" / "index.html").write_bytes(PAGE)
    (root / "report" / "style.css").write_text("h1 { color: rgb(9, 8, 7); }")
    (root / "outside.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "drawing.svg").write_bytes(SVG)
    yield root


@pytest.fixture
def opened(qtbot: Any, site: Path, table: None) -> Iterator[Any]:
    made: list[Any] = []

    # Pages bind their files within report/, as in a workspace rooted there.
    workspace = PreviewContext(root=str(site / "report"))

    def make(
        relative: str,
        *,
        source_view: bool = False,
        context: PreviewContext = workspace,
    ) -> Any:
        path = site / relative
        file = open_verified(str(path))
        source = PreviewSource.from_file(str(path), file, source_view=source_view)
        widget = registry.choose(source).create(source, file, None, context=context)
        made.append(widget)
        widget.resize(640, 420)
        widget.show()
        qtbot.waitUntil(widget.is_settled, timeout=20000)
        return widget

    yield make
    for widget in made:
        widget.release()
        widget.deleteLater()
    if "previewers.web.sandbox" in sys.modules:
        retiring = sys.modules["previewers.web.sandbox"].retiring_count
        qtbot.waitUntil(lambda: retiring() == 0)


def _source(site: Path, relative: str, *, source_view: bool = False) -> PreviewSource:
    with open_verified(str(site / relative)) as file:
        return PreviewSource.from_file(
            str(site / relative), file, source_view=source_view
        )


def test_registry_picks_svg_and_html_previewers_by_content(site, table):
    assert registry.choose(_source(site, "drawing.svg")) is SVG_PREVIEWER
    assert registry.choose(_source(site, "report/index.html")) is HTML_PREVIEWER
    (site / "drawing-named.png").write_bytes(SVG)
    assert registry.choose(_source(site, "drawing-named.png")) is SVG_PREVIEWER


def test_show_source_and_binary_look_alikes_go_elsewhere(site, table):
    shown = _source(site, "report/index.html", source_view=True)
    assert registry.choose(shown) not in (HTML_PREVIEWER, SVG_PREVIEWER)
    svg_source = _source(site, "drawing.svg", source_view=True)
    assert registry.choose(svg_source) not in (HTML_PREVIEWER, SVG_PREVIEWER)
    (site / "fake.html").write_bytes(b"\x00\x01\x02\x03" * 100)
    assert registry.choose(_source(site, "fake.html")) is not HTML_PREVIEWER


def test_importing_the_previewers_loads_no_web_engine():
    code = (
        "import sys\n"
        "import previewers.web\n"
        "print(sorted(m for m in sys.modules if 'WebEngine' in m))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_the_page_source_is_coloured_as_show_source_colours_it(
    opened, site: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from previewers.text.view import CodeTextView

    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    context = PreviewContext(
        root=str(site / "report"), source_text=registry.coloured_source
    )
    widget = opened("report/index.html", context=context)
    assert isinstance(widget.source_view, CodeTextView)
    assert widget.source_text() == PAGE.decode()

    def coloured() -> bool:
        block = widget.source_view.document().begin()
        plain = widget.source_view.palette().text().color()
        while block.isValid():
            formats = block.layout().formats()
            if any(run.format.foreground().color() != plain for run in formats):
                return True
            block = block.next()
        return False

    qtbot.waitUntil(coloured)


def test_as_root_the_page_source_is_shown_with_the_reason(
    opened, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    widget = opened("report/index.html")
    assert widget.is_loaded()
    assert widget.page is None
    assert widget.showing_source()
    assert widget.source_text() == PAGE.decode()
    assert widget.info_bar.summary_text().startswith(
        "Previews of web pages need the browser sandbox, which cannot run as the "
        "administrator (root). Showing the source instead."
    )
    assert not widget.preview_button.isEnabled()


def test_as_root_no_web_engine_is_even_imported(site):
    code = f"""
import sys
from PySide6.QtWidgets import QApplication
application = QApplication([])
from app.core.trust.safeio import open_verified
from previewers import web as html
from previewers.web import preview as web_preview
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource
web_preview.engine_refusal = lambda: "root"
path = {str(site / "report" / "index.html")!r}
file = open_verified(path)
widget = html.HTML_PREVIEWER.create(PreviewSource.from_file(path, file), file, None)
while not widget.is_settled():
    application.processEvents()
print(widget.is_loaded(), sorted(m for m in sys.modules if "WebEngine" in m))
widget.release()
"""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.stdout.strip() == "True []", done.stderr


def test_as_root_an_svg_shows_its_source(opened, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    widget = opened("drawing.svg")
    assert widget.is_loaded()
    assert widget.source_text() == SVG.decode()
    assert "Previews of SVG images need the browser sandbox" in (
        widget.info_bar.summary_text()
    )


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_html_preview_lists_left_out_resources_and_toggles_source(opened, qtbot):
    widget = opened("report/index.html")
    assert widget.is_loaded()
    assert not widget.showing_source()
    lines = widget.info_bar.lines()
    assert any(line.startswith("Left out: ../outside.png — ") for line in lines)
    assert any(line.startswith("Left out: https://example.com/x.png") for line in lines)
    assert any(line.startswith("Left out: mod.js — module") for line in lines)
    # The browser still asks for ../outside.png, outside the prefix: blocked.
    qtbot.waitUntil(lambda: len(widget.blocked_urls()) == 1)
    assert widget.blocked_urls()[0].endswith("/cap/outside.png")
    assert widget.info_bar.summary_text() == (
        "This page loads 1 thing from the web; previews are offline: example.com "
        "(image). 2 resources left out, 1 request blocked."
    )
    assert widget.info_bar.details.isHidden()
    widget.info_bar.details_button.click()
    assert widget.info_bar.details.isVisible()
    widget.source_button.click()
    assert widget.showing_source()
    assert widget.source_text() == PAGE.decode()
    widget.preview_button.click()
    assert not widget.showing_source()
    box: list[Any] = []
    script = "getComputedStyle(document.getElementById('h')).color"
    widget.page.runJavaScript(script, 0, box.append)
    qtbot.waitUntil(lambda: bool(box))
    assert box == ["rgb(9, 8, 7)"]


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_svg_is_shown_as_an_image_in_a_page_without_script(opened, qtbot):
    widget = opened("drawing.svg")
    assert widget.is_loaded()
    from PySide6.QtWebEngineCore import QWebEngineSettings

    settings = widget.page.settings()
    assert not settings.testAttribute(QWebEngineSettings.WebAttribute.JavascriptEnabled)
    box: list[Any] = []
    widget.page.toHtml(box.append)
    qtbot.waitUntil(lambda: bool(box))
    assert '<img src="drawing.svg" alt="drawing.svg">' in box[0]
    widget.source_button.click()
    assert widget.source_text() == SVG.decode()


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_zoom_changes_the_page_and_source_size(opened):
    widget = opened("report/index.html")
    widget.zoom_in()
    assert widget.view.zoomFactor() == pytest.approx(1.2)
    widget.zoom_out()
    widget.zoom_out()
    assert widget.zoom_factor() == pytest.approx(1 / 1.2)
    widget.zoom_reset()
    assert widget.view.zoomFactor() == pytest.approx(1.0)


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_a_page_outside_the_workspace_uses_its_own_folder_only(opened, site):
    widget = opened("report/index.html", context=STANDALONE)
    assert widget.is_loaded()
    assert any("../outside.png" in line for line in widget.info_bar.lines())


def test_a_page_that_cannot_be_bound_fails_with_the_reason(opened, site, monkeypatch):
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: None)
    (site / "report" / ".env.html").write_bytes(PAGE)
    widget = opened("report/.env.html")
    assert not widget.is_loaded()
    assert "denied by read-deny rule" in widget.message_text()


def _looping_page(site: Path) -> str:
    """A page whose script never ends: its load never finishes by itself."""
    (site / "report" / "loop.js").write_text("for (;;) {}\n")
    (site / "report" / "loop.html").write_text(
        '<!DOCTYPE html><title>Loop</title><script src="loop.js"></script><p>never'
    )
    return "report/loop.html"


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_a_page_whose_script_never_ends_is_stopped_after_its_budget(
    opened, site, monkeypatch
):
    monkeypatch.setattr(web_preview, "LOAD_BUDGET_S", 3.0)
    widget = opened(_looping_page(site))
    assert not widget.is_loaded()
    assert widget.stopped_text() == web_preview.LOAD_TIMEOUT_MESSAGE.format(seconds=3)
    assert "did not finish loading within 3 seconds" in widget.stopped_text()
    assert not widget.reload_button.isHidden()


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_a_renderer_that_dies_while_loading_ends_on_its_own_message(
    qtbot, site, table, monkeypatch
):
    # As when a renderer runs out of memory: it ends before the load does.
    monkeypatch.setattr(web_preview, "LOAD_BUDGET_S", 3600.0)
    path = site / _looping_page(site)
    file = open_verified(str(path))
    source = PreviewSource.from_file(str(path), file)
    context = PreviewContext(root=str(site / "report"))
    widget = registry.choose(source).create(source, file, None, context=context)
    try:
        widget.show()
        qtbot.waitUntil(
            lambda: widget.page is not None and widget.page.renderProcessPid() > 0,
            timeout=20000,
        )
        os.kill(widget.page.renderProcessPid(), 9)
        qtbot.waitUntil(widget.is_settled, timeout=20000)
        qtbot.wait(500)  # the load's own end, if it comes, changes nothing
        assert widget.stopped_text() == (
            "The page's renderer was stopped, so the page is not shown."
        )
        assert widget.stopped_text() != web_preview.SANDBOX_OFF_MESSAGE
        assert not widget.reload_button.isHidden()
    finally:
        widget.release()
        widget.deleteLater()


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
@pytest.mark.parametrize("label", ["hex", "base64", "rot13", "zlib", "idna"])
def test_a_page_naming_a_charset_that_is_no_text_encoding_loads(opened, site, label):
    (site / "report" / "odd.html").write_text(
        f'<!DOCTYPE html><meta charset="{label}"><title>Odd</title><p>café</p>'
    )
    widget = opened("report/odd.html")
    assert widget.is_loaded()
    assert any(f"<meta charset={label}>" in line for line in widget.info_bar.lines())
    widget.source_button.click()
    assert "<p>café</p>" in widget.source_text()


OOM_PROBE = """
import sys, time
from PySide6.QtWidgets import QApplication
from previewers.web import sandbox
switches = sandbox.chromium_flags
# A small script heap, so that the page's renderer runs out of memory soon.
sandbox.chromium_flags = lambda *ports: [
    *switches(*ports), "--js-flags=--max-old-space-size=24"
]
from app.core.trust.safeio import open_verified
from previewers.context import PreviewContext
from previewers.source import PreviewSource
from previewers.web import HTML_PREVIEWER
app = QApplication([])
path = sys.argv[1]
file = open_verified(path)
source = PreviewSource.from_file(path, file)
context = PreviewContext(root=sys.argv[2])
widget = HTML_PREVIEWER.create(source, file, None, context=context)
widget.show()
end = time.monotonic() + 60
while not widget.is_settled() and time.monotonic() < end:
    app.processEvents()
    time.sleep(0.01)
end = time.monotonic() + 1  # whatever the load reports after the crash
while time.monotonic() < end:
    app.processEvents()
    time.sleep(0.01)
print(widget.stopped_text())
"""


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_a_renderer_out_of_memory_ends_on_the_crash_not_the_sandbox(site):
    (site / "report" / "oom.js").write_text(
        "var kept = []; for (;;) { kept.push(new Array(100000).fill(1.5)); }\n"
    )
    page = site / "report" / "oom.html"
    page.write_text('<!DOCTYPE html><script src="oom.js"></script><p>never')
    result = subprocess.run(
        [sys.executable, "-c", OOM_PROBE, str(page), str(site / "report")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[3],
    )
    stopped = result.stdout.strip()
    assert stopped.startswith("The page's renderer "), result.stderr[-2000:]
    assert stopped.endswith(", so the page is not shown.")


class _Published:
    """What a link is judged against: the page's URL, prefix and entry key."""

    def __init__(self, entry_key: str) -> None:
        self.prefix = "/cap-token123/"
        self.url = f"http://127.0.0.1:4711{self.prefix}{entry_key}"
        self.entry_key = entry_key

    def revoke(self) -> None:
        """Nothing is served: the page is never loaded in these tests."""


def _link(text: str) -> Any:
    from PySide6.QtCore import QUrl

    return QUrl(text)


def test_a_link_to_another_page_beside_the_entry_is_a_local_page(site):
    entry = str(site / "report" / "index.html")
    published = _Published("index.html")
    local = web_preview.local_page_for(
        _link("http://127.0.0.1:4711/cap-token123/other.html"), published, entry
    )
    assert local == str(site / "report" / "other.html")
    nested = _Published("report/index.html")  # a bundle rooted at the workspace
    assert web_preview.local_page_for(
        _link("http://127.0.0.1:4711/cap-token123/docs/a%20b.html"), nested, entry
    ) == str(site / "docs" / "a b.html")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:4711/cap-token123/style.css",  # not a page
        "http://127.0.0.1:4711/cap-other/other.html",  # another publication
        "http://127.0.0.1:4712/cap-token123/other.html",  # another port
        "http://localhost:4711/cap-token123/other.html",  # another host
        "http://127.0.0.1:4711/cap-token123/../outside.html",  # out of the bundle
        "http://127.0.0.1:4711/cap-token123/a/%2e%2e/%2e%2e/x.html",
        "https://example.com/other.html",
        "file:///etc/passwd.html",
    ],
)
def test_other_links_are_never_local_pages(site, url):
    entry = str(site / "report" / "index.html")
    assert (
        web_preview.local_page_for(_link(url), _Published("index.html"), entry) is None
    )


def test_a_clicked_link_is_offered_in_a_bar_and_opens_only_when_asked(
    opened, site, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    widget = opened("report/index.html")
    widget.publication = _Published("index.html")
    pages, opened_urls = [], []
    widget.pageRequested.connect(pages.append)
    widget.open_url = lambda url: opened_urls.append(url.toString())

    widget.follow_link(_link("http://127.0.0.1:4711/cap-token123/other.html"))
    assert widget.link_text() == "This page links to other.html."
    assert pages == []  # a click by the page's script opens nothing by itself
    widget.link_button.click()
    assert pages == [str(site / "report" / "other.html")]
    assert widget.link_text() == ""

    widget.follow_link(_link("https://example.com/docs"))
    assert (
        widget.link_text()
    ) == "Open this link in your web browser? https://example.com/docs"
    assert opened_urls == []
    widget.link_button.click()
    assert opened_urls == ["https://example.com/docs"]

    widget.follow_link(_link("mailto:someone@example.com"))
    assert "only web links" in widget.link_text()
    assert not widget.link_button.isVisibleTo(widget)

    widget.follow_link(_link("http://127.0.0.1:4711/cap-token123/style.css"))
    assert "only other pages" in widget.link_text()
    assert "style.css" in widget.link_text()
    assert "cap-token123" not in widget.link_text()  # the capability stays hidden
    assert pages == [str(site / "report" / "other.html")]


@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_an_engine_started_ahead_shows_pages_under_the_same_switches(
    tmp_path: Path,
) -> None:
    import socket

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    page = tmp_path / "index.html"
    page.write_text(
        f'<h1 id="h">ahead</h1><img src="http://127.0.0.1:{port}/a.png">'
        f'<link rel="preconnect" href="http://127.0.0.1:{port}/">'
    )
    code = f"""
import os, time
from PySide6.QtWidgets import QApplication
from app.ui.window.application import create_application
application = create_application()
from app.core.trust.safeio import open_verified
from previewers import web
from previewers.source import PreviewSource
from previewers.web import sandbox
began = time.perf_counter()
assert web.prepare_web_engine()
ahead_ms = (time.perf_counter() - began) * 1000
switches = sandbox.engine_switches()
assert "QTWEBENGINE_CHROMIUM_FLAGS" not in os.environ
path = {str(page)!r}
file = open_verified(path)
widget = web.HTML_PREVIEWER.create(PreviewSource.from_file(path, file), file, None)
widget.show()
began = time.perf_counter()
while not widget.is_settled():
    application.processEvents()
opened_ms = (time.perf_counter() - began) * 1000
end = time.monotonic() + 1.5
while time.monotonic() < end:
    application.processEvents()
    time.sleep(0.01)
same = sandbox.engine_switches() is switches
print(widget.is_loaded(), len(widget.blocked_urls()), same)
print(f"AHEAD {{ahead_ms:.0f}} OPENED {{opened_ms:.0f}}")
widget.release()
"""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loaded, _blocked, same = done.stdout.split("\n")[0].split()
    # The page shows, and what it asks of another port never connects.
    assert (loaded, same) == ("True", "True")
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()


def test_pages_and_svgs_are_known_by_kind_or_by_name() -> None:
    from previewers.web import needs_web_engine

    assert needs_web_engine("html", "report")
    for name in ("index.HTML", "a.htm", "chart.svg", "map.SVGZ"):
        assert needs_web_engine("", name)
    for kind, name in (("", "notes.md"), ("image", "photo.png"), ("text", "x.txt")):
        assert not needs_web_engine(kind, name)
