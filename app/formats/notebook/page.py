"""A notebook as one self-contained HTML page, as people see it in Jupyter.

Markdown cells go through the app's one Markdown renderer
(``app.formats.markdown_html``: raw HTML off, code coloured by pygments with
inline styles), written for a page: math and ```` ```mermaid ```` diagrams
become elements the bundled KaTeX and Mermaid draw, counted across the whole
notebook so the page keeps one page's bounds, with the same notices as a
Markdown document's page. Its root element asks for the drawing files
(``diagram_page.drawn_page_root``), which the preview adds once the page is
bound (``diagram_page.add_drawing``). Code cells show their prompt and
coloured source, then their outputs (``app.formats.notebook.outputs``). The
page names no file of its own but the images a Markdown cell links to, which
the preview binds as it binds any page's.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from app.core.filetype.sizes import counted
from app.formats.diagram_page import drawn_page_root
from app.formats.markdown_diagrams import Drawing, DrawingCounts, drawing_notices
from app.formats.markdown_html import (
    RenderStoppedError,
    highlight_code,
    image_number,
    render_markdown,
)
from app.formats.notebook.model import Cell, Notebook, parse_notebook
from app.formats.notebook.outputs import (
    Limits,
    attachment_sources,
    cut_text,
    merge_streams,
    notice,
    output_html,
)
from app.formats.notebook.style import page_style

_IMAGE = re.compile(r'<img src="(mdimg:[0-9]+)" alt="([^"]*)">')
_ATTACHMENT = "attachment:"
# How LaTeX that is math alone opens; other LaTeX (a table) is shown as written.
_MATH_OPENINGS = ("$", "\\[", "\\(", "\\begin{")


@dataclass(frozen=True)
class NotebookPage:
    """The page's HTML (UTF-8), how many cells it shows and the notices at its top.

    ``drawing`` counts the formulas and diagrams of the whole page.
    """

    html: bytes
    cells_shown: int
    notices: tuple[str, ...]
    drawing: DrawingCounts = field(default_factory=DrawingCounts)


def render_notebook(
    data: bytes,
    *,
    title: str,
    dark: bool = False,
    limits: Limits = Limits(),  # noqa: B008 - frozen, so one shared default is safe
    cancelled: Callable[[], bool] = lambda: False,
) -> NotebookPage:
    """Read a notebook file's bytes and write its page.

    Raises ``NotebookError`` when the bytes are no notebook and
    ``RenderStoppedError`` once ``cancelled()`` says so.
    """
    notebook = parse_notebook(data)
    return _Writer(notebook, dark, limits, cancelled).write(title)


class _Writer:
    """Writes one page, keeping to the page's size and time limits."""

    def __init__(
        self,
        notebook: Notebook,
        dark: bool,
        limits: Limits,
        cancelled: Callable[[], bool],
    ) -> None:
        self.notebook = notebook
        self.dark = dark
        self.limits = limits
        self.cancelled = cancelled
        self.deadline = time.perf_counter() + limits.seconds
        self.size = 0
        self.drawing = Drawing(page=True)  # one for the page: its bounds are one

    def write(self, title: str) -> NotebookPage:
        notebook = self.notebook
        cells: list[str] = []
        stopped = ""
        for number, cell in enumerate(notebook.cells):
            if self.cancelled():
                raise RenderStoppedError("the preview was closed")
            if time.perf_counter() > self.deadline:
                stopped = f"took longer than {self.limits.seconds:.0f} seconds"
            else:
                try:
                    written = self.cell(cell)
                except RenderStoppedError:
                    if self.cancelled():
                        raise
                    written = None
                    stopped = f"took longer than {self.limits.seconds:.0f} seconds"
                if written is not None and self.size + len(written) > (
                    self.limits.page_bytes
                ):
                    stopped = "would make the page larger than it may be"
                elif written is not None:
                    cells.append(written)
                    self.size += len(written)
            if stopped:
                rest = len(notebook.cells) - number + notebook.cells_left_out
                cells.append(
                    notice(
                        f"The last {counted(rest, 'cell')} {_are(rest)} not shown: "
                        f"showing them {stopped}. "
                        "The JSON view has the whole notebook."
                    )
                )
                break
        notices = self.notices(len(cells) if not stopped else len(cells) - 1)
        body = "".join(notice(text) for text in notices) + "".join(cells)
        drawing = self.drawing.counts()
        root = drawn_page_root(
            dark=self.dark,
            diagrams=drawing.diagrams_drawn > 0,
            math=drawing.formulas_drawn > 0,
        )
        page = (
            f'<!DOCTYPE html>\n<html{root}><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{page_style(self.dark)}</style>"
            f'</head><body class="{"dark" if self.dark else "light"}">'
            f'<main class="notebook">{body}</main></body></html>\n'
        )
        return NotebookPage(
            page.encode("utf-8", "surrogatepass"), len(cells), notices, drawing
        )

    def notices(self, shown: int) -> tuple[str, ...]:
        notebook = self.notebook
        found = []
        if not notebook.cells and not notebook.cells_left_out:
            found.append("This notebook has no cells.")
        if notebook.cells_left_out and shown == len(notebook.cells):
            found.append(
                f"The last {counted(notebook.cells_left_out, 'cell')} "
                f"{_are(notebook.cells_left_out)} not shown: a preview "
                f"shows the first {len(notebook.cells)}. The JSON view has them all."
            )
        skipped = []
        if notebook.skipped_cells:
            skipped.append(counted(notebook.skipped_cells, "cell"))
        if notebook.skipped_outputs:
            skipped.append(counted(notebook.skipped_outputs, "output"))
        if skipped:
            found.append(
                f"{' and '.join(skipped).capitalize()} could not be read and "
                "are not shown; the JSON view has them."
            )
        found.extend(drawing_notices(self.drawing.counts()))
        return tuple(found)

    def cell(self, cell: Cell) -> str:
        if cell.kind == "markdown":
            body = self.markdown(cell.source, cell.attachments)
            return (
                '<section class="cell markdown-cell">'
                f'<div class="markdown">{body}</div></section>'
            )
        source, cut = cut_text(cell.source, self.limits.text_bytes)
        if cell.kind == "raw":
            return (
                f'<section class="cell raw-cell"><pre class="raw">{html.escape(source)}'
                f"</pre>{notice(cut) if cut else ''}</section>"
            )
        count = "" if cell.execution_count is None else str(cell.execution_count)
        code = highlight_code(source, self.notebook.language, dark=self.dark)
        parts = [
            '<section class="cell code-cell"><div class="input">',
            f'<div class="prompt">In [{count or "&nbsp;"}]:</div>',
            f'<pre class="source">{code}</pre></div>',
        ]
        if cut:
            parts.append(notice(cut))
        for output in merge_streams(cell.outputs):
            if self.cancelled():
                raise RenderStoppedError("the preview was closed")
            number = getattr(output, "execution_count", None)
            prompt = f"Out[{number}]:" if number is not None else ""
            shown = output_html(output, self.limits, self)
            parts.append(
                f'<div class="output"><div class="prompt">{prompt}</div>'
                f'<div class="output-body">{shown}</div></div>'
            )
        if cell.outputs_left_out:
            parts.append(
                notice(
                    f"{counted(cell.outputs_left_out, 'more output')} of this cell "
                    "are not shown; the JSON view has them."
                )
            )
        parts.append("</section>")
        return "".join(parts)

    def markdown(
        self, text: str, attachments: Mapping[str, Mapping[str, str]] | None = None
    ) -> str:
        """Markdown as HTML; attached images become checked ``data:`` URLs."""
        kept, cut = cut_text(text, self.limits.text_bytes)
        budget = max(0.0, self.deadline - time.perf_counter())
        rendered = render_markdown(
            kept,
            dark=self.dark,
            budget=budget,
            cancelled=self.cancelled,
            drawing=self.drawing,
        )
        sources = attachment_sources(attachments or {}, self.limits.image_bytes)

        def image(match: re.Match[str]) -> str:
            number = image_number(match.group(1))
            alt = match.group(2)
            if number is None or number >= len(rendered.images):
                return alt
            source = rendered.images[number]
            if source.startswith(_ATTACHMENT):
                found = sources.get(source[len(_ATTACHMENT) :], "no such attachment")
                if not found.startswith("data:"):
                    why = html.escape(found)
                    return f'<span class="missing">[{alt or "image"}: {why}]</span>'
                source = found
            return f'<img src="{html.escape(source)}" alt="{alt}">'

        body = _IMAGE.sub(image, rendered.html)
        if rendered.blocks_left_out:
            body += notice(
                f"{counted(rendered.blocks_left_out, 'more block')} of this cell "
                "are not shown."
            )
        return body + (notice(cut) if cut else "")

    def latex(self, text: str) -> str | None:
        """LaTeX that is math alone (as IPython's ``Math`` and SymPy write it),
        typeset as in a Markdown cell; ``None`` for other LaTeX."""
        if not text.lstrip().startswith(_MATH_OPENINGS):
            return None
        before = self.drawing.formulas
        written = self.markdown(text)
        return written if self.drawing.formulas > before else None


def _are(number: int) -> str:
    return "is" if number == 1 else "are"
