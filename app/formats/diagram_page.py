"""The page that draws a Markdown document's diagrams and math, bound to serve.

The app writes this page itself: its body is markdown-it's HTML for a page
(``render_markdown(page=True)``: raw HTML off, diagrams and formulas as
elements holding their source), and its scripts are the bundled KaTeX and
Mermaid (ADR 12) and the app's ``resources/web/pages/draw.js``, which reads its
limits from the root element. The page is served as every preview is (ADR 4):
an opaque origin, no network, scripts only from the bundle; so KaTeX and
Mermaid, which read text the document's author wrote, run in that sandbox
only, never in the app. ``bind_page`` is Qt-free. A page bound from a file
(a notebook's, whose outputs name files of the workspace) asks on its root
element for what it draws (``drawn_page_root``), and ``add_drawing`` brings the
same files to its bundle, beside it.

The library files are public resources (``Resource.public``): a sandboxed page
fetches fonts in CORS mode, which the server answers only for the app's own
copies, so KaTeX's fonts are bound beside its stylesheet where it names them.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.serve.html_libraries import LibraryRefusedError, read_copy
from app.core.serve.manifest import MAX_BUNDLE_BYTES, Bundle, LeftOut, Resource
from app.core.serve.web_libraries import CatalogueError, bundled
from app.formats.markdown_diagrams import MAX_DIAGRAM_CHARS, MAX_DIAGRAMS, MAX_FORMULAS
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
DRAWING_FOLDER = "_drawing/"
"""Where ``add_drawing`` serves the drawing files, beside the page."""

_MERMAID = ("mermaid", "dist/mermaid.min.js")
_KATEX = ("katex", "dist/katex.min.js")
_KATEX_CSS = ("katex", "dist/katex.min.css")
# The first format each of KaTeX's @font-face rules names; a browser takes it.
_FONT_FILE = re.compile(r"url\((fonts/[A-Za-z0-9_-]+\.woff2)\)")
_COLOR = re.compile(r"#[0-9a-fA-F]{6}")
# What a page bound from a file asks to draw with, on its root element: the
# first tag of the page the app wrote.
_ROOT = re.compile(rb"<html\b[^>]*>")
_ROOT_BYTES = 1024
_DRAWS = re.compile(rb'\s(data-draws="([a-z ]*)")')
_DRAWN = 'data-drawn="done"'


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


def drawing_style(colors: PageColors) -> str:
    """The style of what ``draw.js`` draws (formulas, figures, their notices)."""
    c = colors
    return f"""\
.math-error {{ color: {c.muted}; }}
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
.missing-image {{ color: {c.muted}; }}
{drawing_style(colors)}"""


def _limits(dark: bool) -> str:
    """The root element's attributes ``draw.js`` reads: its theme and limits."""
    limits = {
        "theme": "dark" if dark else "light",
        "diagram-budget-ms": DIAGRAM_BUDGET_MS,
        "drawing-budget-ms": DRAWING_BUDGET_MS,
        "diagram-max-count": MAX_DIAGRAMS,
        "diagram-max-chars": MAX_DIAGRAM_CHARS,
        "diagram-max-edges": MAX_EDGES,
        "diagram-width": DIAGRAM_WIDTH_PX,
        "math-max-expand": MATH_MAX_EXPAND,
        "math-max-size": MATH_MAX_SIZE_EM,
        "math-max-count": MAX_FORMULAS,
    }
    return "".join(f' data-{name}="{value}"' for name, value in limits.items())


def _tags(*, diagrams: bool, math: bool, folder: str = "") -> tuple[str, str, str]:
    """The tags naming the drawing files below ``folder`` (relative to the page):
    KaTeX's stylesheet, the libraries' scripts and ``draw.js``, which comes last."""
    sheet = f'<link rel="stylesheet" href="{folder}lib/katex.min.css">\n'
    names = ["lib/katex.min.js"] if math else []
    names += ["lib/mermaid.min.js"] if diagrams else []
    libraries = "".join(f'<script src="{folder}{name}"></script>\n' for name in names)
    draw = f'<script src="{folder}draw.js"></script>\n'
    return sheet if math else "", libraries, draw


