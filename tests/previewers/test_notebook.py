"""Notebooks previewed as people see them, in the real sandboxed page view.

The notebook is a real one, run by an IPython kernel (``tests.data.notebooks``);
what a person would see is read from the page itself with ``runJavaScript``
(host side: the page cannot call back) or from a screenshot of the window.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from PySide6.QtGui import QColor, QImage

from app.core.trust.safeio import open_verified
from previewers import registry
from previewers.context import PreviewContext
from previewers.notebook import NOTEBOOK_SIZE_LIMIT
from previewers.source import PreviewSource
from previewers.web import preview as web_preview
from tests.data import notebooks

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
REPOSITORY = Path(__file__).resolve().parents[2]
needs_sandbox = pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")


@pytest.fixture(scope="session")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return notebooks.executed(tmp_path_factory.mktemp("notebooks"))


@pytest.fixture
def workspace(tmp_path: Path, executed: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(executed, root / "analysis.ipynb")
    return root


@pytest.fixture
def opened(qtbot: Any, workspace: Path) -> Iterator[Any]:
    made: list[Any] = []

    def make(relative: str, *, source_view: bool = False) -> Any:
        path = workspace / relative
        file = open_verified(str(path))
        source = PreviewSource.from_file(str(path), file, source_view=source_view)
        context = PreviewContext(root=str(workspace))
        widget = registry.choose(source).create(source, file, None, context=context)
        made.append(widget)
        widget.resize(900, 700)
        widget.show()
        qtbot.waitUntil(widget.is_settled, timeout=30000)
        return widget

    yield make
    for widget in made:
        widget.release()
        widget.deleteLater()
    if "previewers.web.sandbox" in sys.modules:
        retiring = sys.modules["previewers.web.sandbox"].retiring_count
        qtbot.waitUntil(lambda: retiring() == 0)


def _source(path: Path, *, source_view: bool = False) -> PreviewSource:
    with open_verified(str(path)) as file:
        return PreviewSource.from_file(str(path), file, source_view=source_view)


def _in_page(qtbot: Any, widget: Any, script: str) -> Any:
    box: list[Any] = []
    widget.web.page.runJavaScript(script, 0, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=10000)
    return box[0]


# -- which files ------------------------------------------------------------------


def test_notebooks_are_chosen_by_name_or_bytes_and_show_source_is_text(
    workspace: Path,
) -> None:
    notebook = workspace / "analysis.ipynb"
    assert registry.choose(_source(notebook)).name == "notebook"
    named_json = workspace / "analysis.json"
    shutil.copy(notebook, named_json)
    assert registry.choose(_source(named_json)).name == "notebook"
    assert registry.choose(_source(notebook, source_view=True)).name == "code"
    plain = workspace / "metrics.json"
    plain.write_text('{"cells": [1, 2], "rows": 3}')
    assert registry.choose(_source(plain)).name == "json"
    head = notebook.read_bytes()[:4096]
    huge = PreviewSource.of_head("big.ipynb", head, size=NOTEBOOK_SIZE_LIMIT + 1)
    assert registry.choose(huge).name == "code"  # paged text, as large JSON is


def test_the_web_engine_is_started_ahead_for_a_notebook() -> None:
    from previewers.web import needs_web_engine

    assert needs_web_engine("json", "analysis.ipynb")
    assert needs_web_engine("", "Analysis.IPYNB")


def _json_keys(view: Any) -> list[str]:
    """The members of the JSON view's top object, as its tree shows them."""
    model = view.tree.model()
    root = model.index(0, 0)
    return [
        str(model.index(row, 0, root).data()) for row in range(model.rowCount(root))
    ]


