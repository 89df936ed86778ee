"""Pages in the styles models write, previewed for real: what a person would see.

Each page of ``tests/data/html`` opens in the real preview (QtWebEngine, its
sandbox, the capability server); the test then reads back what the page
shows: the script ran, a click revealed a cell, the chart has pixels, the
formulas have their font. With ``DELIVERABLES_SCREENSHOT_DIR`` set, the two
window tests save the screenshots of the documentation there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtTest import QTest

from app.core.trust.safeio import open_verified
from previewers import web as html_previewer
from previewers.context import PreviewContext
from previewers.source import PreviewSource
from previewers.web import preview as web_preview

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
CORPUS = Path(__file__).resolve().parents[1] / "data" / "html"

pytestmark = [
    pytest.mark.webengine,
    pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root"),
]


class Shown:
    """A corpus page open in a preview, and ways to read what it shows."""

    def __init__(self, qtbot: Any, widget: web_preview.WebPreviewWidget) -> None:
        self.qtbot = qtbot
        self.widget = widget

    def js(self, script: str) -> Any:
        box: list[Any] = []
        assert self.widget.page is not None
        self.widget.page.runJavaScript(script, 0, box.append)
        self.qtbot.waitUntil(lambda: bool(box), timeout=10000)
        return box[0]

    def wait_for(self, script: str, timeout: int = 20000) -> None:
        """Wait until ``script`` evaluates true in the page."""
        self.qtbot.waitUntil(lambda: self.js(script) is True, timeout=timeout)

    def rect(self, selector: str) -> QRect:
        """Where the element is in the view, in the view's pixels."""
        found = self.js(
            f"JSON.stringify(document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect())"
        )
        box = json.loads(found)
        return QRect(
            round(box["x"]), round(box["y"]), round(box["width"]), round(box["height"])
        )

    def click(
        self, selector: str, button: Qt.MouseButton = Qt.MouseButton.LeftButton
    ) -> None:
        """A real click (the engine's widget gets it as from the window system)."""
        assert self.widget.view is not None
        self.widget.window().activateWindow()
        self.qtbot.waitExposed(self.widget)
        QTest.mouseClick(
            self.widget.view.focusProxy(),
            button,
            Qt.KeyboardModifier.NoModifier,
            self.rect(selector).center(),
        )

    def image(self) -> QImage:
        assert self.widget.view is not None
        return self.widget.view.grab().toImage()


@pytest.fixture
def show(qtbot: Any) -> Iterator[Callable[[str], Shown]]:
    made: list[web_preview.WebPreviewWidget] = []

    def open_page(name: str, size: tuple[int, int] = (1100, 800)) -> Shown:
        path = CORPUS / name
        file = open_verified(str(path))
        source = PreviewSource.from_file(str(path), file)
        widget = html_previewer.HTML_PREVIEWER.create(
            source, file, None, context=PreviewContext(root=str(CORPUS))
        )
        assert isinstance(widget, web_preview.WebPreviewWidget)
        made.append(widget)
        widget.resize(*size)
        widget.show()
        qtbot.waitExposed(widget)
        qtbot.waitUntil(widget.is_settled, timeout=30000)
        assert widget.is_loaded(), widget.message_text()
        return Shown(qtbot, widget)

    yield open_page
    from previewers.web import sandbox as web_sandbox

    for widget in made:
        widget.release()
        widget.deleteLater()
    qtbot.waitUntil(lambda: web_sandbox.retiring_count() == 0)


def _inked(image: QImage, area: QRect, background: QColor) -> float:
    """The share of pixels in ``area`` that differ from ``background``."""
    area = area.intersected(image.rect())
    differ = total = 0
    for y in range(area.top(), area.bottom(), 2):
        for x in range(area.left(), area.right(), 2):
            total += 1
            pixel = image.pixelColor(x, y)
            if (
                abs(pixel.red() - background.red())
                + abs(pixel.green() - background.green())
                + abs(pixel.blue() - background.blue())
                > 30
            ):
                differ += 1
    return differ / max(total, 1)


# -- a single-file game -------------------------------------------------------------


