"""The page that draws a Markdown document's diagrams and math, bound to serve.

The app writes this page itself: its body is markdown-it's HTML for a page
(``render_markdown(page=True)``: raw HTML off, diagrams and formulas as
elements holding their source), and its scripts are the bundled KaTeX and
Mermaid (ADR 12) and the app's ``resources/web/pages/draw.js``, which reads its
limits from the root element. The page is served as every preview is (ADR 4):
an opaque origin, no network, scripts only from the bundle; so KaTeX and
Mermaid, which read text the document's author wrote, run in that sandbox
only, never in the app. ``bind_page`` is Qt-free; any preview with Markdown to
show (a notebook's cells) binds its HTML the same way.

The library files are public resources (``Resource.public``): a sandboxed page
fetches fonts in CORS mode, which the server answers only for the app's own
copies, so KaTeX's fonts are bound beside its stylesheet where it names them.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.serve.html_libraries import LibraryRefusedError, read_copy
from app.core.serve.manifest import MAX_BUNDLE_BYTES, Bundle, LeftOut, Resource
from app.core.serve.web_libraries import CatalogueError, bundled
from app.formats.markdown_diagrams import MAX_DIAGRAM_CHARS
from app.resources import resource_path

ENTRY_KEY = "index.html"
DRAWN_SCRIPT = "document.documentElement.dataset.drawn === 'done'"
"""True in the page once its diagrams and math are drawn or given up on."""
DIAGRAM_BUDGET_MS = 8_000
"""One diagram that has not been drawn in this long shows its source."""
DRAWING_BUDGET_MS = 12_000
"""Diagrams not started this long after the page began show their source."""
MAX_EDGES = 500
"""Mermaid's limit on a diagram's edges (its own default)."""
DIAGRAM_WIDTH_PX = 960
"""The width of charts Mermaid would size to their container (gantt, xy)."""
MATH_MAX_EXPAND = 1_000
"""KaTeX's limit on macro expansions in one formula."""
MATH_MAX_SIZE_EM = 50
"""KaTeX's cap, in em, on any size a formula asks for (``\\rule``, ``\\kern``)."""

_MERMAID = ("mermaid", "dist/mermaid.min.js")
_KATEX = ("katex", "dist/katex.min.js")
_KATEX_CSS = ("katex", "dist/katex.min.css")
# The first format each of KaTeX's @font-face rules names; a browser takes it.
_FONT_FILE = re.compile(r"url\((fonts/[A-Za-z0-9_-]+\.woff2)\)")
_COLOR = re.compile(r"#[0-9a-fA-F]{6}")


class PageError(ValueError):
    """The page cannot be made; the message says why, for the user."""


@dataclass(frozen=True)
class PageColors:
    """The page's colours, from the preview's palette, each ``#rrggbb``."""

    text: str
    background: str
    muted: str
    link: str
    code_background: str
    border: str

    def __post_init__(self) -> None:
        for value in vars(self).values():
            if not _COLOR.fullmatch(value):
                raise ValueError(f"not a #rrggbb colour: {value!r}")


@functools.cache
def _library(package: str, name: str) -> Resource:
    """A bundled file, checked, under the key the page names it by.

    Read once per process: the files never change while the app runs.
    """
    found = bundled(package, name)
    data = read_copy(found)
    key = "lib/" + name.removeprefix("dist/")
    return Resource(key, found.mime, data, found.sha256, public=True)


def _katex() -> list[Resource]:
    """KaTeX's script, its stylesheet and the font files the stylesheet names."""
    styles = _library(*_KATEX_CSS)
    fonts = sorted(set(_FONT_FILE.findall(styles.data.decode("utf-8"))))
    return [
        _library(*_KATEX),
        styles,
        *(_library("katex", "dist/" + font) for font in fonts),
    ]


@functools.cache
def _draw_script() -> bytes:
    return resource_path("web", "pages", "draw.js").read_bytes()


def _libraries(diagrams: bool, math: bool) -> list[Resource]:
    """The files the page loads besides itself: draw.js and the libraries."""
    try:
        resources = [Resource.of("draw.js", "text/javascript", _draw_script())]
        if math:
            resources += _katex()
        if diagrams:
            resources.append(_library(*_MERMAID))
    except LibraryRefusedError as error:
        raise PageError(str(error)) from error
    except (OSError, CatalogueError) as error:
        raise PageError(f"the bundled libraries cannot be read: {error}") from error
    return resources


def image_budget(*, diagrams: bool, math: bool) -> int:
    """How many bytes of images a page may bind beside its libraries.

    Raises ``PageError`` when the bundled libraries cannot be read.
    """
    taken = sum(len(r.data) for r in _libraries(diagrams, math))
    return max(0, MAX_BUNDLE_BYTES - taken - (1 << 20))