def test_as_root_the_notebook_json_is_shown_with_the_reason(
    opened: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    widget = opened("analysis.ipynb")
    qtbot.waitUntil(widget.is_loaded)
    assert widget.showing_json()
    assert "cells" in _json_keys(widget.json_view)
    assert widget.notice.text() == (
        "analysis.ipynb is not previewed here: Previews of notebooks need the "
        "browser sandbox, which cannot run as the administrator (root). Showing "
        "its JSON instead."
    )
    assert not widget.notebook_button.isEnabled()
    assert (widget.notebook_button.text(), widget.json_button.text()) == (
        "Notebook",
        "JSON",
    )


def test_a_file_that_is_no_notebook_gives_way_to_its_json_with_the_reason(
    opened: Any, qtbot: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_preview, "engine_refusal", lambda: None)
    (workspace / "broken.ipynb").write_text('{"cells": [')
    widget = opened("broken.ipynb")
    qtbot.waitUntil(widget.is_loaded)
    assert widget.showing_json()
    assert widget.notice.text().startswith(
        "Could not load broken.ipynb: Not valid JSON"
    )
    assert widget.notice.text().endswith(". Showing its JSON instead.")
    # The JSON view says where the JSON breaks, as it does for any JSON.
    assert "Line 1" in widget.json_view.error_view.toPlainText() or (
        "Line 1" in widget.json_view.notice.text()
    )


class _Published:
    """What a link is judged against: the page's URL, prefix and entry key."""

    prefix = "/cap-token123/"
    url = "http://127.0.0.1:4711/cap-token123/analysis.ipynb.html"
    entry_key = "analysis.ipynb.html"

    def revoke(self) -> None:
        """Nothing is served: the page is never loaded here."""


def test_a_link_to_a_page_beside_the_notebook_is_offered_to_the_workspace(
    opened: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QUrl

    monkeypatch.setattr(web_preview, "engine_refusal", lambda: "root")
    widget = opened("analysis.ipynb")
    requested: list[str] = []
    widget.pageRequested.connect(requested.append)
    widget.web.publication = _Published()
    widget.web.follow_link(QUrl("http://127.0.0.1:4711/cap-token123/report.html"))
    assert requested == []  # nothing opens until the person asks
    widget.web.link_button.click()
    assert requested == [str(workspace / "report.html")]


# -- what a person sees ------------------------------------------------------------


@pytest.mark.webengine
@needs_sandbox
def test_a_notebook_shows_its_cells_plot_and_error_as_jupyter_would(
    opened: Any, qtbot: Any
) -> None:
    widget = opened("analysis.ipynb")
    assert widget.is_loaded(), widget.message_text()
    heading = "document.querySelector('h1').textContent"
    assert _in_page(qtbot, widget, heading) == "Quarterly sales"
    # Code is coloured: keywords are spans with a colour of their own.
    coloured = "document.querySelectorAll('pre.source span[style*=color]').length"
    assert _in_page(qtbot, widget, coloured) > 10
    # The matplotlib figure is an image that loaded.
    plot = (
        "(() => { const i = document.querySelector('img.output-image'); return "
        "JSON.stringify([i.src.slice(0, 22), i.complete, i.naturalWidth,"
        " i.naturalHeight]); })()"
    )
    source, complete, width, height = json.loads(_in_page(qtbot, widget, plot))
    assert source == "data:image/png;base64," and complete
    assert width > 100 and height > 100
    # The error shows its traceback, and the dataframe its table.
    error = "document.querySelector('pre.output-error').textContent"
    assert "ZeroDivisionError" in _in_page(qtbot, widget, error)
    row = "document.querySelector('table.dataframe tbody th').textContent"
    assert _in_page(qtbot, widget, row) == "sales"


@pytest.mark.webengine
@needs_sandbox
def test_the_json_is_one_click_away(opened: Any, qtbot: Any) -> None:
    widget = opened("analysis.ipynb")
    assert widget.is_loaded() and not widget.showing_json()
    assert widget.json_view is None  # made on first use
    assert widget.json_button.text() == "JSON"
    widget.json_button.click()
    assert widget.showing_json()
    qtbot.waitUntil(widget.json_view.is_loaded)
    assert _json_keys(widget.json_view) == [
        "cells",
        "metadata",
        "nbformat",
        "nbformat_minor",
    ]
    assert not widget.isolated_label.isVisible()
    widget.notebook_button.click()
    assert not widget.showing_json() and widget.isolated_label.isVisible()


@pytest.mark.webengine
@needs_sandbox
def test_an_html_output_runs_only_inside_the_sandbox(
    opened: Any, qtbot: Any, workspace: Path, request: pytest.FixtureRequest
) -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    request.addfinalizer(listener.close)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    # A script file beside the notebook, named by an HTML output: bound and
    # run as any page's script, and everything it tries fails.
    (workspace / "probe.js").write_text(
        "const out = {origin: self.origin, top: String(window.parent === window)};\n"
        "try { localStorage.setItem('k', 'v'); out.storage = 'READ'; }\n"
        "catch (e) { out.storage = 'blocked ' + e.name; }\n"
        "try { document.cookie = 'a=b'; out.cookie = 'READ ' + document.cookie; }\n"
        "catch (e) { out.cookie = 'blocked ' + e.name; }\n"
        f"fetch('http://127.0.0.1:{port}/leak').then(\n"
        "  () => { out.fetch = 'READ'; }, (e) => { out.fetch = 'blocked'; }\n"
        ").finally(() => {\n"
        "  document.getElementById('probe').textContent = JSON.stringify(out);\n"
        "});\n"
    )
    notebook = nbformat.read(workspace / "analysis.ipynb", as_version=4)
    output = nbformat.v4.new_output(
        "display_data",
        data={"text/html": '<p id="probe">waiting</p><script src="probe.js"></script>'},
    )
    cell = nbformat.v4.new_code_cell("display(HTML(...))", execution_count=9)
    cell.outputs = [output]
    notebook.cells.append(cell)
    nbformat.write(notebook, workspace / "probed.ipynb")
    widget = opened("probed.ipynb")
    assert widget.is_loaded(), widget.message_text()
    probe = "document.getElementById('probe').textContent"
    qtbot.waitUntil(lambda: _in_page(qtbot, widget, probe) != "waiting", timeout=10000)
    found = json.loads(_in_page(qtbot, widget, probe))
    assert found["origin"] == "null"  # an opaque origin: no storage, no siblings
    assert found["top"] == "true"  # no frame around it to reach
    assert found["storage"] == "blocked SecurityError"
    assert found["cookie"] == "blocked SecurityError"
    assert found["fetch"] == "blocked"
    with pytest.raises(BlockingIOError):
        listener.accept()
    # The kernel's own HTML output ran its inline script, in the same sandbox.
    inline = f"document.getElementById('{notebooks.PROBE_ID}').textContent"
    assert json.loads(_in_page(qtbot, widget, inline)) == {
        "origin": "null",
        "top": "true",
        "storage": "blocked SecurityError",
    }


@pytest.mark.webengine
@needs_sandbox
def test_html_outputs_cannot_swallow_or_hide_the_cells_after_them(
    opened: Any, qtbot: Any, workspace: Path
) -> None:
    notebook = nbformat.v4.new_notebook()
    hostile = [
        "<!-- never closed",
        '<td title="never closed',
        "</div></section></main>",
        "<plaintext>",
        '<body style="display:none">',
        "<svg><style><!--</style></svg>",
    ]
    for number, markup in enumerate(hostile):
        cell = nbformat.v4.new_code_cell(f"show({number})", execution_count=number)
        cell.outputs = [
            nbformat.v4.new_output("display_data", data={"text/html": markup})
        ]
        notebook.cells.append(cell)
    notebook.cells.append(nbformat.v4.new_markdown_cell("# After"))
    nbformat.write(notebook, workspace / "hostile.ipynb")
    widget = opened("hostile.ipynb")
    assert widget.is_loaded(), widget.message_text()
    cells = "document.querySelectorAll('main.notebook > section.cell').length"
    assert _in_page(qtbot, widget, cells) == len(hostile) + 1
    last = "document.querySelector('main.notebook > section:last-child h1').textContent"
    assert _in_page(qtbot, widget, last) == "After"
    shown = "getComputedStyle(document.body).display"
    assert _in_page(qtbot, widget, shown) == "block"


# -- math and diagrams -------------------------------------------------------------

DRAWN = """JSON.stringify({
  inline: document.querySelectorAll('span.math > .katex').length,
  display: document.querySelectorAll('.math.display .katex-display').length,
  errors: document.querySelectorAll('.katex-error, .math-error').length,
  latex: document.querySelectorAll('.output-latex .katex').length,
  fonts: [...document.fonts].filter(f => f.status === 'loaded').map(f => f.family),
  fontErrors: [...document.fonts].filter(f => f.status === 'error').length,
  dollars: [...document.querySelectorAll('p')]
    .filter(p => p.textContent.includes('per day'))
    .map(p => [p.textContent, p.querySelectorAll('.katex').length]),
  diagrams: [...document.querySelectorAll('figure.diagram')].map(f => ({
    labels: [...f.querySelectorAll('.diagram-drawing svg .nodeLabel')]
      .map(e => e.textContent),
    notice: f.querySelector('.diagram-notice').textContent,
  })),
})"""


@pytest.fixture
def growth(workspace: Path) -> str:
    notebooks.with_drawings(workspace)
    return "growth.ipynb"


@pytest.mark.webengine
@needs_sandbox
def test_markdown_cells_draw_their_math_and_diagrams_as_a_markdown_page_does(
    opened: Any, qtbot: Any, growth: str
) -> None:
    widget = opened(growth)
    assert widget.is_loaded() and not widget.showing_json(), widget.message_text()
    # Loaded means drawn: nothing is left to wait for.
    drawn = json.loads(_in_page(qtbot, widget, DRAWN))
    assert (drawn["inline"], drawn["display"], drawn["errors"]) == (1, 1, 0)
    # KaTeX's own fonts, fetched in CORS mode from the sandbox, are loaded.
    assert {"KaTeX_Main", "KaTeX_Math", "KaTeX_Size2"} <= set(drawn["fonts"])
    assert drawn["fontErrors"] == 0
    assert drawn["dollars"] == [["The two plans cost $5 and $10 per day.", 0]]
    assert drawn["diagrams"] == [
        {"labels": ["Load sales", "Clean rows", "Plot growth"], "notice": ""}
    ]
    assert widget.web.info_bar.summary_text() == ""  # nothing left out


@pytest.mark.webengine
@needs_sandbox
def test_the_page_counts_as_loaded_once_everything_is_drawn(
    opened: Any, qtbot: Any, workspace: Path
) -> None:
    # Enough diagrams that drawing them takes far longer than loading the page.
    cells = [
        f"```mermaid\nsequenceDiagram\n  A{n}->>B{n}: ask\n  B{n}-->>A{n}: answer\n```"
        for n in range(30)
    ]
    notebooks.with_drawings(workspace, cells, name="many.ipynb")
    widget = opened("many.ipynb")
    assert widget.is_loaded(), widget.message_text()
    state = (
        "JSON.stringify([document.documentElement.dataset.drawn,"
        " document.querySelectorAll('figure.diagram svg').length])"
    )
    assert json.loads(_in_page(qtbot, widget, state)) == ["done", 30]


@pytest.mark.webengine
@needs_sandbox
def test_a_latex_output_is_typeset_beside_the_cells_math(
    opened: Any, qtbot: Any
) -> None:
    widget = opened("analysis.ipynb")
    assert widget.is_loaded(), widget.message_text()
    drawn = json.loads(_in_page(qtbot, widget, DRAWN))
    assert (drawn["inline"], drawn["display"], drawn["latex"]) == (2, 1, 1)
    assert drawn["errors"] == 0 and drawn["diagrams"] == []


@pytest.mark.webengine
@needs_sandbox
def test_in_the_dark_math_takes_the_text_colour_and_diagrams_the_dark_theme(
    opened: Any, qtbot: Any, growth: str
) -> None:
    from PySide6.QtWidgets import QApplication

    from app.ui.window.application import dark_palette

    application = QApplication.instance()
    assert isinstance(application, QApplication)
    light = application.palette()
    application.setPalette(dark_palette())
    try:
        widget = opened(growth)
    finally:
        application.setPalette(light)
    assert widget.is_loaded(), widget.message_text()
    colours = json.loads(
        _in_page(
            qtbot,
            widget,
            """JSON.stringify({
              text: getComputedStyle(document.body).color,
              math: getComputedStyle(document.querySelector('.katex')).color,
              node: getComputedStyle(document.querySelector('.node rect')).fill,
            })""",
        )
    )
    assert colours["math"] == colours["text"]
    assert QColor(_hex(colours["text"])).lightness() > 180
    assert QColor(_hex(colours["node"])).lightness() < 100  # Mermaid's dark theme


def _hex(css: str) -> str:
    numbers = css[css.index("(") + 1 : css.index(")")].split(",")[:3]
    return "#" + "".join(f"{int(float(n)):02x}" for n in numbers)


@pytest.mark.webengine
@needs_sandbox
def test_math_an_output_adds_counts_toward_the_pages_bound(
    opened: Any, qtbot: Any, workspace: Path
) -> None:
    from app.formats.markdown_diagrams import MAX_FORMULAS

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("Drawn: $x$")]
    cell = nbformat.v4.new_code_cell("show()", execution_count=1)
    spans = '<span class="math">y</span>' * MAX_FORMULAS
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": spans})]
    notebook.cells.append(cell)
    nbformat.write(notebook, workspace / "crowded.ipynb")
    widget = opened("crowded.ipynb")
    assert widget.is_loaded(), widget.message_text()
    typeset = "document.querySelectorAll('.math > .katex').length"
    assert _in_page(qtbot, widget, typeset) == MAX_FORMULAS
    last = "document.querySelector('.output-html .math:last-child').textContent"
    assert _in_page(qtbot, widget, last) == "y"  # left as the text it is


# -- the command line --------------------------------------------------------------


def _bar_pixels(image: QImage) -> int:
    """Pixels of the plot's bars (matplotlib's '#4c72b0')."""
    bar = QColor("#4c72b0")
    found = 0
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            colour = image.pixelColor(x, y)
            if (
                abs(colour.red() - bar.red()) < 12
                and abs(colour.green() - bar.green()) < 12
                and abs(colour.blue() - bar.blue()) < 12
            ):
                found += 1
    return found


@pytest.mark.webengine
@needs_sandbox
def test_view_screenshots_a_notebook_with_its_plot(
    workspace: Path, tmp_path: Path
) -> None:
    folder = Path(os.environ.get("DELIVERABLES_SCREENSHOT_DIR") or tmp_path)
    shot = folder / "notebook-plot.png"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "view",
            str(workspace / "analysis.ipynb"),
            "--data-dir",
            str(tmp_path / "data"),
            "--screenshot",
            str(shot),
            "--wait-ms",
            "60000",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=180,
        cwd=REPOSITORY,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    image = QImage(str(shot))
    assert image.width() == 1440
    # The bars of the plot are on screen (the message says what was instead).
    assert _bar_pixels(image) > 2000, (shot, result.stderr[-3000:])