def test_minesweeper_renders_its_grid_and_a_click_reveals_cells(show):
    page = show("minesweeper.html")
    assert page.js("document.querySelectorAll('#board .cell').length") == 81
    assert page.js("document.getElementById('mine-counter').textContent") == "010"
    page.click("#board .cell:nth-child(41)")  # the middle of the 9 x 9 grid
    page.wait_for("document.querySelectorAll('#board .cell.revealed').length > 0")
    # The first click is never a mine, and its neighbours are kept clear: it
    # opens an area, and the timer started.
    assert (
        page.js(
            "document.querySelector('#board .cell:nth-child(41)')"
            ".classList.contains('revealed')"
        )
        is True
    )
    assert page.js("document.querySelectorAll('#board .cell.revealed').length") >= 9
    assert page.js("document.getElementById('message').textContent") == ""
    # A right click flags a cell and counts it.
    hidden = int(
        page.js(
            "[...document.querySelectorAll('#board .cell')].findIndex("
            "(cell) => !cell.classList.contains('revealed')) + 1"
        )
    )
    page.click(f"#board .cell:nth-child({hidden})", Qt.MouseButton.RightButton)
    page.wait_for("document.getElementById('mine-counter').textContent === '009'")
    assert (
        page.js(
            f"document.querySelector('#board .cell:nth-child({hidden})').textContent"
        )
        == "\U0001f6a9"
    )
    # The face is an onclick attribute: a new game.
    page.click("#reset-btn")
    page.wait_for("document.querySelectorAll('#board .cell.revealed').length === 0")
    assert page.widget.info_bar.summary_text() == ""


def test_a_canvas_animation_draws_and_moves(show):
    page = show("canvas-particles.html")
    page.wait_for(
        "Number(document.getElementById('fps').textContent.split(' ')[1]) > 10"
    )
    first = page.image()
    canvas = page.rect("#canvas")
    assert _inked(first, canvas, QColor(11, 14, 26)) > 0.002
    page.wait_for(
        "Number(document.getElementById('fps').textContent.split(' ')[1]) > 40"
    )
    assert page.image() != first


def test_a_form_can_be_filled_in_and_sends_nothing(show):
    # The page's own onsubmit validation runs; where the form would send its
    # data (a form service on the web), nothing leaves.
    page = show("contact-form.html")
    page.click("#name")
    assert page.widget.view is not None
    QTest.keyClicks(page.widget.view.focusProxy(), "Jane")
    page.wait_for("document.getElementById('name').value === 'Jane'")
    page.js("document.getElementById('email').value = 'jane@example.com'; 1")
    page.click("button[type=submit]")
    page.wait_for(
        "getComputedStyle(document.getElementById('success')).display === 'block'"
    )
    assert page.js("document.getElementById('name').value") == "Jane"
    assert page.widget.blocked_urls() == []
    assert page.widget.page.url() == page.widget.page.entry_url
    assert page.widget.page.refused_navigations == []


# -- libraries from CDNs --------------------------------------------------------------


def _wait_charts_drawn(page: Shown) -> None:
    page.wait_for(
        "typeof Chart === 'function' && Object.values(Chart.instances).length === 4"
        " && Object.values(Chart.instances).every((c) => !Chart.animator.running(c))"
    )


def test_a_chartjs_dashboard_draws_its_charts(show):
    page = show("chartjs-dashboard.html")
    _wait_charts_drawn(page)
    image = page.image()
    for canvas in ("#revenueChart", "#regionChart", "#productChart", "#ordersChart"):
        assert _inked(image, page.rect(canvas), QColor("white")) > 0.03, canvas
    assert page.widget.info_bar.summary_text() == (
        "Using the app's copy of Chart.js 4.6.1 (page asks for cdn.jsdelivr.net)."
    )
    # Source shows the page as written, CDN address and all.
    page.widget.source_button.click()
    assert '<script src="https://cdn.jsdelivr.net/npm/chart.js"></script>' in (
        page.widget.source_text()
    )