def page_style(colors: PageColors, *, dark: bool) -> str:
    """The page's stylesheet, in the preview's colours."""
    c = colors
    return f"""\
:root {{ color-scheme: {"dark" if dark else "light"}; }}
html {{ background: {c.background}; color: {c.text}; }}
body {{ margin: 0; padding: 14px 22px 40px; font-family: system-ui, sans-serif;
  font-size: 14px; line-height: 1.5; overflow-wrap: break-word; }}
h1, h2 {{ border-bottom: 1px solid {c.border}; padding-bottom: 0.25em; }}
h1 {{ font-size: 1.75em; margin: 0.2em 0 0.6em; }}
h2 {{ font-size: 1.35em; margin: 1.2em 0 0.5em; }}
h3 {{ font-size: 1.15em; margin: 1em 0 0.4em; }}
p {{ margin: 0 0 0.8em; }}
a {{ color: {c.link}; }}
code, pre {{ font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: 0.9em; background: {c.code_background}; }}
code {{ padding: 0.1em 0.3em; border-radius: 3px; }}
pre {{ padding: 10px 12px; overflow-x: auto; border-radius: 4px; }}
blockquote {{ color: {c.muted}; margin: 0 0 0.8em; padding-left: 1em;
  border-left: 3px solid {c.border}; }}
table.md {{ border-collapse: collapse; margin: 0 0 1em; }}
table.md th, table.md td {{ border: 1px solid {c.border}; padding: 4px 10px; }}
table.md th {{ background: {c.code_background}; }}
img {{ max-width: 100%; }}
.missing-image, .math-error {{ color: {c.muted}; }}
.math.display {{ display: block; margin: 0.7em 0; overflow-x: auto;
  overflow-y: hidden; }}
figure.diagram {{ margin: 1em 0 1.2em; }}
.diagram-drawing {{ overflow-x: auto; }}
.diagram-drawing svg {{ max-width: 100%; height: auto; }}
.diagram-notice {{ color: {c.muted}; white-space: pre-wrap; font-size: 0.9em;
  margin: 0.3em 0; padding-left: 8px; border-left: 3px solid {c.border}; }}
figure.failed .diagram-notice {{ color: {c.text}; font-family: monospace; }}
.diagram-notice:empty {{ display: none; }}
.diagram-source summary {{ color: {c.muted}; font-size: 0.85em; cursor: pointer; }}
"""


def page_document(
    body: str, *, title: str, dark: bool, diagrams: bool, math: bool
) -> str:
    """The page around ``body`` (HTML the app rendered; nothing else is raw).

    Only the libraries it needs are named; the limits go on the root element
    for ``draw.js``.
    """
    limits = {
        "theme": "dark" if dark else "light",
        "diagram-budget-ms": DIAGRAM_BUDGET_MS,
        "drawing-budget-ms": DRAWING_BUDGET_MS,
        "diagram-max-chars": MAX_DIAGRAM_CHARS,
        "diagram-max-edges": MAX_EDGES,
        "diagram-width": DIAGRAM_WIDTH_PX,
        "math-max-expand": MATH_MAX_EXPAND,
        "math-max-size": MATH_MAX_SIZE_EM,
    }
    attributes = "".join(f' data-{name}="{value}"' for name, value in limits.items())
    styles = '<link rel="stylesheet" href="lib/katex.min.css">\n' if math else ""
    scripts = ["lib/katex.min.js"] if math else []
    scripts += ["lib/mermaid.min.js"] if diagrams else []
    tags = "".join(f'<script src="{src}"></script>\n' for src in [*scripts, "draw.js"])
    return (
        f'<!DOCTYPE html>\n<html lang="en"{attributes}>\n<head>\n'
        f'<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
        f'{styles}<link rel="stylesheet" href="page.css">\n</head>\n'
        f"<body>\n<main>\n{body}</main>\n{tags}</body>\n</html>\n"
    )


def bind_page(
    body: str,
    *,
    title: str,
    colors: PageColors,
    dark: bool,
    diagrams: bool,
    math: bool,
    images: Sequence[Resource] = (),
    left_out: Sequence[LeftOut] = (),
) -> Bundle:
    """The bundle that serves the page: document, style, scripts and images.

    ``images`` are already snapshotted and checked by the caller, under the
    keys ``body`` names them by, within ``image_budget``; ``left_out`` lists
    what the page does not show. Raises ``PageError`` when the bundled
    libraries cannot be read.
    """
    document = page_document(body, title=title, dark=dark, diagrams=diagrams, math=math)
    libraries = _libraries(diagrams, math)
    resources = [
        Resource.of(ENTRY_KEY, "text/html; charset=utf-8", document.encode("utf-8")),
        Resource.of(
            "page.css",
            "text/css",
            page_style(colors, dark=dark).encode("utf-8"),
        ),
        *libraries,
        *images,
    ]
    return Bundle.of(ENTRY_KEY, resources, list(left_out))
