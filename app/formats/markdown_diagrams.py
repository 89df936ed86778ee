"""Mermaid diagrams and TeX math in Markdown: parsed, counted and written out.

Math is parsed by mdit-py-plugins, as GitHub reads it: ``$…$`` inline (no
space inside the dollars and no digit after the closing one, so "$5 and $10"
stays text), ``$$…$$`` for display, ``\\(…\\)`` and ``\\[…\\]``, amsmath
environments and ```` ```math ```` fences; diagrams are ```` ```mermaid ````
fences. A rich-text view cannot draw either, so there each is written as the
text it was written as. For a page (``Drawing.page``) each becomes an element
that the page's script draws with the bundled KaTeX or Mermaid
(``app.formats.diagram_page``), its source kept beside it; past the limits
here they stay text, and ``Drawing`` counts what was left so.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

MAX_DIAGRAMS = 50
"""A page draws this many diagrams; later ones are shown as their source."""
MAX_DIAGRAM_CHARS = 50_000
"""A diagram's source longer than this is not drawn (Mermaid's maxTextSize)."""
MAX_FORMULAS = 2_000
"""A page draws this many formulas; later ones stay as written."""
MAX_FORMULA_CHARS = 4_000
"""A formula longer than this stays as written."""
DIAGRAM_LANGUAGES = frozenset({"mermaid"})
MATH_LANGUAGES = frozenset({"math"})

_CLOSING = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}
# Between two dollar signs that are amounts, not math: "(in $) rose, (in $)".
_PROSE_START = frozenset(")]},.;:!?")
_PROSE_END = frozenset("([{")


@dataclass(frozen=True)
class DrawingCounts:
    """The diagrams and formulas of a document, and what a page does with them.

    ``diagrams`` and ``formulas`` count every one in the document; the
    ``_drawn`` counts those a page is given to draw, the others how many it
    shows as text, and why.
    """

    diagrams: int = 0
    formulas: int = 0
    diagrams_drawn: int = 0
    formulas_drawn: int = 0
    diagrams_left_out: int = 0
    diagrams_too_long: int = 0
    formulas_left_out: int = 0


@dataclass
class Drawing:
    """What one render writes for a page (``page``), and what it counts."""

    page: bool = False
    diagrams: int = 0
    formulas: int = 0
    diagrams_drawn: int = 0
    formulas_drawn: int = 0
    diagrams_left_out: int = 0
    diagrams_too_long: int = 0
    formulas_left_out: int = 0

    def counts(self) -> DrawingCounts:
        return DrawingCounts(
            self.diagrams,
            self.formulas,
            self.diagrams_drawn,
            self.formulas_drawn,
            self.diagrams_left_out,
            self.diagrams_too_long,
            self.formulas_left_out,
        )


def drawing_notices(counts: DrawingCounts) -> tuple[str, ...]:
    """What a page leaves as text, said once above it."""
    notices: list[str] = []
    if counts.diagrams_left_out:
        notices.append(
            f"Only the first {MAX_DIAGRAMS} diagrams are drawn; the other "
            f"{counts.diagrams_left_out:,} are shown as their source."
        )
    if counts.diagrams_too_long:
        notices.append(
            f"{counts.diagrams_too_long:,} diagram(s) not drawn: over "
            f"{MAX_DIAGRAM_CHARS:,} characters of source."
        )
    if counts.formulas_left_out:
        notices.append(
            f"{counts.formulas_left_out:,} formula(s) shown as written: a page "
            f"draws at most {MAX_FORMULAS:,}, each at most "
            f"{MAX_FORMULA_CHARS:,} characters."
        )
    return tuple(notices)


def use_math(parser: Any) -> None:
    """Teach ``parser`` the math syntaxes; the render rules are this module's."""
    from mdit_py_plugins.amsmath import amsmath_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.texmath import texmath_plugin

    parser.use(
        dollarmath_plugin,
        allow_labels=False,
        allow_space=False,
        allow_digits=False,
        allow_blank_lines=False,
        double_inline=True,
    )
    # Its rules take the names of the dollar rules; they make the same tokens.
    parser.use(texmath_plugin, delimiters="brackets")
    parser.use(amsmath_plugin)
    parser.add_render_rule("math_inline", _render_inline)
    parser.add_render_rule("math_inline_double", _render_inline_display)
    parser.add_render_rule("math_block", _render_block)
    parser.add_render_rule("math_block_eqno", _render_block)
    parser.add_render_rule("amsmath", _render_amsmath)