def test_a_d3_chart_makes_its_svg(show):
    page = show("d3-bar-chart.html")
    page.wait_for(
        "document.querySelectorAll('#chart svg rect.bar').length === 8 &&"
        " [...document.querySelectorAll('#chart svg rect.bar')]"
        ".every((bar) => bar.getBBox().height > 10)"
    )
    assert page.js("document.querySelectorAll('#chart svg .tick').length") > 10
    assert "D3 7.9.2" in page.widget.info_bar.summary_text()


def test_a_plotly_page_plots_with_the_nearest_version(show):
    page = show("plotly-scatter.html")
    page.wait_for(
        "document.querySelectorAll('#lineChart .scatterlayer .trace').length === 3"
    )
    assert page.js("document.querySelectorAll('#barChart .bars .point').length") == 3
    assert page.widget.info_bar.summary_text() == (
        "Using the app's copy of Plotly 2.35.3 in place of 2.27.0 (page asks for "
        "cdn.plot.ly)."
    )


def test_a_tailwind_page_gets_its_utility_classes(show):
    page = show("tailwind-pricing.html")
    page.wait_for(
        "getComputedStyle(document.getElementById('title')).fontSize === '36px'"
    )
    background = page.js(
        "getComputedStyle(document.getElementById('cta')).backgroundColor"
    )
    assert background not in ("rgba(0, 0, 0, 0)", "rgb(239, 239, 239)")
    assert page.js("getComputedStyle(document.querySelector('.grid')).display") == (
        "grid"
    )
    assert (
        "in place of the Tailwind CSS Play CDN" in page.widget.info_bar.summary_text()
    )


def test_a_react_page_compiled_by_babel_renders_and_reacts(show):
    page = show("react-todo.html")
    page.wait_for("document.querySelectorAll('#root li').length === 2")
    assert page.js("document.querySelector('#root h1').textContent") == "My Tasks"
    assert page.js("document.querySelector('.count').textContent") == (
        "1 of 2 tasks left"
    )
    page.click("#root li:nth-child(2) input[type=checkbox]")
    page.wait_for(
        "document.querySelector('.count').textContent === '0 of 2 tasks left'"
    )


def test_a_threejs_page_loads_its_modules_through_its_import_map(show):
    page = show("threejs-cube.html")
    page.js(
        "Promise.all([import('three'),"
        " import('three/addons/controls/OrbitControls.js')])"
        ".then(([three, controls]) => { document.body.dataset.modules ="
        " [typeof three.Scene, typeof controls.OrbitControls].join(' '); },"
        " (error) => { document.body.dataset.modules = 'failed ' + error; }); 1"
    )
    page.wait_for("document.body.dataset.modules !== undefined")
    assert page.js("document.body.dataset.modules") == "function function"
    # WebGL is off in previews, so three.js has no context to draw in: the
    # bar says the 3D view stays empty.
    webgl = "String(document.createElement('canvas').getContext('webgl2'))"
    assert page.js(webgl) == "null"
    summary = page.widget.info_bar.summary_text()
    assert "three.js 0.187.0 in place of 0.160.0" in summary
    assert "WebGL, which previews turn off" in summary


def test_katex_typesets_with_its_fonts_loaded(show):
    page = show("katex-formulas.html")
    page.wait_for("document.querySelectorAll('.katex').length === 7")
    page.wait_for(
        "[...document.fonts].some((face) => face.family.replace(/\"/g, '') ==="
        " 'KaTeX_Main' && face.status === 'loaded')"
    )
    assert page.js("document.querySelectorAll('.katex-display').length") == 4
    assert "KaTeX 0.16.47 in place of 0.16.9" in page.widget.info_bar.summary_text()


def test_mermaid_draws_its_flowchart(show):
    page = show("mermaid-flowchart.html")
    page.wait_for("document.querySelector('.mermaid svg') !== null")
    assert "Customer places order" in page.js(
        "document.querySelector('.mermaid svg').textContent"
    )


