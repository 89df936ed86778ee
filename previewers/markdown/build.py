"""The Markdown preview's loading job: decode, render and build both documents.

Everything that depends on the file runs here, on a worker: markdown-it, the
images, the HTML import into a ``QTextDocument`` (seconds for some files) and
the plain-text document of the source. The documents are handed to the GUI
thread, which only puts them in their views (a ``QObject`` can be built on one
thread and pushed to another; the views lay them out lazily).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtGui import QPalette, QTextDocument
from PySide6.QtWidgets import QPlainTextDocumentLayout

from app.core.policy import Policy
from app.formats import markdown_html
from app.formats.encoding import decode, detect_encoding
from app.formats.markdown_html import (
    RenderedMarkdown,
    RenderStoppedError,
    render_markdown,
)
from previewers.markdown.document import (
    MARKDOWN_LIMIT,
    LoadedImage,
    MarkdownDocument,
    load_images,
    style_sheet,
)

TOO_COMPLEX_NOTICE = (
    "This Markdown is too complex to render in time, so its text is shown instead."
)


class PreviewClosedError(Exception):
    """The preview closed while its documents were being built."""


@dataclass(frozen=True)
class MarkdownLoad:
    """The built documents and what to tell the user.

    ``rendered`` and ``document`` are None when rendering stopped over its
    budget; ``heading_positions`` holds where each heading's block starts.
    """

    rendered: RenderedMarkdown | None
    document: MarkdownDocument | None
    source: QTextDocument
    heading_positions: tuple[int, ...]
    images: tuple[LoadedImage, ...]
    notices: tuple[str, ...]


@dataclass(frozen=True)
class MarkdownJob:
    """What the job is given, asked on the GUI thread before it starts."""

    folder: str
    root: str
    policy: Policy
    dark: bool
    palette: QPalette
    remote: bool = False
    """The document is on a remote host: its images are not read at all."""


REMOTE_IMAGE_REASON = "images of a document on a remote host are not loaded"


def decode_markdown(data: bytes) -> tuple[str, tuple[str, ...]]:
    """Text from bytes (a BOM picks the encoding, else UTF-8) and any notice."""
    encoding = detect_encoding(data)
    text, invalid = decode(data[len(encoding.bom) :], encoding)
    if invalid:
        codec = encoding.codec.upper()
        return text, (f"Some bytes are not valid {codec}; shown as \ufffd.",)
    return text, ()


def _to_gui_thread(document: QObject) -> None:
    application = QCoreApplication.instance()
    if application is not None:
        document.moveToThread(application.thread())


def source_document(text: str) -> QTextDocument:
    """A plain-text document for a ``QPlainTextEdit``, built where it is called."""
    document = QTextDocument()
    document.setDocumentLayout(QPlainTextDocumentLayout(document))
    document.setPlainText(text)
    return document


def heading_positions(document: QTextDocument) -> tuple[int, ...]:
    """Where each heading block starts, in document order."""
    found: list[int] = []
    block = document.begin()
    while block.isValid():
        if block.blockFormat().headingLevel() > 0:
            found.append(block.position())
        block = block.next()
    return tuple(found)


def build(data: bytes, job: MarkdownJob, cancelled: threading.Event) -> MarkdownLoad:
    """Decode, render and build the documents for ``data``; on a worker."""
    stopped: Callable[[], bool] = cancelled.is_set
    text, notices = decode_markdown(data[: MARKDOWN_LIMIT + 1])
    source = source_document(text)
    _to_gui_thread(source)
    try:
        rendered = render_markdown(
            text,
            dark=job.dark,
            budget=markdown_html.RENDER_BUDGET_S,
            cancelled=stopped,
        )
    except RenderStoppedError:
        if stopped():
            raise PreviewClosedError from None
        return MarkdownLoad(None, None, source, (), (), (*notices, TOO_COMPLEX_NOTICE))
    if job.remote:
        # Its paths name the remote host's files; none is looked up here.
        images = tuple(
            LoadedImage(src, None, REMOTE_IMAGE_REASON) for src in rendered.images
        )
    else:
        images = load_images(rendered.images, job.folder, job.root, job.policy, stopped)
    if stopped():
        raise PreviewClosedError
    document = MarkdownDocument(job.palette)
    document.setDocumentMargin(14)
    document.set_images(images, rendered.image_alts)
    document.setDefaultStyleSheet(style_sheet(job.palette))
    document.setHtml(rendered.html)
    document.find_images()
    positions = heading_positions(document)
    _to_gui_thread(document)
    return MarkdownLoad(rendered, document, source, positions, images, notices)
