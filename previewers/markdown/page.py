"""The page a Markdown document with diagrams or math is drawn in, bound on the worker.

The document is rendered once more, for a page (``render_markdown(page=True)``),
with the images the worker already read and checked; ``bind_page`` adds the
bundled KaTeX and Mermaid. Nothing here touches Qt: the bundle is plain data
the preview publishes on the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.core.serve.manifest import MAX_DEPENDENCY_BYTES, Bundle, LeftOut, Resource
from app.formats import markdown_html
from app.formats.diagram_page import PageColors, PageError, bind_page, image_budget
from app.formats.markdown_diagrams import drawing_notices
from app.formats.markdown_html import RenderedMarkdown, render_markdown
from previewers.markdown.document import LoadedImage

PAGE_FAILED_NOTICE = "Diagrams and math cannot be drawn ({}); they are shown as text."


@dataclass(frozen=True)
class MarkdownPage:
    """The bound page, or ``None`` and why not; what to tell the user about it."""

    bundle: Bundle | None
    notices: tuple[str, ...]


def _page_images(
    images: Sequence[LoadedImage], budget: int
) -> tuple[list[str | None], list[Resource], list[LeftOut]]:
    """For each image, its key in the page (or ``None``), the resources, left-outs."""
    keys: list[str | None] = []
    resources: list[Resource] = []
    left_out: list[LeftOut] = []
    for number, image in enumerate(images):
        size = len(image.data)
        if image.image is None:
            keys.append(None)  # the notice above the page says why
        elif size > MAX_DEPENDENCY_BYTES or size > budget or not image.mime:
            keys.append(None)
            left_out.append(
                LeftOut(image.source, "size", "too large to show in a drawn page")
            )
        else:
            key = f"images/{number}"
            budget -= size
            keys.append(key)
            resources.append(Resource.of(key, image.mime, image.data))
    return keys, resources, left_out


def bind_markdown_page(
    text: str,
    rendered: RenderedMarkdown,
    images: Sequence[LoadedImage],
    *,
    title: str,
    colors: PageColors,
    dark: bool,
    cancelled: Callable[[], bool],
) -> MarkdownPage:
    """Render ``text`` for a page and bind it; ``rendered`` is its view render.

    Raises ``RenderStoppedError`` past the render budget or once cancelled.
    """
    counts = rendered.drawing
    try:
        budget = image_budget(diagrams=counts.diagrams > 0, math=counts.formulas > 0)
    except PageError as error:
        return MarkdownPage(None, (PAGE_FAILED_NOTICE.format(error),))
    keys, resources, left_out = _page_images(images, budget)
    page = render_markdown(
        text,
        dark=dark,
        budget=markdown_html.RENDER_BUDGET_S,
        max_blocks=markdown_html.MAX_BLOCKS,
        cancelled=cancelled,
        page=True,
        image_keys=keys,
    )
    drawn = page.drawing
    try:
        bundle = bind_page(
            page.html,
            title=title,
            colors=colors,
            dark=dark,
            diagrams=drawn.diagrams_drawn > 0,
            math=drawn.formulas_drawn > 0,
            images=resources,
            left_out=left_out,
        )
    except PageError as error:
        return MarkdownPage(None, (PAGE_FAILED_NOTICE.format(error),))
    return MarkdownPage(bundle, drawing_notices(drawn))