def page_document(
    body: str, *, title: str, dark: bool, diagrams: bool, math: bool
) -> str:
    """The page around ``body`` (HTML the app rendered; nothing else is raw).

    Only the libraries it needs are named; the limits go on the root element
    for ``draw.js``.
    """
    styles, libraries, draw = _tags(diagrams=diagrams, math=math)
    return (
        f'<!DOCTYPE html>\n<html lang="en"{_limits(dark)}>\n<head>\n'
        f'<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
        f'{styles}<link rel="stylesheet" href="page.css">\n</head>\n'
        f"<body>\n<main>\n{body}</main>\n{libraries}{draw}</body>\n</html>\n"
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


def drawn_page_root(*, dark: bool, diagrams: bool, math: bool) -> str:
    """The root element's attributes of a page bound from a file that draws.

    The limits ``draw.js`` reads, and what ``add_drawing`` is to bring; with
    nothing to draw, the page says it is drawn already (``DRAWN_SCRIPT``).
    """
    needs = ["math"] if math else []
    needs += ["diagrams"] if diagrams else []
    asks = f' data-draws="{" ".join(needs)}"' if needs else f" {_DRAWN}"
    return _limits(dark) + asks


def add_drawing(bundle: Bundle) -> Bundle:
    """``bundle``, a page bound from a file, with the drawing files it asks for.

    The page asks on its root element (``drawn_page_root``); the files are
    served beside it, under ``DRAWING_FOLDER``. The libraries are named at the
    end of its head, so they run before anything of the file's (an output's
    script, or element named ``exports`` or ``define``) can change what they
    see, and ``draw.js`` at the end of its body; the app wrote both ends.
    Where they cannot be added (the libraries cannot be read, the bundle would
    be too large, the page's own files hold their keys), the page is marked
    drawn, its diagrams and math stay text, and the bundle lists why.
    """
    entry = bundle.entry
    root = _ROOT.search(entry.data, 0, _ROOT_BYTES)
    asked = _DRAWS.search(entry.data, root.start(), root.end()) if root else None
    if asked is None:
        return bundle
    needs = asked.group(2).decode("ascii").split()
    diagrams, math = "diagrams" in needs, "math" in needs
    left_out = list(bundle.left_out)
    try:
        files = _beside(bundle, diagrams=diagrams, math=math)
        document = _named(entry.data, diagrams=diagrams, math=math)
    except PageError as error:
        files = []
        start, end = asked.span(1)
        document = entry.data[:start] + _DRAWN.encode() + entry.data[end:]
        detail = f"diagrams and math are shown as text: {error}"
        left_out.append(LeftOut("KaTeX and Mermaid", "drawing", detail, "script"))
    served = Resource.of(entry.key, entry.content_type, document)
    others = [r for key, r in bundle.resources.items() if key != bundle.entry_key]
    return Bundle.of(
        bundle.entry_key,
        [served, *others, *files],
        left_out,
        libraries=bundle.libraries,
        page_source=bundle.source,
    )


def _beside(bundle: Bundle, *, diagrams: bool, math: bool) -> list[Resource]:
    """The drawing files under ``DRAWING_FOLDER`` beside the bundle's page."""
    folder = posixpath.dirname(bundle.entry_key)
    prefix = (folder + "/" if folder else "") + DRAWING_FOLDER
    files = [
        dataclasses.replace(resource, key=prefix + resource.key)
        for resource in _libraries(diagrams, math)
    ]
    for resource in files:
        if resource.key in bundle.resources:
            raise PageError(f"the page has a file of its own at {resource.key}")
    if bundle.total_bytes + sum(len(r.data) for r in files) > MAX_BUNDLE_BYTES:
        raise PageError(f"the preview would exceed {MAX_BUNDLE_BYTES >> 20} MiB")
    return files


def _named(document: bytes, *, diagrams: bool, math: bool) -> bytes:
    """``document`` with the drawing files named; ``PageError`` if it cannot be."""
    head, body = document.find(b"</head>"), document.rfind(b"</body>")
    if head < 0 or body < head:
        raise PageError("the page has no head and body to name them in")
    styles, libraries, draw = _tags(diagrams=diagrams, math=math, folder=DRAWING_FOLDER)
    return b"".join(
        [
            document[:head],
            (styles + libraries).encode(),
            document[head:body],
            draw.encode(),
            document[body:],
        ]
    )
