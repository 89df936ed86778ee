"""The Markdown preview's loading job: decode, render and build both documents.

Everything that depends on the file runs here, on a worker: markdown-it, the
images, the HTML import into a ``QTextDocument`` (seconds for some files), the
plain-text document of the source and, for a document with diagrams or math,
the page they are drawn in (``previewers.markdown.page``). The documents are
left with no thread, for the GUI thread to take (``adopt``) and put in their
views, which lay them out lazily; the page is plain data.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, QThread
from PySide6.QtGui import QPalette, QTextCursor, QTextDocument
from PySide6.QtWidgets import QPlainTextDocumentLayout

from app.core.serve.manifest import Bundle
from app.core.trust.policy import Policy
from app.formats import markdown_html
from app.formats.diagram_page import PageColors, PageError, image_budget
from app.formats.encoding import decode, guess_encoding
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
from previewers.markdown.page import PAGE_FAILED_NOTICE, bind_markdown_page

TOO_COMPLEX_NOTICE = (
    "This Markdown is too complex to render in time, so its text is shown instead."
)


SHOWN_IN_PART_NOTICE = (
    "This document is too long to show in full, so only its first part is "
    "shown; Show source has all of it."
)
BLOCK_CHAR_LIMIT = 40_000
"""A paragraph (or any block) is cut after this many characters, and the
document with it: one block is laid out in one piece on the GUI thread, and
300,000 characters of it take a third of a second."""


SOURCE_SLICE_CHARS = 32_000
"""The source document is filled this many characters at a time."""
SLICE_PAUSE_S = 0.001


class PreviewClosedError(Exception):
    """The preview closed while its documents were being built."""


@dataclass(frozen=True)
class MarkdownLoad:
    """The built documents and what to tell the user.

    ``rendered`` and ``document`` are None when rendering stopped over its
    budget; ``heading_positions`` holds where each heading's block starts;
    ``page`` is the bound page that draws the diagrams and math, if any, and
    ``page_notices`` what to say about it.
    """

    rendered: RenderedMarkdown | None
    document: MarkdownDocument | None
    source: QTextDocument
    heading_positions: tuple[int, ...]
    images: tuple[LoadedImage, ...]
    notices: tuple[str, ...]
    page: Bundle | None = None
    page_notices: tuple[str, ...] = ()


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
    page_colors: PageColors | None = None
    """Draw diagrams and math in a page, in these colours (``None``: never)."""
    title: str = ""


REMOTE_IMAGE_REASON = "images of a document on a remote host are not loaded"


def decode_markdown(data: bytes) -> tuple[str, tuple[str, ...]]:
    """Text from bytes and any notice: a BOM picks the encoding, else UTF-8 when
    the bytes are UTF-8, else the legacy encoding they read as (the document
    is decoded whole, so a multi-byte one such as Shift JIS may be it)."""
    head = data[:65536]
    encoding = guess_encoding(head, whole=len(head) == len(data))
    text, invalid = decode(data[len(encoding.bom) :], encoding)
    notices: list[str] = []
    if encoding.unit == 1 and not encoding.utf8:
        notices.append(
            f"This document is not UTF-8; it is shown as {encoding.name}, "
            "the encoding its bytes read as."
        )
    if invalid:
        notices.append(f"Some bytes are not valid {encoding.name}; shown as \ufffd.")
    return text, tuple(notices)


def _let_go(document: QObject) -> None:
    """Leave ``document`` with no thread, for the GUI thread to take (``adopt``).

    Pushing it to the GUI thread from here takes that thread's event-queue
    lock while this thread holds the interpreter lock; a test run hung there,
    with the GUI thread in its event loop. An object with no thread is pulled
    by the thread that wants it, and no lock of another thread is taken here.
    """
    document.moveToThread(None)  # type: ignore[arg-type]  # Qt allows it; the stub does not say so


def adopt(document: QObject) -> None:
    """Take a document the job let go onto the calling (GUI) thread."""
    if document.thread() is None:
        document.moveToThread(QThread.currentThread())


def pause() -> None:
    """Let the GUI thread have the interpreter between two slices of work."""
    time.sleep(SLICE_PAUSE_S)


SOURCE_BLOCK_CHARS = 2 * SOURCE_SLICE_CHARS
"""A source line longer than this is shown broken into blocks this long."""

LONG_LINES_NOTICE = (
    f"In the source, lines over {SOURCE_BLOCK_CHARS:,} characters are shown "
    "broken into parts."
)


def source_document(text: str) -> tuple[QTextDocument, bool]:
    """A plain-text document for a ``QPlainTextEdit``, built where it is called.

    Filled with whole lines about ``SOURCE_SLICE_CHARS`` at a time, with a
    ``pause`` between: one call holds the interpreter until it returns, and
    50,000 lines in one call kept the GUI thread waiting a tenth of a second.
    A line over ``SOURCE_BLOCK_CHARS`` is broken into blocks of that size
    (True comes back then): the document lays out a block in one piece, and
    one line of 300,000 characters held the interpreter 0.14 s.
    """
    document = QTextDocument()
    document.setUndoRedoEnabled(False)
    document.setDocumentLayout(QPlainTextDocumentLayout(document))
    cursor: QTextCursor | None = None
    broken = False
    start = 0
    while start < len(text) or cursor is None:
        newline = text.find("\n", start + SOURCE_SLICE_CHARS)
        end = len(text) if newline < 0 else newline + 1
        if end - start > SOURCE_BLOCK_CHARS + SOURCE_SLICE_CHARS:
            # A long line runs on past this slice: break it here (never at the
            # text's end, which is more than a slice further on).
            end = start + SOURCE_BLOCK_CHARS
            piece = text[start:end]
            if not piece.endswith("\n"):
                piece += "\n"
                broken = True
        else:
            piece = text[start:end]
        if cursor is None:
            document.setPlainText(piece)
            cursor = QTextCursor(document)
            cursor.movePosition(QTextCursor.MoveOperation.End)
        else:
            pause()
            cursor.insertText(piece)
        start = end
    document.setModified(False)
    return document, broken


def heading_positions(document: QTextDocument) -> tuple[int, ...]:
    """Where each heading block starts, in document order."""
    found: list[int] = []
    block = document.begin()
    while block.isValid():
        if block.blockFormat().headingLevel() > 0:
            found.append(block.position())
        block = block.next()
    return tuple(found)


def cut_overlong_block(document: QTextDocument) -> bool:
    """End the document inside its first block over ``BLOCK_CHAR_LIMIT``.

    Returns whether anything was cut.
    """
    block = document.begin()
    while block.isValid():
        if block.length() > BLOCK_CHAR_LIMIT:
            cursor = QTextCursor(document)
            cursor.setPosition(block.position() + BLOCK_CHAR_LIMIT)
            cursor.movePosition(
                QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor
            )
            cursor.removeSelectedText()
            return True
        block = block.next()
    return False


def build(data: bytes, job: MarkdownJob, cancelled: threading.Event) -> MarkdownLoad:
    """Decode, render and build the documents for ``data``; on a worker."""
    stopped: Callable[[], bool] = cancelled.is_set
    text, notices = decode_markdown(data[: MARKDOWN_LIMIT + 1])
    source, broken = source_document(text)
    _let_go(source)
    # Said last: it is about the source, not the rendered view shown first.
    tail = (LONG_LINES_NOTICE,) if broken else ()
    try:
        rendered = render_markdown(
            text,
            dark=job.dark,
            budget=markdown_html.RENDER_BUDGET_S,
            max_blocks=markdown_html.MAX_BLOCKS,
            cancelled=stopped,
        )
    except RenderStoppedError:
        if stopped():
            raise PreviewClosedError from None
        return MarkdownLoad(
            None, None, source, (), (), (*notices, TOO_COMPLEX_NOTICE, *tail)
        )
    # A page is drawn only for a document with diagrams or math in it.
    colors = job.page_colors if rendered.draws else None
    if job.remote:
        # Its paths name the remote host's files; none is looked up here.
        images = tuple(
            LoadedImage(src, None, REMOTE_IMAGE_REASON) for src in rendered.images
        )
    else:
        keep = _image_bytes_for_page(rendered) if colors is not None else 0
        images = load_images(
            rendered.images, job.folder, job.root, job.policy, stopped, keep
        )
    if stopped():
        raise PreviewClosedError
    page: Bundle | None = None
    page_notices: tuple[str, ...] = ()
    if colors is not None:
        page, page_notices = _draw_in_page(text, rendered, images, job, colors, stopped)
        # The document keeps its images; their files' bytes are the page's now.
        images = tuple(replace(image, data=b"") for image in images)
    document = MarkdownDocument(job.palette)
    document.setDocumentMargin(14)
    document.set_images(images, rendered.image_alts)
    document.setDefaultStyleSheet(style_sheet(job.palette))
    document.setHtml(rendered.html)
    if cut_overlong_block(document) or rendered.blocks_left_out:
        notices = (*notices, SHOWN_IN_PART_NOTICE)
    document.find_images()
    positions = heading_positions(document)
    if len(positions) < len(rendered.headings):
        # The outline lists only the headings that are shown.
        rendered = replace(rendered, headings=rendered.headings[: len(positions)])
    _let_go(document)
    return MarkdownLoad(
        rendered,
        document,
        source,
        positions,
        images,
        (*notices, *tail),
        page,
        page_notices,
    )


def _draw_in_page(
    text: str,
    rendered: RenderedMarkdown,
    images: tuple[LoadedImage, ...],
    job: MarkdownJob,
    colors: PageColors,
    stopped: Callable[[], bool],
) -> tuple[Bundle | None, tuple[str, ...]]:
    """The page that draws the document's diagrams and math, and its notices."""
    try:
        drawn = bind_markdown_page(
            text,
            rendered,
            images,
            title=job.title,
            colors=colors,
            dark=job.dark,
            cancelled=stopped,
        )
    except RenderStoppedError:
        if stopped():
            raise PreviewClosedError from None
        return None, (PAGE_FAILED_NOTICE.format("it takes too long"),)
    return drawn.bundle, drawn.notices


def _image_bytes_for_page(rendered: RenderedMarkdown) -> int:
    """How many bytes of image files to keep for the page (none if it cannot be)."""
    counts = rendered.drawing
    try:
        return image_budget(diagrams=counts.diagrams > 0, math=counts.formulas > 0)
    except PageError:
        return 0  # the page's binding says why
