"""Notebooks to one page: real executed notebooks, both formats, hostile inputs."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from PIL import Image

from app.formats.markdown_diagrams import MAX_DIAGRAMS, MAX_FORMULAS
from app.formats.markdown_html import RenderStoppedError
from app.formats.notebook import (
    MAX_CELLS,
    Limits,
    NotebookError,
    NotebookPage,
    render_notebook,
)
from app.formats.notebook.ansi import ansi_to_html, strip_ansi
from app.formats.notebook.contain import contain_html
from tests.data import notebooks
from tests.data.corpus import png_header, small_png

MIB = 1 << 20


@pytest.fixture(scope="session")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return notebooks.executed(tmp_path_factory.mktemp("notebooks"))


def _page(data: bytes, **options: Any) -> str:
    page = render_notebook(data, title="analysis.ipynb", **options)
    assert isinstance(page, NotebookPage)
    return page.html.decode()


def _write(notebook: Any, version: int = 4) -> bytes:
    return nbformat.writes(notebook, version=version).encode()


def _code_cell(*outputs: Any, source: str = "x") -> Any:
    cell = nbformat.v4.new_code_cell(source, execution_count=1)
    cell.outputs = list(outputs)
    return cell


def _notebook(*cells: Any) -> Any:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = list(cells)
    return notebook


def _data_urls(page: str, mime: str) -> list[bytes]:
    found = re.findall(rf'src="data:{re.escape(mime)};base64,([^"]+)"', page)
    return [base64.b64decode(item) for item in found]


# -- real notebooks -------------------------------------------------------------


def test_an_executed_notebook_shows_as_jupyter_would(executed: Path) -> None:
    page = _page(executed.read_bytes())
    assert '<h1 id="heading-quarterly-sales">Quarterly sales</h1>' in page
    # Math is written for the page to draw, as a Markdown document's is.
    assert '<span class="math">g = s_t / s_{t-1}</span>' in page
    assert '<div class="math display">\\bar{g} = \\frac{1}{n}' in page
    # IPython's Math output is LaTeX that is math alone: typeset too.
    latex = page[page.index('<div class="output-latex">') :]
    assert latex.startswith(
        '<div class="output-latex"><p><span class="math">\\displaystyle \\sigma^2'
    )
    # Code coloured by pygments, with its prompt.
    assert 'In [1]:</div><pre class="source"><span style="color: #' in page
    # The matplotlib figure is a PNG image, decoded and checked.
    (png, *_) = _data_urls(page, "image/png")
    with Image.open(io.BytesIO(png)) as image:
        assert image.format == "PNG" and image.width > 100
    (svg,) = _data_urls(page, "image/svg+xml")
    assert b"<svg" in svg
    # pandas' table is HTML in the page; its result has an Out prompt.
    assert 'class="dataframe"' in page
    assert "Out[2]:" in page
    assert '<pre class="output-stream stdout">Loaded 4 rows' in page
    assert '<pre class="output-stream stderr">warning: 2 rows had no region' in page
    # A carriage return overwrites its line, as in Jupyter.
    assert "step 3 of 3" in page and "step 1 of 3" not in page
    # The traceback is there, its colours as spans, no escape code left.
    error = page[page.index('<pre class="output-error">') :]
    assert "ZeroDivisionError" in error and "\x1b" not in page
    assert '<span style="color:#' in error
    # The HTML output is in the page as written; the sandbox decides on it.
    assert f'<p id="{notebooks.PROBE_ID}">not run</p>' in page


def test_a_version_3_notebook_shows_the_same_cells(executed: Path) -> None:
    modern = nbformat.read(executed, as_version=4)
    page = _page(_write(modern, version=3))
    assert '<h1 id="heading-quarterly-sales">Quarterly sales</h1>' in page
    assert len(_data_urls(page, "image/png")) == 1
    assert 'class="dataframe"' in page
    assert "ZeroDivisionError" in page
    assert "Out[2]:" in page


def test_a_dark_page_colours_code_for_a_dark_background(executed: Path) -> None:
    light, dark = _page(executed.read_bytes()), _page(executed.read_bytes(), dark=True)
    assert '<body class="dark">' in dark and '<body class="light">' in light
    assert light != dark


@pytest.mark.parametrize(
    ("language", "code"),
    [("R", "x <- c(1, 2)"), ("julia", "f(x) = 2x"), ("scala", "val x = 1")],
)
def test_code_is_coloured_in_the_kernel_language(language: str, code: str) -> None:
    notebook = _notebook(nbformat.v4.new_code_cell(code))
    notebook.metadata["kernelspec"] = {"name": "k", "language": language}
    page = _page(_write(notebook))
    source = page[page.index('<pre class="source">') :]
    assert '<span style="color: #' in source[: source.index("</pre>")]


# -- what is chosen, and what is refused -----------------------------------------


def _display(data: dict[str, str]) -> bytes:
    output = nbformat.v4.new_output("display_data", data=data)
    return _write(_notebook(_code_cell(output)))


def test_a_static_image_is_preferred_to_html_that_needs_a_script() -> None:
    picture = base64.b64encode(small_png()).decode()
    page = _page(_display({"text/html": "<div id=chart></div>", "image/png": picture}))
    assert len(_data_urls(page, "image/png")) == 1
    assert "<div id=chart>" not in page


def test_bad_base64_is_a_notice_and_the_text_is_shown_instead() -> None:
    page = _page(_display({"image/png": "not base64 at all!", "text/plain": "<Fig>"}))
    assert (
        "The image/png output is not shown: its PNG data is not valid base64." in page
    )
    assert '<pre class="output-text">&lt;Fig&gt;</pre>' in page
    assert "data:image/png" not in page


def test_an_image_whose_bytes_are_another_format_is_not_shown() -> None:
    html_as_png = base64.b64encode(b"<html><script>alert(1)</script></html>").decode()
    page = _page(_display({"image/png": html_as_png}))
    assert "its data is not a PNG image but" in page
    assert "data:image/png" not in page


def test_an_image_over_the_pixel_bound_is_refused_by_its_header() -> None:
    bomb = base64.b64encode(png_header(100_000, 100_000, b"")).decode()
    page = _page(_display({"image/png": bomb}))
    assert "100000\u00d7100000 pixels" in page
    assert "data:image/png" not in page


def test_an_image_over_its_byte_bound_is_not_decoded() -> None:
    big = base64.b64encode(small_png() + bytes(5 * MIB)).decode()
    page = _page(_display({"image/png": big}))
    assert "more than the 4.0 MiB a preview shows" in page


def test_an_svg_with_a_script_is_only_ever_an_image() -> None:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
        "<script>alert(document.cookie)</script>"
        '<image href="file:///etc/passwd"/></svg>'
    )
    page = _page(_display({"image/svg+xml": svg}))
    assert "<script" not in page and "<image" not in page
    (shown,) = _data_urls(page, "image/svg+xml")
    assert shown == svg.encode()
    assert '<img class="output-image" src="data:image/svg+xml;base64,' in page


def test_text_that_is_not_svg_is_not_shown_as_svg() -> None:
    page = _page(_display({"image/svg+xml": "<html><body>hi</body></html>"}))
    assert "its data is not an SVG image" in page


def test_an_output_of_no_shown_type_says_so() -> None:
    page = _page(_display({"application/vnd.plotly.v1+json": "{}"}))
    assert "application/vnd.plotly.v1+json is not shown here" in page


def test_markdown_output_is_rendered_with_raw_html_off() -> None:
    page = _page(_display({"text/markdown": "**bold** <script>x()</script>"}))
    assert "<strong>bold</strong>" in page
    assert "&lt;script&gt;x()&lt;/script&gt;" in page


HOSTILE_HTML = {
    "<div><table><tr><td>1": "<div><table><tr><td>1</td></tr></table></div>",
    "</div></section></main><p>x": "<p>x</p>",
    "<!-- never closed": "&lt;!-- never closed",
    '<td title="never closed': '&lt;td title="never closed',
    "<plaintext>the rest": "the rest",
    '<body style="display:none">hidden</body>': "hidden",
    '<script>var a = "<!--<script>";</script><p>after': (
        '<script>var a = "<\\!--<\\script>";</script><p>after</p>'
    ),
    "<svg><style><!--</style></svg><p>after": (
        "<svg><style>&lt;!--</style></svg><p>after</p>"
    ),
    "<div/>x<br/>": "<div></div>x<br>",
    "<img src=x onerror=alert(1)>": '<img src="x" onerror="alert(1)">',
    "<b>&lt;kept&gt; &amp;</b>": "<b>&lt;kept&gt; &amp;</b>",
}


@pytest.mark.parametrize(("written", "kept"), HOSTILE_HTML.items())
def test_an_html_output_is_written_back_so_it_ends_where_it_ends(
    written: str, kept: str
) -> None:
    assert contain_html(written) == kept
    page = _page(_display({"text/html": written}))
    assert f'<div class="output-html">{kept}</div>' in page


def test_a_cut_html_output_is_closed_where_it_was_cut() -> None:
    html_output = "<table>" + "<tr><td>cell</td></tr>" * 100_000 + "</table>"
    page = _page(_display({"text/html": html_output}))
    assert "Output cut at 1.0 MiB of" in page
    shown = page[page.index('<div class="output-html">') :]
    assert shown.index("</table></div>") < shown.index('<div class="notice">')


# -- bounds ------------------------------------------------------------------------


def test_a_huge_output_is_cut_with_a_notice_saying_how_much() -> None:
    output = nbformat.v4.new_output("stream", name="stdout", text="x" * (40 * MIB))
    page = _page(_write(_notebook(_code_cell(output))))
    assert "Output cut at 1.0 MiB of 40.0 MiB; the JSON view has all of it." in page
    assert len(page) < 2 * MIB


def test_ten_thousand_cells_show_the_first_ones_and_say_how_many_are_left() -> None:
    # Ids of their own: nbformat's random 8-hex ids collide about once in
    # eighty notebooks of this size, and it warns of that when writing.
    cells = [nbformat.v4.new_code_cell(f"x = {n}", id=f"c{n}") for n in range(10_000)]
    page = _page(_write(_notebook(*cells)))
    assert page.count('<section class="cell code-cell">') == MAX_CELLS
    assert f"The last {10_000 - MAX_CELLS:,} cells are not shown" in page


def test_the_page_stops_before_its_size_limit_and_says_so() -> None:
    outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="y" * 200_000)
        for _ in range(10)
    ]
    cells = [_code_cell(output) for output in outputs]
    page = _page(_write(_notebook(*cells)), limits=Limits(page_bytes=500_000))
    assert page.count('<section class="cell code-cell">') == 2
    assert "The last 8 cells are not shown: showing them would make the page" in page


def test_rendering_stops_once_nobody_waits_for_it() -> None:
    with pytest.raises(RenderStoppedError):
        render_notebook(
            _write(_notebook(nbformat.v4.new_code_cell("x"))),
            title="t",
            cancelled=lambda: True,
        )


# -- math and diagrams ---------------------------------------------------------------


def _root(page: str) -> dict[str, str]:
    tag = re.match(r"<!DOCTYPE html>\n<html([^>]*)>", page)
    assert tag is not None
    return dict(re.findall(r' ([a-z-]+)="([^"]*)"', tag.group(1)))


def test_markdown_cells_write_math_and_diagrams_for_the_page_to_draw(
    tmp_path: Path,
) -> None:
    notebook = render_notebook(
        notebooks.with_drawings(tmp_path).read_bytes(), title="growth.ipynb"
    )
    page = notebook.html.decode()
    assert '<span class="math">g_t = s_t / s_{t-1}</span>' in page
    assert '<div class="math display">G = \\prod_{t=1}^{12} g_t' in page
    assert "<p>The two plans cost $5 and $10 per day.</p>" in page
    assert '<figure class="diagram" data-draw>' in page
    assert "Load[Load sales] --&gt; Clean[Clean rows]" in page
    assert (notebook.drawing.formulas_drawn, notebook.drawing.diagrams_drawn) == (2, 1)
    # The root asks for both libraries and carries draw.js's limits.
    root = _root(page)
    assert root["data-draws"] == "math diagrams"
    assert root["data-theme"] == "light" and "data-drawn" not in root
    assert root["data-diagram-max-count"] == "50"
    assert (
        _root(_page(notebooks.with_drawings(tmp_path).read_bytes(), dark=True))[
            "data-theme"
        ]
        == "dark"
    )


def test_a_notebook_with_nothing_to_draw_asks_for_no_library() -> None:
    page = _page(_write(_notebook(nbformat.v4.new_markdown_cell("It costs $5."))))
    root = _root(page)
    assert "data-draws" not in root and root["data-drawn"] == "done"
    assert "It costs $5." in page


def test_the_drawing_bounds_hold_for_the_whole_notebook() -> None:
    diagram = "```mermaid\nflowchart LR\n  A --> B\n```"
    formulas = " ".join(f"$x_{{{n}}}$" for n in range(700))
    cells = [nbformat.v4.new_markdown_cell(diagram) for _ in range(MAX_DIAGRAMS + 2)]
    cells += [nbformat.v4.new_markdown_cell(formulas) for _ in range(3)]
    output = nbformat.v4.new_output(
        "display_data", data={"text/markdown": diagram + "\n\n$y$"}
    )
    cells.append(_code_cell(output))
    notebook = render_notebook(_write(_notebook(*cells)), title="t")
    counts = notebook.drawing
    assert counts.diagrams_drawn == MAX_DIAGRAMS and counts.diagrams_left_out == 3
    assert counts.formulas_drawn == MAX_FORMULAS and counts.formulas_left_out == 101
    page = notebook.html.decode()
    assert page.count('<figure class="diagram" data-draw>') == MAX_DIAGRAMS
    assert page.count('<span class="math">') == MAX_FORMULAS
    assert notebook.notices == (
        f"Only the first {MAX_DIAGRAMS} diagrams are drawn; the other 3 are shown "
        "as their source.",
        f"101 formula(s) shown as written: a page draws at most {MAX_FORMULAS:,}, "
        "each at most 4,000 characters.",
    )
    assert page.index(notebook.notices[0]) < page.index("<section")


def test_latex_that_is_not_math_alone_is_shown_as_written() -> None:
    table = "\\begin{tabular}{lr}\na & 1 \\\\\n\\end{tabular}"
    prose = "Results for $n$ runs"
    page = _page(_write(_notebook(_code_cell(*(_latex(t) for t in (table, prose))))))
    assert page.count('<pre class="output-text latex">') == 2
    assert "output-latex" not in page and "data-draws" not in page


def _latex(text: str) -> Any:
    return nbformat.v4.new_output(
        "display_data", data={"text/latex": text, "text/plain": "x"}
    )


# -- hostile and damaged files -----------------------------------------------------


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"{not json", "Not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
        (b"[1, 2]", "it is not a JSON object"),
        (b'{"rows": []}', "it has no cells"),
        (b'{"nbformat": 2, "worksheets": []}', "version 2 notebook"),
        (b'{"nbformat": 4, "cells": {"a": 1}}', "its cells are no list"),
    ],
)
def test_what_is_no_notebook_fails_with_the_reason(data: bytes, words: str) -> None:
    with pytest.raises(NotebookError, match=words):
        render_notebook(data, title="t")


def test_what_orjson_refuses_is_read_by_the_json_loader() -> None:
    # Python's json writes NaN; a byte order mark comes from some editors.
    notebook = _notebook(nbformat.v4.new_markdown_cell("# Kept"))
    text = nbformat.writes(notebook).replace(
        '"metadata": {}', '"metadata": {"x": NaN}', 1
    )
    assert "NaN" in text
    for data in (text.encode(), b"\xef\xbb\xbf" + _write(notebook)):
        assert '<h1 id="heading-kept">Kept</h1>' in _page(data)


def test_cells_and_outputs_of_the_wrong_shape_are_skipped_and_counted() -> None:
    good = nbformat.v4.new_output("stream", name="stdout", text="kept")
    data = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"language": ["not", "a", "string"]}},
        "cells": [
            "a string, not a cell",
            {"cell_type": "code", "source": 42, "outputs": []},
            {"cell_type": "video", "source": "?"},
            {
                "cell_type": "code",
                "source": ["print(", "1)"],
                "execution_count": True,
                "outputs": [
                    good,
                    {"output_type": "stream", "text": {"not": "text"}},
                    {"output_type": "telepathy"},
                    {"output_type": "error", "ename": 1, "evalue": "x"},
                    7,
                ],
            },
            {"cell_type": "code", "source": "y", "outputs": {"not": "a list"}},
        ],
    }
    import json

    page = _page(json.dumps(data).encode())
    assert "3 cells and 5 outputs could not be read and are not shown" in page
    assert "kept" in page
    assert "In [&nbsp;]:" in page  # True is no execution count
    assert page.count('<section class="cell code-cell">') == 2


def test_markdown_cells_keep_raw_html_as_text() -> None:
    cell = nbformat.v4.new_markdown_cell(
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>"
    )
    page = _page(_write(_notebook(cell)))
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_attached_images_are_checked_and_missing_ones_named() -> None:
    cell = nbformat.v4.new_markdown_cell(
        "![chart](attachment:chart.png) ![gone](attachment:gone.png) "
        "![fake](attachment:fake.png) ![local](figures/a.png)"
    )
    cell["attachments"] = {
        "chart.png": {"image/png": base64.b64encode(small_png()).decode()},
        "fake.png": {"image/png": base64.b64encode(b"GIF89a" + bytes(20)).decode()},
    }
    page = _page(_write(_notebook(cell)))
    assert _data_urls(page, "image/png") == [small_png()]
    assert "[gone: no such attachment]" in page
    assert "[fake: its data is not a PNG image but GIF image]" in page
    # A file beside the notebook is named as written: the preview binds it.
    assert '<img src="figures/a.png" alt="local">' in page


def test_the_title_is_text() -> None:
    page = render_notebook(
        _write(_notebook()), title="<script>x</script>.ipynb"
    ).html.decode()
    assert "<title>&lt;script&gt;x&lt;/script&gt;.ipynb</title>" in page
    assert "This notebook has no cells." in page


# -- terminal text -------------------------------------------------------------------


def test_colours_become_spans_and_other_controls_go() -> None:
    text = (
        "\x1b[0;31mValueError\x1b[0m: <bad>\n"
        "\x1b]0;window title\x07\x1b[2K\x1b[1;38;5;28mgreen\x1b[0m \x1b[38;2;1;2;3mrgb"
        "\x1b[39m\x00\x08"
    )
    assert ansi_to_html(text) == (
        '<span style="color:#e75c58">ValueError</span>: &lt;bad&gt;\n'
        '<span style="color:#008700;font-weight:bold">green</span> '
        '<span style="color:#010203">rgb</span>'
    )
    assert strip_ansi(text) == "ValueError: <bad>\ngreen rgb"
