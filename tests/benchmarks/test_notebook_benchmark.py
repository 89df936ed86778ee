"""Figures for writing a notebook's page, against parsing the same bytes as JSON."""

from __future__ import annotations

import base64
import json
import statistics
import time
from collections.abc import Callable

import nbformat
import pytest

from app.formats.notebook import render_notebook
from tests.data.corpus import small_png

pytestmark = pytest.mark.benchmark

ROUNDS = 5


def _median_ms(action: Callable[[], object]) -> float:
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def _analysis(cells: int) -> bytes:
    """``cells`` code cells, each with a printed line, a table and a small plot."""
    picture = base64.b64encode(small_png(320, 240)).decode()
    table = "<table class='dataframe'>" + "<tr><td>1</td><td>2</td></tr>" * 20
    notebook = nbformat.v4.new_notebook()
    for number in range(cells):
        cell = nbformat.v4.new_code_cell(
            f"df{number} = load({number})\nplot(df{number})\nprint(len(df{number}))",
            execution_count=number + 1,
        )
        cell.outputs = [
            nbformat.v4.new_output("stream", name="stdout", text=f"{number} rows\n"),
            nbformat.v4.new_output(
                "execute_result",
                data={"text/html": table + "</table>", "text/plain": "df"},
                execution_count=number + 1,
            ),
            nbformat.v4.new_output(
                "display_data", data={"image/png": picture, "text/plain": "<Fig>"}
            ),
        ]
        notebook.cells.append(cell)
    return nbformat.writes(notebook).encode()


@pytest.mark.parametrize("cells", [50, 500])
def test_writing_a_notebook_page(cells: int, report: list[str]) -> None:
    data = _analysis(cells)
    page = render_notebook(data, title="bench.ipynb")
    assert page.cells_shown == cells
    render_ms = _median_ms(lambda: render_notebook(data, title="bench.ipynb"))
    parse_ms = _median_ms(lambda: json.loads(data))
    report.append(
        f"notebook page, {cells} cells / {len(data) / (1 << 20):.1f} MiB: median "
        f"{render_ms:7.1f} ms; json.loads of the same bytes {parse_ms:6.1f} ms "
        f"(ratio {render_ms / parse_ms:5.1f}x)"
    )