def _drawing(env: Any) -> Drawing:
    drawing = env.get("drawing")
    return drawing if isinstance(drawing, Drawing) else Drawing()


def _as_written(token: Any) -> str:
    markup = str(token.markup)
    return f"{markup}{token.content}{_CLOSING.get(markup, markup)}"


def formula(
    drawing: Drawing, tex: str, written: str, *, display: bool, block: bool
) -> str:
    """One formula: an element a page draws, or the text as it was written.

    ``block`` says it stands on its own lines (written as a block either way).
    """
    drawing.formulas += 1
    tex = tex.strip()
    if drawing.page and tex:
        if len(tex) > MAX_FORMULA_CHARS or drawing.formulas_drawn >= MAX_FORMULAS:
            drawing.formulas_left_out += 1
        else:
            drawing.formulas_drawn += 1
            tag = "div" if block else "span"
            kind = "math display" if display else "math"
            end = "\n" if block else ""
            return f'<{tag} class="{kind}">{html.escape(tex)}</{tag}>{end}'
    text = html.escape(written)
    return f"<pre>{text}</pre>\n" if block else text


def _render_inline(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    content = str(token.content)
    if token.markup == "$" and (
        content[0] in _PROSE_START or content[-1] in _PROSE_END
    ):
        # Two amounts in one sentence ("costs (in $) and (in $)"): no
        # formula starts with a closing bracket or ends with an opening one.
        return html.escape(_as_written(token))
    return formula(
        _drawing(env), token.content, _as_written(token), display=False, block=False
    )


def _render_inline_display(
    self: Any, tokens: Any, idx: int, options: Any, env: Any
) -> str:
    token = tokens[idx]
    return formula(
        _drawing(env), token.content, _as_written(token), display=True, block=False
    )


def _render_block(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    written = _as_written(token)
    if token.type == "math_block_eqno":
        written += f" ({token.info})"
    return formula(_drawing(env), token.content, written, display=True, block=True)


def _render_amsmath(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    content = str(tokens[idx].content)
    return formula(_drawing(env), content, content, display=True, block=True)


def fence(drawing: Drawing, language: str, source: str) -> str | None:
    """A ``mermaid`` or ``math`` fence as a page or a view shows it; ``None`` for
    any other language (the caller writes it as code)."""
    language = language.lower()
    if language in MATH_LANGUAGES:
        return formula(drawing, source, source, display=True, block=True)
    if language not in DIAGRAM_LANGUAGES:
        return None
    drawing.diagrams += 1
    if not drawing.page:
        return None
    code = html.escape(source)
    if len(source) > MAX_DIAGRAM_CHARS:
        drawing.diagrams_too_long += 1
        notice = (
            f"This diagram is not drawn: its source has {len(source):,} "
            f"characters, more than the {MAX_DIAGRAM_CHARS:,} a diagram may have."
        )
        return _figure("diagram refused", notice, code)
    if drawing.diagrams_drawn >= MAX_DIAGRAMS:
        drawing.diagrams_left_out += 1
        return f'<pre class="diagram-code">{code}</pre>\n'
    drawing.diagrams_drawn += 1
    return _figure("diagram", "", code)


def _figure(kind: str, notice: str, code: str) -> str:
    # The page's script draws each figure with data-draw into its first div;
    # a notice (refused, failed, too slow) and the source stay beside it.
    draw = " data-draw" if kind == "diagram" else ""
    return (
        f'<figure class="{kind}"{draw}><div class="diagram-drawing"></div>'
        f'<p class="diagram-notice">{html.escape(notice)}</p>'
        '<details class="diagram-source"><summary>Diagram source</summary>'
        f'<pre class="diagram-code">{code}</pre></details></figure>\n'
    )
