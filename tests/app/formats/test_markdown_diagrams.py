"""Math and Mermaid in Markdown: what is math, what stays text, and the limits."""

from __future__ import annotations

import re

import pytest

from app.formats.markdown_diagrams import (
    MAX_DIAGRAM_CHARS,
    MAX_DIAGRAMS,
    MAX_FORMULA_CHARS,
    MAX_FORMULAS,
)
from app.formats.markdown_html import render_markdown

FLOWCHART = "```mermaid\nflowchart LR\n  A[Start] --> B[Done]\n```\n"


def _page(text: str) -> str:
    return render_markdown(text, page=True).html


def _formulas(html: str) -> list[str]:
    return re.findall(r'<(?:span|div) class="math(?: display)?">(.*?)</', html, re.S)


@pytest.mark.parametrize(
    "sentence",
    [
        "It costs $5 and $10 today.",
        "Budget: $5-$10 per day.",
        "Between $ 5 and 10 $ a day.",
        "Prices went from $12.50 to $13 in March, then $14.",
        "An escaped \\$x\\$ stays text.",
        "Revenue (k$) grew while the average order (in $) fell.",
        "Fees: $3, $4.",
    ],
)
def test_dollar_amounts_stay_text(sentence: str) -> None:
    rendered = render_markdown(sentence, page=True)
    assert rendered.drawing.formulas == 0
    assert "$" in rendered.html and 'class="math' not in rendered.html


def test_inline_math_in_dollars_and_parentheses_is_drawn_in_a_page() -> None:
    html = _page("Euler: $e^{i\\pi}+1=0$ and \\(a^2+b^2=c^2\\), so $a_1$ and $b_1$.")
    assert _formulas(html) == ["e^{i\\pi}+1=0", "a^2+b^2=c^2", "a_1", "b_1"]
    assert "<em>" not in html  # the underscores are TeX, not emphasis


def test_display_math_in_every_form_the_page_draws_as_display() -> None:
    text = (
        "$$\n\\int_0^1 x\\,dx\n$$\n\n"
        "\\[\n\\sum_k k\n\\]\n\n"
        "```math\nE = mc^2\n```\n\n"
        "\\begin{align}\na &= b\n\\end{align}\n\n"
        "Inline display $$x^2$$ too.\n"
    )
    html = _page(text)
    displays = re.findall(r'class="math display">(.*?)</', html, re.S)
    assert displays == [
        "\\int_0^1 x\\,dx",
        "\\sum_k k",
        "E = mc^2",
        "\\begin{align}\na &amp;= b\n\\end{align}",
        "x^2",
    ]


def test_a_view_shows_math_as_it_was_written() -> None:
    rendered = render_markdown("Area $\\pi r^2$ and \\(x\\).\n\n$$\ny=1\n$$\n")
    assert "Area $\\pi r^2$ and \\(x\\)." in rendered.html
    assert "<pre>$$\ny=1\n$$</pre>" in rendered.html
    assert 'class="math' not in rendered.html
    assert rendered.drawing.formulas == 3 and rendered.draws


def test_markup_in_math_and_diagrams_is_escaped_text() -> None:
    text = (
        "$<img src=x onerror=alert(1)>$\n\n"
        "```mermaid\nflowchart LR\n  A[<script>alert(1)</script>] --> B\n```\n"
    )
    for page in (True, False):
        html = render_markdown(text, page=page).html
        assert "<img" not in html and "<script" not in html
        assert "&lt;script&gt;" in html


def test_a_mermaid_fence_becomes_a_figure_to_draw_with_its_source_beside() -> None:
    rendered = render_markdown(FLOWCHART, page=True)
    assert rendered.drawing.diagrams == rendered.drawing.diagrams_drawn == 1
    html = rendered.html
    assert html.startswith('<figure class="diagram" data-draw>')
    assert '<summary>Diagram source</summary><pre class="diagram-code">' in html
    assert "flowchart LR\n  A[Start] --&gt; B[Done]\n</pre>" in html


def test_a_view_shows_a_mermaid_fence_as_code_and_counts_it() -> None:
    rendered = render_markdown(FLOWCHART)
    assert rendered.html == "<pre>flowchart LR\n  A[Start] --&gt; B[Done]\n</pre>\n"
    assert rendered.drawing.diagrams == 1 and rendered.draws


def test_a_document_of_plain_text_and_code_draws_nothing() -> None:
    rendered = render_markdown("# Notes\n\n```python\nx = 1\n```\n\nCosts $5.\n")
    assert not rendered.draws


def test_diagrams_past_the_limit_are_shown_as_their_source() -> None:
    rendered = render_markdown(FLOWCHART * (MAX_DIAGRAMS + 10), page=True)
    assert rendered.drawing.diagrams == MAX_DIAGRAMS + 10
    assert rendered.drawing.diagrams_drawn == MAX_DIAGRAMS
    assert rendered.drawing.diagrams_left_out == 10
    assert rendered.html.count("data-draw") == MAX_DIAGRAMS


def test_a_diagram_over_the_size_limit_is_refused_with_a_notice() -> None:
    source = "flowchart LR\n" + "  A --> B\n" * (MAX_DIAGRAM_CHARS // 10 + 1)
    rendered = render_markdown(f"```mermaid\n{source}```\n" + FLOWCHART, page=True)
    assert rendered.drawing.diagrams_too_long == 1
    assert rendered.drawing.diagrams_drawn == 1  # the next one is still drawn
    html = rendered.html
    assert html.startswith('<figure class="diagram refused">')
    assert f"more than the {MAX_DIAGRAM_CHARS:,} a diagram may have" in html
    assert html.count("data-draw") == 1


def test_formulas_past_the_limits_stay_as_written() -> None:
    long = "x+" * (MAX_FORMULA_CHARS // 2 + 1)
    text = " ".join(["$x$"] * (MAX_FORMULAS + 3)) + f"\n\n${long}$\n"
    rendered = render_markdown(text, page=True)
    assert rendered.drawing.formulas_drawn == MAX_FORMULAS
    assert rendered.drawing.formulas_left_out == 4
    assert len(_formulas(rendered.html)) == MAX_FORMULAS
    assert f"${long}$" in rendered.html
