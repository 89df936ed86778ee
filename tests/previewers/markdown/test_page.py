"""Markdown with diagrams and math, drawn in the sandboxed page: what a person sees.

The documents are ``tests/data/markdown`` (see its README) and, for the bounds,
documents made here. Each test opens the file through the registry's Markdown
previewer, as the workspace does, and reads what the page drew from the page.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication

from app.core.trust.policy import Policy
from app.core.trust.safeio import open_verified
from app.formats.diagram_page import PageColors
from app.formats.markdown_diagrams import MAX_DIAGRAMS
from app.formats.markdown_html import render_markdown
from previewers import registry
from previewers.context import PreviewContext
from previewers.markdown import widget as markdown_widget
from previewers.markdown.document import LoadedImage
from previewers.markdown.page import bind_markdown_page
from previewers.markdown.widget import MarkdownPreviewWidget
from previewers.source import PreviewSource
from previewers.web import preview as web_preview

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
DATA = Path(__file__).resolve().parents[2] / "data" / "markdown"
REPO = Path(__file__).resolve().parents[3]
COLORS = PageColors("#111111", "#fafafa", "#777777", "#0044cc", "#eeeeee", "#cccccc")
FLOWCHART = "```mermaid\nflowchart LR\n  A[Start] --> B[Done]\n```\n\n"


def in_the_engine(test: Callable[..., None]) -> Callable[..., None]:
    """Mark a test that draws in QtWebEngine, which cannot sandbox as root."""
    unless_root = pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
    return pytest.mark.webengine(unless_root(test))


Opened = Callable[..., MarkdownPreviewWidget]


@pytest.fixture
def opened(qtbot: Any, tmp_path: Path) -> Iterator[Opened]:
    """Open a Markdown file of ``tmp_path`` (the workspace) as the window does."""
    made: list[MarkdownPreviewWidget] = []

    def make(name: str, *, shown: bool = True) -> MarkdownPreviewWidget:
        path = tmp_path / name
        file = open_verified(str(path))
        source = PreviewSource.from_file(str(path), file)
        context = PreviewContext(root=str(tmp_path), policy_provider=lambda: Policy([]))
        preview = registry.choose(source).create(source, file, None, context=context)
        assert isinstance(preview, MarkdownPreviewWidget)
        made.append(preview)
        preview.resize(900, 700)
        if shown:
            preview.show()
        qtbot.waitUntil(preview.is_settled, timeout=40000)
        return preview

    yield make
    for preview in made:
        preview.release()
        preview.deleteLater()
    if "previewers.web.sandbox" in sys.modules:
        retiring = sys.modules["previewers.web.sandbox"].retiring_count
        qtbot.waitUntil(lambda: retiring() == 0, timeout=10000)


@pytest.fixture
def report(tmp_path: Path) -> str:
    shutil.copy(DATA / "report.md", tmp_path / "report.md")
    return "report.md"


def _in_page(qtbot: Any, preview: MarkdownPreviewWidget, script: str) -> Any:
    """What ``script`` (an expression giving JSON text) says in the drawn page."""
    view = preview.page_view
    assert view is not None
    box: list[Any] = []
    view.page.runJavaScript(script, 0, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=10000)
    return json.loads(box[0])


FIGURES = """JSON.stringify([...document.querySelectorAll('figure.diagram')].map(f => {
  const svg = f.querySelector('.diagram-drawing svg');
  const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  return {
    text: svg ? [...svg.querySelectorAll('text, span, p')].map(e => e.textContent)
      .join(' ') : '',
    width: box.width, height: box.height,
    failed: f.classList.contains('failed'),
    notice: f.querySelector('.diagram-notice').textContent,
    open: f.querySelector('details').open,
    source: f.querySelector('.diagram-code').textContent,
  };
}))"""


@in_the_engine
def test_a_report_draws_its_diagrams_and_its_math_and_keeps_dollars_as_text(
    qtbot, opened, report
) -> None:
    preview = opened(report)
    assert preview.is_loaded() and preview.showing_page()
    assert preview.notice_text() == ""
    figures = _in_page(qtbot, preview, FIGURES)
    assert len(figures) == 4
    flow, sequence, gantt, broken = figures
    for drawn, labels in (
        (flow, ["Browser", "API gateway", "Pricing service", "Price database"]),
        (sequence, ["Cart", "Pricing", "GET /price/42", "200 fallback price"]),
        (gantt, ["Rollout of the retry fix", "Remove retries", "Load test"]),
    ):
        assert not drawn["failed"] and drawn["notice"] == ""
        assert drawn["width"] > 200 and drawn["height"] > 80
        for label in labels:
            assert label in drawn["text"]
    assert broken["failed"] and broken["open"] and broken["text"] == ""
    assert broken["notice"].startswith("This diagram could not be drawn: Parse error")
    assert "A[Pricing] --> B{Cache" in broken["source"]
    math = _in_page(
        qtbot,
        preview,
        """JSON.stringify({
          inline: document.querySelectorAll('span.math > .katex').length,
          display: document.querySelectorAll('.math.display .katex-display').length,
          errors: document.querySelectorAll('.katex-error, .math-error').length,
          fonts: [...document.fonts].filter(f => f.status === 'loaded')
            .map(f => f.family),
          fontErrors: [...document.fonts].filter(f => f.status === 'error').length,
          dollars: [...document.querySelectorAll('p')]
            .filter(p => p.textContent.includes('hosting bill'))
            .map(p => [p.textContent, p.querySelectorAll('.katex').length]),
        })""",
    )
    assert math["inline"] == 6 and math["display"] == 2 and math["errors"] == 0
    # KaTeX's own fonts, fetched in CORS mode from the sandbox, are loaded.
    assert {"KaTeX_Main", "KaTeX_Math", "KaTeX_Size2"} <= set(math["fonts"])
    assert math["fontErrors"] == 0
    [(sentence, typeset)] = math["dollars"]
    assert "from $5 and $10 per day on the two test" in sentence and typeset == 0


@in_the_engine
def test_a_report_drawn_in_a_tab_behind_another_gets_its_charts_width(
    qtbot, opened, report
) -> None:
    preview = opened(report, shown=False)
    assert preview.is_loaded() and preview.page_view is not None
    preview.show()
    qtbot.waitUntil(
        lambda: _in_page(qtbot, preview, "JSON.stringify(innerWidth)") > 500
    )
    gantt = _in_page(qtbot, preview, FIGURES)[2]
    assert "Load test" in gantt["text"] and gantt["width"] > 500


@in_the_engine
def test_each_diagrams_source_and_the_documents_are_one_click_away(
    qtbot, opened, report
) -> None:
    preview = opened(report)
    clicked = _in_page(
        qtbot,
        preview,
        """(() => {
          const figure = document.querySelector('figure.diagram');
          const before = figure.querySelector('details').open;
          figure.querySelector('summary').click();
          const code = figure.querySelector('.diagram-code');
          return JSON.stringify([before, code.offsetHeight > 0, code.textContent]);
        })()""",
    )
    assert clicked[:2] == [False, True]
    assert clicked[2].startswith("flowchart LR\n    Client([Browser]) --> Gateway")
    preview.source_button.click()
    assert not preview.showing_page()
    assert preview.source_text.toPlainText() == (DATA / "report.md").read_text()
    preview.source_button.click()
    assert preview.showing_page()


@in_the_engine
def test_in_the_dark_diagrams_and_math_are_drawn_light_on_dark(
    qtbot, opened, report, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.ui.window.application import dark_palette

    application = QApplication.instance()
    assert isinstance(application, QApplication)
    light = application.palette()
    application.setPalette(dark_palette())
    try:
        preview = opened(report)
    finally:
        application.setPalette(light)
    assert preview.is_loaded() and preview.showing_page()
    colours = _in_page(
        qtbot,
        preview,
        """JSON.stringify({
          page: getComputedStyle(document.documentElement).backgroundColor,
          text: getComputedStyle(document.body).color,
          math: getComputedStyle(document.querySelector('.katex')).color,
          node: getComputedStyle(document.querySelector('.node rect')).fill,
          label: getComputedStyle(document.querySelector('.nodeLabel')).color,
        })""",
    )

    def lightness(css: str) -> int:
        return QColor(css if css.startswith("#") else _rgb(css)).lightness()

    assert lightness(colours["page"]) < 60
    assert lightness(colours["text"]) > 180
    assert colours["math"] == colours["text"]
    assert lightness(colours["node"]) < 100  # Mermaid's dark theme
    assert lightness(colours["label"]) > 150


def _rgb(css: str) -> str:
    numbers = css[css.index("(") + 1 : css.index(")")].split(",")[:3]
    return "#" + "".join(f"{int(float(n)):02x}" for n in numbers)


@in_the_engine
def test_a_heading_in_the_outline_scrolls_the_page_to_it(qtbot, opened, report) -> None:
    preview = opened(report)
    assert _in_page(qtbot, preview, "JSON.stringify(window.scrollY)") == 0
    last = preview.outline_model.index(len(preview.headings()) - 1)
    preview.outline.clicked.emit(last)
    qtbot.waitUntil(
        lambda: _in_page(qtbot, preview, "JSON.stringify(window.scrollY)") > 300
    )


@in_the_engine
def test_an_image_beside_the_document_is_shown_in_the_page(
    qtbot, opened, tmp_path
) -> None:
    image = QImage(40, 20, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(tmp_path / "chart.png"), "PNG")
    (tmp_path / "notes.md").write_text("Area $\\pi r^2$.\n\n![chart](chart.png)\n")
    preview = opened("notes.md")
    assert preview.showing_page()
    shown = _in_page(
        qtbot,
        preview,
        "JSON.stringify([...document.images].map(i => [i.alt, i.naturalWidth]))",
    )
    assert shown == [["chart", 40]]


@in_the_engine
def test_five_hundred_diagrams_are_capped_with_a_notice(
    qtbot, opened, tmp_path
) -> None:
    (tmp_path / "many.md").write_text("# Many\n\n" + FLOWCHART * 500)
    preview = opened("many.md")
    assert preview.is_loaded() and preview.showing_page()
    assert (
        f"Only the first {MAX_DIAGRAMS} diagrams are drawn; the other 450 are "
        "shown as their source."
    ) in preview.notice_text()
    counts = _in_page(
        qtbot,
        preview,
        """JSON.stringify([
          document.querySelectorAll('.diagram-drawing svg').length,
          document.querySelectorAll('main > pre.diagram-code').length])""",
    )
    assert counts == [MAX_DIAGRAMS, 450]


@in_the_engine
def test_a_megabyte_of_diagram_source_is_refused_with_a_notice(
    qtbot, opened, tmp_path
) -> None:
    huge = "flowchart LR\n" + "  A --> B\n" * 100_000
    (tmp_path / "huge.md").write_text(f"```mermaid\n{huge}```\n\n{FLOWCHART}")
    preview = opened("huge.md")
    assert preview.is_loaded() and preview.showing_page()
    assert "1 diagram(s) not drawn: over 50,000 characters" in preview.notice_text()
    figures = _in_page(qtbot, preview, FIGURES)
    refused, drawn = figures
    assert refused["notice"].startswith(
        "This diagram is not drawn: its source has 1,000,013 characters"
    )
    assert refused["text"] == "" and not refused["open"]
    assert "Start" in drawn["text"]


@in_the_engine
def test_pathological_formulas_are_bounded(qtbot, opened, tmp_path) -> None:
    nested = "{" * 1_900 + "x" + "}" * 1_900
    (tmp_path / "evil.md").write_text(
        "Expands: $\\def\\a{\\a\\a}\\a$\n\n"
        f"Deep: ${nested}$\n\n"
        "Huge: $\\rule{100000em}{100000em}$\n\n"
        "Fine: $x^2$\n"
    )
    preview = opened("evil.md")
    assert preview.is_loaded() and preview.showing_page()
    drawn = _in_page(
        qtbot,
        preview,
        """JSON.stringify([...document.querySelectorAll('.math')].map(m => [
          m.querySelector('.katex-error') ? 'error' :
            m.classList.contains('math-error') ? 'not drawn' : 'drawn',
          Math.round(m.getBoundingClientRect().height)]))""",
    )
    expands, deep, huge, fine = drawn
    assert expands[0] == "error"
    assert deep[0] in ("error", "not drawn", "drawn")  # whichever, bounded
    assert huge[0] == "drawn" and huge[1] < 50 * 20  # capped at 50 em
    assert fine[0] == "drawn"


@in_the_engine
def test_diagrams_past_the_pages_drawing_time_show_their_source_with_a_notice(
    qtbot, opened, report, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.formats import diagram_page

    monkeypatch.setattr(diagram_page, "DRAWING_BUDGET_MS", 0)
    preview = opened(report)
    assert preview.is_loaded() and preview.showing_page()
    figures = _in_page(qtbot, preview, FIGURES)
    assert len(figures) == 4
    for figure in figures:
        assert figure["failed"] and figure["open"] and figure["text"] == ""
        assert figure["notice"].startswith("This diagram is not drawn: the diagrams")
    assert figures[0]["source"].startswith("flowchart LR")


@in_the_engine
def test_a_page_that_cannot_finish_drawing_leaves_the_text_with_a_notice(
    qtbot, opened, report, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_preview, "LOAD_BUDGET_S", 2.0)
    monkeypatch.setattr(markdown_widget, "DRAWN_SCRIPT", "false")
    preview = opened(report)
    assert preview.is_loaded() and not preview.showing_page()
    assert preview.page_view is None
    assert preview.notice_text() == (
        "The diagrams and math could not be drawn (The page did not finish loading "
        "within 2 seconds (a script on it may never end), so it was stopped); "
        "shown as text."
    )
    assert "sequenceDiagram" in preview.text()


def test_as_root_diagrams_and_math_are_shown_as_text_with_the_reason(
    qtbot, opened, report, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    preview = opened(report)
    assert preview.is_loaded() and preview.page_view is None
    assert preview.notice_text() == (
        "Diagrams and math are shown as text: previews of diagrams and math need "
        "the browser sandbox, which cannot run as the administrator (root)."
    )
    assert "$$\nE[L] = h" in preview.text()


def test_the_page_serves_the_documents_images_by_their_checked_bytes(
    tmp_path: Path,
) -> None:
    text = "Area $x$.\n\n![chart](chart.png) ![big](big.png) ![gone](gone.png)\n"
    rendered = render_markdown(text)
    images = (
        LoadedImage("chart.png", QImage(4, 4, QImage.Format.Format_RGB32),
                    data=b"\x89PNG chart", mime="image/png"),
        LoadedImage("big.png", QImage(4, 4, QImage.Format.Format_RGB32)),
        LoadedImage("gone.png", None, "no such file"),
    )  # fmt: skip
    page = bind_markdown_page(
        text, rendered, images, title="n.md", colors=COLORS, dark=False,
        cancelled=lambda: False,
    )  # fmt: skip
    assert page.bundle is not None and page.notices == ()
    served = page.bundle.resources["images/0"]
    assert (served.data, served.content_type) == (b"\x89PNG chart", "image/png")
    assert [(item.reference, item.reason) for item in page.bundle.left_out] == [
        ("big.png", "size")
    ]
    html = page.bundle.entry.data.decode()
    assert '<img src="images/0" alt="chart">' in html
    assert '<span class="missing-image">[big]</span>' in html
    assert '<span class="missing-image">[gone]</span>' in html


@in_the_engine
def test_the_view_command_screenshot_shows_the_diagram(tmp_path) -> None:
    shutil.copy(DATA / "report.md", tmp_path / "report.md")
    shot = tmp_path / "out.png"
    done = subprocess.run(
        [
            sys.executable, "-m", "app", "view", str(tmp_path / "report.md"),
            "--data-dir", str(tmp_path / "data"), "--screenshot", str(shot),
            "--wait-ms", "40000",
        ],
        capture_output=True, text=True, timeout=120, cwd=REPO,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    image = QImage(str(shot))
    assert not image.isNull()
    # Mermaid's default theme fills nodes with #ececff; nothing else is that colour.
    node = QColor("#ececff").rgb()
    filled = sum(
        1
        for y in range(0, image.height(), 2)
        for x in range(0, image.width(), 2)
        if image.pixel(x, y) == node
    )
    assert filled > 2_000


@in_the_engine
def test_find_on_a_drawn_page_is_the_pages_and_the_source_still_finds(
    qtbot, opened, report
) -> None:
    preview = opened(report)
    assert preview.showing_page()
    # The web view offers no find of its own; the hidden text is not searched.
    assert preview.find_next("Latency model") is False
    preview.source_button.click()
    assert preview.find_next("Latency model") is True
