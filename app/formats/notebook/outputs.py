"""One cell output as HTML: the richest type that can be shown safely, within bounds.

Images are decoded here, checked to be what their MIME type says by the file
type service and kept within the pixel bound of ``app.formats.image_facts``,
then written as ``data:`` URLs (the preview's Content-Security-Policy allows
them for images, and an image context runs no script in an SVG). HTML output
is written into the page (balanced by ``contain``, so that it cannot swallow
what follows it): the whole page runs in the preview's sandbox, where its
scripts are treated as any page's. Markdown and LaTeX are written by the page
(``Texts``), so their math is drawn as a Markdown cell's. Text too long is cut
with a notice that says how much there was.
"""

from __future__ import annotations

import base64
import binascii
import html
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from app.core.filetype import HEAD_SIZE, detect
from app.core.filetype.sizes import human_size
from app.formats.image_facts import (
    ImageDataError,
    format_for_mime,
    pixel_refusal,
    read_facts,
)
from app.formats.notebook.ansi import ansi_to_html
from app.formats.notebook.contain import contain_html
from app.formats.notebook.model import Failure, Output, Rich, Stream

MIB = 1 << 20

PREFERRED = (
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/svg+xml",
    "text/html",
    "text/markdown",
    "text/latex",
    "text/plain",
)
"""The types an output is shown as, richest first. A static image comes before
HTML: an output that offers both is usually a chart whose HTML needs a script
library from the network, which a preview never reaches."""

_RASTER_LABELS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF"}


@dataclass(frozen=True)
class Limits:
    """How much of a notebook a page shows."""

    text_bytes: int = MIB
    """One output's text, or one cell's source (UTF-8)."""
    image_bytes: int = 4 * MIB
    """One image, decoded."""
    page_bytes: int = 24 * MIB
    """The whole page; what a bundle may hold beyond it is left to the files
    the page names."""
    seconds: float = 20.0
    """Rendering stops after this long; the rest is left to the JSON view."""


class Unshown(Exception):  # noqa: N818 - an outcome, shown as a notice
    """An output (or one of its types) that is not shown; the message says why."""


class Texts(Protocol):
    """How the page writes an output's Markdown and LaTeX."""

    def markdown(self, text: str) -> str:
        """Markdown as HTML, its math and diagrams as a Markdown cell's."""
        ...

    def latex(self, text: str) -> str | None:
        """Math alone as HTML, typeset; ``None`` for other LaTeX."""
        ...


def notice(text: str) -> str:
    """A visible note in the page, as escaped text."""
    return f'<div class="notice">{html.escape(text)}</div>'


def cut_text(text: str, limit: int) -> tuple[str, str]:
    """``text`` cut to ``limit`` UTF-8 bytes, and the notice for it ("" if whole)."""
    if len(text) * 4 <= limit:
        return text, ""
    if text.isascii():  # known without a scan: one byte a character
        if len(text) <= limit:
            return text, ""
        return text[:limit], (
            f"Output cut at {human_size(limit)} of {human_size(len(text))}; "
            "the JSON view has all of it."
        )
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, ""
    kept = data[:limit].decode("utf-8", "ignore")
    return kept, (
        f"Output cut at {human_size(limit)} of {human_size(len(data))}; "
        "the JSON view has all of it."
    )


def pre(css_class: str, text: str, limit: int) -> str:
    """Terminal text in a ``<pre>``, cut to ``limit``, its colours kept."""
    kept, cut = cut_text(text, limit)
    body = f'<pre class="{css_class}">{ansi_to_html(kept)}</pre>'
    return body + (notice(cut) if cut else "")


def _image_tag(src: str, size: tuple[int | None, int | None] | None, alt: str) -> str:
    attributes = ""
    if size is not None:
        width, height = size
        if width is not None:
            attributes += f' width="{width}"'
        if height is not None:
            attributes += f' height="{height}"'
    return (
        f'<img class="output-image" src="{html.escape(src)}"'
        f' alt="{html.escape(alt)}"{attributes}>'
    )


