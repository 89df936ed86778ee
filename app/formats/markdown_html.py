"""Markdown to safe HTML for a rich-text view or a page: outline, links, images, code.

Parsing uses markdown-it's ``js-default`` preset, so raw HTML in the text stays
literal, plus tables, strikethrough, task lists and math
(``app.formats.markdown_diagrams``, with Mermaid fences). The HTML never names
a file: each image becomes ``<img src="mdimg:N">`` and the caller decides, for
image N, what to serve (``app.core.trust.paths.image_target`` says where a source
points and whether it may be read at all); a page names the key it binds
image N under instead. For a page (``page=True``), diagrams and math become
elements its script draws, and headings carry ids for the links to them.
Fenced code is coloured by pygments through a lexer table of our own; looking a
lexer up by name scans plugins and costs far more than a render.
"""

from __future__ import annotations

import html
import importlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from app.formats.markdown_diagrams import Drawing, DrawingCounts, fence, use_math

IMAGE_SCHEME = "mdimg"
"""The scheme of image sources in the HTML: ``mdimg:<index into images>``."""
MAX_IMAGES = 64
"""Images past this many are written as their alt text, not as ``<img>``."""
MAX_INLINE_NESTING = 16
"""Emphasis, strong and strikethrough nest this deep; deeper markers stay text.
A rich-text view's HTML import is quadratic in inline nesting: 20,000 nested
``<em>`` took it 30 s."""
MAX_HIGHLIGHT_CODE = 200_000
"""Fenced code longer than this (in characters) is not coloured."""
MAX_BLOCKS = 5_000
"""A document renders its first this many top-level blocks (headings,
paragraphs, lists, ...); the rest is left to its source. Importing 20,000
headings into a rich-text document holds the interpreter for a quarter second
in one call, so the window would wait for it however the work is threaded."""
RENDER_BUDGET_S = 10.0
"""A render that takes longer stops; the caller shows the text instead."""
HEADING_ID_PREFIX = "heading-"
"""A page's heading ids start with this, so that no heading named like a
global a script looks for ("exports", "define") stands in for it."""

# Fence language -> (pygments module, lexer class).
_LEXERS: dict[str, tuple[str, str]] = {
    **dict.fromkeys(
        ("python", "py", "python3"), ("pygments.lexers.python", "PythonLexer")
    ),
    **dict.fromkeys(("pycon",), ("pygments.lexers.python", "PythonConsoleLexer")),
    **dict.fromkeys(
        ("javascript", "js", "mjs"), ("pygments.lexers.javascript", "JavascriptLexer")
    ),
    **dict.fromkeys(
        ("typescript", "ts"), ("pygments.lexers.javascript", "TypescriptLexer")
    ),
    **dict.fromkeys(("json", "jsonc"), ("pygments.lexers.data", "JsonLexer")),
    **dict.fromkeys(("yaml", "yml"), ("pygments.lexers.data", "YamlLexer")),
    **dict.fromkeys(("toml",), ("pygments.lexers.configs", "TOMLLexer")),
    **dict.fromkeys(("ini", "cfg"), ("pygments.lexers.configs", "IniLexer")),
    **dict.fromkeys(
        ("bash", "sh", "shell", "zsh"), ("pygments.lexers.shell", "BashLexer")
    ),
    **dict.fromkeys(("console",), ("pygments.lexers.shell", "BashSessionLexer")),
    **dict.fromkeys(("html", "htm"), ("pygments.lexers.html", "HtmlLexer")),
    **dict.fromkeys(("xml", "svg"), ("pygments.lexers.html", "XmlLexer")),
    **dict.fromkeys(("css",), ("pygments.lexers.css", "CssLexer")),
    **dict.fromkeys(("sql",), ("pygments.lexers.sql", "SqlLexer")),
    **dict.fromkeys(("c", "h"), ("pygments.lexers.c_cpp", "CLexer")),
    **dict.fromkeys(
        ("cpp", "c++", "cxx", "hpp"), ("pygments.lexers.c_cpp", "CppLexer")
    ),
    **dict.fromkeys(("rust", "rs"), ("pygments.lexers.rust", "RustLexer")),
    **dict.fromkeys(("go", "golang"), ("pygments.lexers.go", "GoLexer")),
    **dict.fromkeys(("java",), ("pygments.lexers.jvm", "JavaLexer")),
    **dict.fromkeys(("diff", "patch"), ("pygments.lexers.diff", "DiffLexer")),
    **dict.fromkeys(("markdown", "md"), ("pygments.lexers.markup", "MarkdownLexer")),
    # Notebook kernels name their language so: IRkernel, IJulia, Almond.
    **dict.fromkeys(("r",), ("pygments.lexers.r", "SLexer")),
    **dict.fromkeys(("julia", "jl"), ("pygments.lexers.julia", "JuliaLexer")),
    **dict.fromkeys(("scala",), ("pygments.lexers.jvm", "ScalaLexer")),
}
_LIGHT_STYLE, _DARK_STYLE = "default", "monokai"
_TASK_DONE, _TASK_OPEN = "\u2611\u00a0", "\u2610\u00a0"