def test_google_fonts_are_named_as_left_out_and_icons_still_load(show):
    page = show("landing-google-fonts.html")
    summary = page.widget.info_bar.summary_text()
    assert "This page loads 1 thing from the web; previews are offline: " in summary
    assert "fonts.googleapis.com (stylesheet)" in summary
    assert "Font Awesome 6.7.2 in place of 6.4.0" in summary
    page.wait_for(
        "[...document.fonts].some((face) => face.family.replace(/\"/g, '') ==="
        " 'Font Awesome 6 Free' && face.status === 'loaded')"
    )
    icon = page.rect("#icon-leaf")
    assert icon.width() > 20


def test_bootstrap_with_integrity_hashes_styles_and_opens_its_modal(show):
    page = show("bootstrap-admin.html")
    page.wait_for("typeof bootstrap === 'object'")
    assert page.js(
        "getComputedStyle(document.getElementById('add')).backgroundColor"
    ) == ("rgb(13, 110, 253)")
    page.click("#add")
    page.wait_for("document.getElementById('addModal').classList.contains('show')")
    assert "Bootstrap 5.3.9 in place of 5.3.3" in page.widget.info_bar.summary_text()


# -- the documentation's screenshots, through the app's window ------------------------


@pytest.fixture
def viewer(qtbot: Any, qapp: Any, tmp_path: Path) -> Iterator[Any]:
    """The app's window showing one corpus page, as ``deliverables view`` does."""
    from app.core.store import Store
    from app.ui.window.main_window import MainWindow
    from app.ui.window.style import AppStyle

    style = qapp.style().name()
    qapp.setStyle(AppStyle())
    store = Store(tmp_path / "data")
    window = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(window)

    def view(name: str, size: tuple[int, int]) -> Shown:
        window.resize(*size)
        assert window.view_files([str(CORPUS / name)], CORPUS) == []
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(window.is_loaded, timeout=30000)
        preview = window.workspace.current_preview()
        assert isinstance(preview, web_preview.WebPreviewWidget)
        assert preview.is_loaded(), preview.message_text()
        return Shown(qtbot, preview)

    yield view
    window.close()
    store.close()
    qapp.setStyle(style)


def _shot(window: Any, tmp_path: Path, name: str) -> Path:
    """Save the window as PNG; to ``DELIVERABLES_SCREENSHOT_DIR`` when set."""
    folder = Path(os.environ.get("DELIVERABLES_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    assert window.grab().toImage().save(str(path), "PNG")
    return path


def test_a_person_plays_minesweeper_in_the_window(viewer, tmp_path):
    page = viewer("minesweeper.html", (1280, 860))
    window = page.widget.window()
    window.activateWindow()
    page.click("#board .cell:nth-child(41)")
    page.wait_for("document.querySelectorAll('#board .cell.revealed').length > 0")
    # Mid-game, as a person plays it: flag two mines that border the opened
    # area, and open one more safe cell, each with a real click.
    cells = json.loads(
        page.js(
            "JSON.stringify((() => {"
            " const found = {mines: [], safe: []};"
            " board.forEach((row, r) => row.forEach((cell, c) => {"
            "  if (cell.revealed) return;"
            "  let edge = false;"
            "  forEachNeighbor(r, c, (nr, nc) => {"
            "   if (board[nr][nc].revealed) edge = true; });"
            "  if (edge) (cell.mine ? found.mines : found.safe).push(r * cols + c + 1);"
            " }));"
            " return found; })())"
        )
    )
    for index in cells["mines"][:2]:
        page.click(f"#board .cell:nth-child({index})", Qt.MouseButton.RightButton)
    for index in cells["safe"][:1]:
        page.click(f"#board .cell:nth-child({index})")
    flags = min(2, len(cells["mines"]))
    page.wait_for(
        f"document.getElementById('mine-counter').textContent === '{10 - flags:03d}'"
    )
    assert page.js("document.getElementById('message').textContent") == ""
    _shot(window, tmp_path, "minesweeper")


def test_a_chartjs_dashboard_in_the_window(viewer, tmp_path):
    page = viewer("chartjs-dashboard.html", (1440, 1060))
    _wait_charts_drawn(page)
    image = page.image()
    assert _inked(image, page.rect("#revenueChart"), QColor("white")) > 0.03
    _shot(page.widget.window(), tmp_path, "chartjs-dashboard")