def image_source(mime: str, content: str, limit: int) -> str:
    """A checked ``data:`` URL for an image output or attachment; ``Unshown`` if not.

    A raster image must decode from base64, be the format its type names (by
    its bytes) and stay within the pixel bound; an SVG must be an SVG.
    """
    if mime == "image/svg+xml":
        data = content.encode("utf-8", "surrogatepass")
        if len(data) > limit:
            raise Unshown(
                f"the SVG image is {human_size(len(data))}, more than the "
                f"{human_size(limit)} a preview shows"
            )
        if not detect(data[:HEAD_SIZE], read=_reader(data)).is_svg:
            raise Unshown("its data is not an SVG image")
        return "data:image/svg+xml;base64," + base64.b64encode(data).decode("ascii")
    label = _RASTER_LABELS[mime]
    compact = "".join(content.split())
    if len(compact) // 4 * 3 > limit:
        raise Unshown(
            f"the {label} image is about {human_size(len(compact) // 4 * 3)}, more "
            f"than the {human_size(limit)} a preview shows"
        )
    try:
        decoded = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise Unshown(f"its {label} data is not valid base64") from None
    found = detect(decoded[:HEAD_SIZE])
    if found.mime != mime:
        raise Unshown(f"its data is not a {label} image but {found.description}")
    image_format = format_for_mime(mime)
    if image_format is None:  # every raster type above has a format
        raise Unshown(f"{label} images are not shown")
    try:
        facts = read_facts(io.BytesIO(decoded), image_format)
    except ImageDataError as error:
        raise Unshown(str(error).rstrip(".")) from None
    refusal = pixel_refusal(facts)
    if refusal is not None:
        raise Unshown(refusal.rstrip("."))
    return f"data:{mime};base64,{compact}"


def _reader(data: bytes) -> Callable[[int, int], bytes]:
    def read(size: int, offset: int) -> bytes:
        return data[offset : offset + size]

    return read


def rich_html(
    output: Rich, limits: Limits, texts: Texts
) -> tuple[str, tuple[str, ...]]:
    """The richest type of ``output`` that can be shown, and why others were not.

    Raises ``Unshown`` when no type it offers is one a preview shows.
    """
    reasons: list[str] = []
    for mime in PREFERRED:
        content = output.data.get(mime)
        if content is None:
            continue
        try:
            return _as(mime, content, output, limits, texts), tuple(reasons)
        except Unshown as unshown:
            reasons.append(f"The {mime} output is not shown: {unshown}.")
    if reasons:
        raise Unshown(" ".join(reasons))
    offered = ", ".join(sorted(output.data)[:4]) or "no content"
    raise Unshown(
        f"An output of type {offered} is not shown here; the JSON view has it."
    )


def _as(mime: str, content: str, output: Rich, limits: Limits, texts: Texts) -> str:
    if mime.startswith("image/"):
        source = image_source(mime, content, limits.image_bytes)
        return _image_tag(source, output.sizes.get(mime), "output image")
    kept, cut = cut_text(content, limits.text_bytes)
    after = notice(cut) if cut else ""
    if mime == "text/html":
        return f'<div class="output-html">{contain_html(kept)}</div>{after}'
    if mime == "text/markdown":
        return (
            f'<div class="output-markdown markdown">{texts.markdown(kept)}</div>{after}'
        )
    if mime == "text/latex":
        typeset = texts.latex(kept)
        if typeset is not None:
            return f'<div class="output-latex">{typeset}</div>{after}'
    css = "output-text latex" if mime == "text/latex" else "output-text"
    return f'<pre class="{css}">{ansi_to_html(kept)}</pre>{after}'


def merge_streams(outputs: tuple[Output, ...]) -> list[Output]:
    """Outputs with each run of text to the same stream joined, as Jupyter shows it."""
    merged: list[Output] = []
    run: list[str] = []  # the texts of the run being joined, joined once
    for output in outputs:
        last = merged[-1] if merged else None
        if (
            isinstance(output, Stream)
            and isinstance(last, Stream)
            and last.name == output.name
        ):
            run.append(output.text)
            continue
        if len(run) > 1 and isinstance(last, Stream):
            merged[-1] = Stream(last.name, "".join(run))
        run = [output.text] if isinstance(output, Stream) else []
        merged.append(output)
    last = merged[-1] if merged else None
    if len(run) > 1 and isinstance(last, Stream):
        merged[-1] = Stream(last.name, "".join(run))
    return merged


def output_html(output: Output, limits: Limits, texts: Texts) -> str:
    """One output as HTML, or a notice saying why it is not shown."""
    if isinstance(output, Stream):
        return pre(f"output-stream {output.name}", output.text, limits.text_bytes)
    if isinstance(output, Failure):
        lines = "\n".join(output.traceback) or f"{output.ename}: {output.evalue}"
        return pre("output-error", lines, limits.text_bytes)
    try:
        shown, reasons = rich_html(output, limits, texts)
    except Unshown as unshown:
        return notice(str(unshown))
    return "".join(notice(reason) for reason in reasons) + shown


def attachment_sources(
    attachments: Mapping[str, Mapping[str, str]], limit: int
) -> dict[str, str]:
    """``attachment:name`` URL to a checked ``data:`` URL, or to why it is not shown.

    A value that starts with ``data:`` is a source; anything else is a reason.
    """
    found: dict[str, str] = {}
    for name, bundle in attachments.items():
        for mime in PREFERRED[:4]:
            if mime in bundle:
                try:
                    found[name] = image_source(mime, bundle[mime], limit)
                except Unshown as unshown:
                    found[name] = str(unshown)
                break
    return found