class RenderStoppedError(Exception):
    """A render stopped early: over its time budget, or no longer wanted."""


@dataclass(frozen=True)
class Heading:
    """One heading of the outline: level 1-6, its text and the anchor it sets."""

    level: int
    text: str
    anchor: str


@dataclass(frozen=True)
class RenderedMarkdown:
    """HTML for the view and what it refers to.

    ``images`` holds each image's source as written, in the order of the
    ``mdimg:N`` sources in ``html`` (``image_alts`` their alt texts); ``links``
    every link target, in order.
    """

    html: str
    headings: tuple[Heading, ...]
    links: tuple[str, ...]
    images: tuple[str, ...]
    image_alts: tuple[str, ...] = ()
    images_left_out: int = 0
    """Images past ``MAX_IMAGES``, written as text."""
    blocks_left_out: int = 0
    """Top-level blocks past ``MAX_BLOCKS``, not rendered."""
    drawing: DrawingCounts = field(default_factory=DrawingCounts)
    """The diagrams and formulas met, and (for a page) those left as text."""

    @property
    def draws(self) -> bool:
        """Whether the document has anything only a page can draw."""
        return self.drawing.diagrams > 0 or self.drawing.formulas > 0


def slugify(
    text: str, used: set[str], next_numbers: dict[str, int] | None = None
) -> str:
    """A GitHub-like anchor for a heading, unique among ``used`` (which grows).

    ``next_numbers`` remembers, per base, the number to try next, so that many
    equal headings cost linear time rather than quadratic.
    """
    base = re.sub(r"[^\w\- ]", "", text.lower()).strip().replace(" ", "-") or "section"
    numbers = next_numbers if next_numbers is not None else {}
    slug, number = base, numbers.get(base, 1)
    if slug in used:
        slug = f"{base}-{number}"
    while slug in used:
        number += 1
        slug = f"{base}-{number}"
    if slug != base:
        numbers[base] = number + 1
    used.add(slug)
    return slug


@lru_cache(maxsize=32)
def _lexer(language: str) -> Any:
    entry = _LEXERS.get(language.lower())
    if entry is None:
        return None
    module, name = entry
    return getattr(importlib.import_module(module), name)()


@lru_cache(maxsize=2)
def _formatter(dark: bool) -> Any:
    formatters = importlib.import_module("pygments.formatters.html")
    # Inline styles: the rich-text view has no style sheet classes from pygments.
    return formatters.HtmlFormatter(
        noclasses=True, nowrap=True, style=_DARK_STYLE if dark else _LIGHT_STYLE
    )


def highlight_code(code: str, language: str, *, dark: bool = False) -> str:
    """``code`` as HTML spans coloured for ``language``; unknown ones stay plain.

    Code over ``MAX_HIGHLIGHT_CODE`` characters stays plain too.
    """
    if len(code) > MAX_HIGHLIGHT_CODE:
        return html.escape(code)
    lexer = _lexer(language) if language else None
    if lexer is None:
        return html.escape(code)
    pygments = importlib.import_module("pygments")
    return str(pygments.highlight(code, lexer, _formatter(dark)))


class _Collector:
    """What one render saw: headings, links and images, filled by render rules."""

    def __init__(
        self,
        headings: list[Heading],
        dark: bool,
        guard: _Guard,
        drawing: Drawing,
        image_keys: Sequence[str | None] | None,
    ) -> None:
        self.headings = headings
        self.dark = dark
        self.guard = guard
        self.drawing = drawing
        self.image_keys = image_keys
        self.links: list[str] = []
        self.images: list[str] = []
        self.alts: list[str] = []
        self.images_left_out = 0
        self.inline_shown: list[bool] = []  # per open emphasis: written as a tag
        self.inline_depth = 0


class _Guard:
    """Stops a render past its deadline or once it is no longer wanted.

    Checked from a block rule and an inline rule placed first in their
    rulers, so a long parse stops within a line or a few hundred characters.
    """

    def __init__(self, deadline: float | None, cancelled: Callable[[], bool]) -> None:
        self._deadline = deadline
        self._cancelled = cancelled
        self._calls = 0

    def check(self) -> None:
        self._calls += 1
        if self._calls % 256:
            return
        if self._cancelled():
            raise RenderStoppedError("the preview was closed")
        if self._deadline is not None and time.perf_counter() > self._deadline:
            raise RenderStoppedError("it is too complex to render in time")


def _guard_block(state: Any, start: int, end: int, silent: bool) -> bool:
    guard = state.env.get("guard")
    if guard is not None:
        guard.check()
    return False


def _guard_inline(state: Any, silent: bool) -> bool:
    guard = state.env.get("guard")
    if guard is not None:
        guard.check()
    return False


def _render_heading_open(
    self: Any, tokens: Any, idx: int, options: Any, env: Any
) -> str:
    # No named anchor in a view: a rich-text view's HTML import is quadratic
    # in their number (20,000 took it 13 s). The outline and "#anchor" links
    # find a heading by its place among the headings instead. A page's
    # headings carry ids, which its "#anchor" links name.
    collector: _Collector = env["collector"]
    token = tokens[idx]
    number = (token.meta or {}).get("heading")
    if not collector.drawing.page or number is None:
        return f"<{token.tag}>"
    anchor = collector.headings[number].anchor
    return f'<{token.tag} id="{html.escape(HEADING_ID_PREFIX + anchor)}">'


def _render_inline_open(
    self: Any, tokens: Any, idx: int, options: Any, env: Any
) -> str:
    collector: _Collector = env["collector"]
    token = tokens[idx]
    shown = collector.inline_depth < MAX_INLINE_NESTING
    collector.inline_shown.append(shown)
    if not shown:
        return html.escape(str(token.markup))
    collector.inline_depth += 1
    return f"<{token.tag}>"


def _render_inline_close(
    self: Any, tokens: Any, idx: int, options: Any, env: Any
) -> str:
    collector: _Collector = env["collector"]
    token = tokens[idx]
    shown = collector.inline_shown.pop() if collector.inline_shown else True
    if not shown:
        return html.escape(str(token.markup))
    collector.inline_depth = max(0, collector.inline_depth - 1)
    return f"</{token.tag}>"


def _render_link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    collector: _Collector = env["collector"]
    href = str(tokens[idx].attrGet("href") or "")
    collector.links.append(href)
    if collector.drawing.page and href.startswith("#"):
        return f'<a href="#{html.escape(HEADING_ID_PREFIX + href[1:])}">'
    return f'<a href="{html.escape(href)}">'


def _render_image(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    collector: _Collector = env["collector"]
    token = tokens[idx]
    alt = "".join(child.content for child in token.children or [])
    number = len(collector.images)
    if number >= MAX_IMAGES:
        collector.images_left_out += 1
        return html.escape(f"[{alt or 'image'}]")
    collector.images.append(str(token.attrGet("src") or ""))
    collector.alts.append(alt)
    if collector.image_keys is None:
        return f'<img src="{IMAGE_SCHEME}:{number}" alt="{html.escape(alt)}">'
    key = collector.image_keys[number] if number < len(collector.image_keys) else None
    if key is None:
        shown = html.escape(f"[{alt or 'image'}]")
        return f'<span class="missing-image">{shown}</span>'
    return f'<img src="{html.escape(key)}" alt="{html.escape(alt)}">'


def _render_fence(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    collector: _Collector = env["collector"]
    token = tokens[idx]
    language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
    collector.guard.check()
    drawn = fence(collector.drawing, language, token.content)
    if drawn is not None:
        return drawn
    code = highlight_code(token.content, language, dark=collector.dark)
    return f"<pre>{code}</pre>\n"


def _render_html_inline(
    self: Any, tokens: Any, idx: int, options: Any, env: Any
) -> str:
    # Raw HTML is off, so only the task-list plugin makes these tokens; anything
    # else is shown as the text it is.
    content = str(tokens[idx].content)
    if "task-list-item-checkbox" in content:
        return _TASK_DONE if 'checked="checked"' in content else _TASK_OPEN
    return html.escape(content)


def _render_table_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    # Qt's rich text draws cell borders from attributes, not from CSS.
    return '<table border="1" cellspacing="0" cellpadding="5" class="md">\n'


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.tasklists import tasklists_plugin

    parser = MarkdownIt("js-default").use(tasklists_plugin)
    parser.enable(["table", "strikethrough"])
    use_math(parser)
    parser.add_render_rule("heading_open", _render_heading_open)
    parser.add_render_rule("link_open", _render_link_open)
    parser.add_render_rule("image", _render_image)
    parser.add_render_rule("fence", _render_fence)
    parser.add_render_rule("code_block", _render_fence)
    parser.add_render_rule("html_inline", _render_html_inline)
    parser.add_render_rule("html_block", _render_html_inline)
    parser.add_render_rule("table_open", _render_table_open)
    for kind in ("em", "strong", "s"):
        parser.add_render_rule(f"{kind}_open", _render_inline_open)
        parser.add_render_rule(f"{kind}_close", _render_inline_close)
    # Also asked as a terminator, so it runs on every line of a long paragraph.
    parser.block.ruler.before(
        parser.block.ruler.get_all_rules()[0],
        "guard",
        _guard_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    parser.inline.ruler.before(
        parser.inline.ruler.get_all_rules()[0], "guard", _guard_inline
    )
    return parser


def _outline(tokens: Any) -> list[Heading]:
    """Headings in order; each heading_open token learns its index in ``meta``."""
    headings: list[Heading] = []
    used: set[str] = set()
    next_numbers: dict[str, int] = {}
    for position, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        inline = tokens[position + 1]
        text = "".join(
            child.content
            for child in inline.children or []
            if child.type in ("text", "code_inline")
        ).strip()
        token.meta = {**(token.meta or {}), "heading": len(headings)}
        slug = slugify(text, used, next_numbers)
        headings.append(Heading(int(token.tag[1]), text, slug))
    return headings


def render_markdown(
    text: str,
    *,
    dark: bool = False,
    budget: float | None = RENDER_BUDGET_S,
    cancelled: Callable[[], bool] = lambda: False,
    max_blocks: int | None = MAX_BLOCKS,
    page: bool = False,
    image_keys: Sequence[str | None] | None = None,
    drawing: Drawing | None = None,
) -> RenderedMarkdown:
    """Render ``text``; ``dark`` picks code colours for a dark background.

    Only the first ``max_blocks`` top-level blocks are rendered (``None``: all);
    ``blocks_left_out`` counts the others. ``page`` writes diagrams and math
    for a page to draw; ``image_keys`` names, for each image N, the key a page
    serves it under (``None``: not shown, its alt text is written instead);
    without it images are ``mdimg:N``. A page made of several documents (a
    notebook's cells) passes one ``drawing`` to each render instead of
    ``page``: it counts across them, so the page keeps one page's bounds, and
    ``RenderedMarkdown.drawing`` counts all of them so far.

    Raises ``RenderStoppedError`` past ``budget`` seconds (``None``: no limit)
    or once ``cancelled()`` says so.
    """
    parser = _parser()
    deadline = None if budget is None else time.perf_counter() + budget
    guard = _Guard(deadline, cancelled)
    env: dict[str, Any] = {"guard": guard}
    tokens = parser.parse(text, env)
    ends = [
        position + 1
        for position, token in enumerate(tokens)
        if token.level == 0 and token.nesting <= 0
    ]
    shown, left_out = tokens, 0
    if max_blocks is not None and len(ends) > max_blocks > 0:
        shown, left_out = tokens[: ends[max_blocks - 1]], len(ends) - max_blocks
    if drawing is None:
        drawing = Drawing(page=page)
    collector = _Collector(_outline(shown), dark, guard, drawing, image_keys)
    env["collector"] = collector
    env["drawing"] = drawing
    body = parser.renderer.render(shown, parser.options, env)
    return RenderedMarkdown(
        str(body),
        tuple(collector.headings),
        tuple(collector.links),
        tuple(collector.images),
        tuple(collector.alts),
        collector.images_left_out,
        left_out,
        drawing.counts(),
    )


def image_number(url: str) -> int | None:
    """The N of an ``mdimg:N`` source, or None for any other URL."""
    prefix = f"{IMAGE_SCHEME}:"
    if not url.startswith(prefix) or not url[len(prefix) :].isdigit():
        return None
    return int(url[len(prefix) :])
