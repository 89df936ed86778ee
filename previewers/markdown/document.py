"""The Markdown preview's rich-text side: a document that serves only vetted images.

Images are read on a worker before the document is built (``load_images``): each
must resolve inside the workspace root, pass the read-deny policy, open through
``open_verified`` (no symbolic links), stay under ``IMAGE_BYTES_LIMIT`` and
``IMAGE_PIXEL_LIMIT``, and be PNG, JPEG, GIF, WebP or BMP by its magic bytes. SVG is
never decoded (QtSvg would fetch files it names). The document answers every other
request with a drawn placeholder: answering nothing would let Qt read the URL as a
local file itself.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, QSize, Qt, QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QImage,
    QImageReader,
    QPainter,
    QPalette,
    QResizeEvent,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from app.core.filetype import HEAD_SIZE, detect
from app.core.trust.paths import image_target
from app.core.trust.policy import Policy
from app.core.trust.safeio import SafeOpenError, open_verified
from app.formats.image_facts import (
    ImageDataError,
    ImageFormat,
    format_for_mime,
    pixel_refusal,
    read_facts,
)
from app.formats.markdown_html import MAX_IMAGES, image_number

MARKDOWN_LIMIT = 4 * 1024 * 1024
"""Larger Markdown files are left to the text previewer (rendering would stall)."""
IMAGE_BYTES_LIMIT = 8 * 1024 * 1024
IMAGE_PIXEL_LIMIT = 40_000_000
IMAGE_COUNT_LIMIT = MAX_IMAGES
MAX_IMAGE_WIDTH = 720
# The raster formats a document's image may have, by the MIME type the
# file-type service gives its bytes.
_FORMATS = frozenset(
    {"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"}
)


@dataclass(frozen=True)
class LoadedImage:
    """One image of the document: decoded, or the reason it is not shown.

    ``data`` and ``mime`` are the file's checked bytes and type, kept only
    when asked for (a page serves them as they are).
    """

    source: str
    image: QImage | None
    reason: str = ""
    data: bytes = field(default=b"", repr=False)
    mime: str = ""


def image_format(head: bytes) -> ImageFormat | None:
    """The format for these magic bytes, or None if not an allowed raster."""
    found = format_for_mime(detect(head).mime)
    return found if found is not None and found.mime in _FORMATS else None


def _decode(data: bytes, fmt: ImageFormat) -> QImage | str:
    """The image at most ``MAX_IMAGE_WIDTH`` wide, or why it is not shown.

    The header is measured first, with the image previewer's reader and
    limits: nothing is decoded for an image over ``IMAGE_PIXEL_LIMIT``.
    """
    try:
        facts = read_facts(io.BytesIO(data), fmt)
    except ImageDataError as error:
        return str(error)
    if pixel_refusal(facts, IMAGE_PIXEL_LIMIT) is not None:
        return "the image has too many pixels"
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer, fmt.decoder)
    reader.setDecideFormatFromContent(False)
    if facts.width > MAX_IMAGE_WIDTH:
        # Decoded small where the format allows it (JPEG's DCT scaling).
        height = max(1, round(facts.height * MAX_IMAGE_WIDTH / facts.width))
        reader.setScaledSize(QSize(MAX_IMAGE_WIDTH, height))
    image = reader.read()
    if image.isNull():
        return "the image cannot be decoded"
    return image


def load_image(
    src: str, folder: str, root: str, policy: Policy, keep: int = 0
) -> LoadedImage:
    """Read and decode one image source written in a file in ``folder``.

    Only files below ``root`` that ``policy`` allows are read. The file's
    bytes are kept in the result if there are at most ``keep`` of them.
    """
    target = image_target(src, folder, root)
    if target.path is None:
        return LoadedImage(src, None, target.reason)
    if policy.denying_rule(target.path) is not None:
        return LoadedImage(src, None, "a read-deny rule covers the image")
    try:
        file = open_verified(target.path)
    except SafeOpenError as error:
        return LoadedImage(src, None, str(error))
    with file:
        if file.real_path is not None and file.real_path != target.path:
            return LoadedImage(src, None, "a folder on the image's path moved")
        if file.identity.size > IMAGE_BYTES_LIMIT:
            return LoadedImage(src, None, "the image is over 8 MiB")
        data = file.read(IMAGE_BYTES_LIMIT + 1, 0)
    fmt = image_format(data[:HEAD_SIZE])
    if fmt is None:
        return LoadedImage(src, None, "not a PNG, JPEG, GIF, WebP or BMP image")
    decoded = _decode(data, fmt)
    if isinstance(decoded, str):
        return LoadedImage(src, None, decoded)
    if len(data) > keep:
        return LoadedImage(src, decoded)
    return LoadedImage(src, decoded, data=data, mime=fmt.mime)


def load_images(
    sources: Sequence[str],
    folder: str,
    root: str,
    policy: Policy,
    cancelled: Callable[[], bool] = lambda: False,
    keep: int = 0,
) -> tuple[LoadedImage, ...]:
    """Every image of a document, at most ``IMAGE_COUNT_LIMIT`` of them read.

    The files' bytes are kept, image after image, while they add up to at
    most ``keep`` (for a page that shows them).
    """
    loaded = []
    for number, src in enumerate(sources):
        if cancelled():
            loaded.append(LoadedImage(src, None, "the preview was closed"))
        elif number >= IMAGE_COUNT_LIMIT:
            loaded.append(LoadedImage(src, None, "too many images in one document"))
        else:
            image = load_image(src, folder, root, policy, keep)
            keep -= len(image.data)
            loaded.append(image)
    return tuple(loaded)


def placeholder(alt: str, reason: str, palette: QPalette) -> QImage:
    """A framed box that names the image and why it is not shown."""
    font = QFont()
    text = f"\U0001f5bc {alt or 'image'} \u2014 not shown: {reason}"
    image = QImage(min(40 + 7 * len(text), 640), 36, QImage.Format.Format_ARGB32)
    image.fill(palette.color(QPalette.ColorRole.AlternateBase))
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(QColor(palette.color(QPalette.ColorRole.Mid)))
    painter.drawRect(image.rect().adjusted(0, 0, -1, -1))
    painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
    painter.drawText(
        QRect(10, 0, image.width() - 20, image.height()),
        int(Qt.AlignmentFlag.AlignVCenter) | int(Qt.TextFlag.TextSingleLine),
        painter.fontMetrics().elidedText(
            text, Qt.TextElideMode.ElideRight, image.width() - 20
        ),
    )
    painter.end()
    return image


class MarkdownDocument(QTextDocument):
    """A document whose only resources are the images it was given.

    ``requested`` keeps every URL asked for, so tests can see what was refused.
    """

    def __init__(self, palette: QPalette, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._palette = palette
        self._images: tuple[LoadedImage, ...] = ()
        self._alts: tuple[str, ...] = ()
        self.requested: list[str] = []
        self.image_positions: tuple[int, ...] = ()
        """Where each image character is, found by ``find_images`` (on a worker)."""

    def set_images(
        self, images: tuple[LoadedImage, ...], alts: tuple[str, ...]
    ) -> None:
        self._images = images
        self._alts = alts

    def find_images(self) -> None:
        """Record where the images are, once the document is built.

        Walks every block: done where the document is built, so the view
        never walks a document of 50,000 blocks on the GUI thread.
        """
        found: list[int] = []
        block = self.begin()
        while block.isValid():
            fragments = block.begin()
            while not fragments.atEnd():
                fragment = fragments.fragment()
                if fragment.charFormat().isImageFormat():
                    # Each image is one character of its own fragment or of a
                    # run of images with the same format.
                    start = fragment.position()
                    found.extend(range(start, start + fragment.length()))
                fragments += 1
            block = block.next()
        self.image_positions = tuple(found)

    def loadResource(self, type: int, name: QUrl | str) -> object:
        url = name.toString() if isinstance(name, QUrl) else str(name)
        self.requested.append(url)
        number = image_number(url)
        if type != int(QTextDocument.ResourceType.ImageResource):
            # Non-empty on purpose: an empty answer makes Qt read the URL itself.
            return QByteArray(b" ")
        if number is None or number >= len(self._images):
            return placeholder("", "not a workspace image", self._palette)
        loaded = self._images[number]
        if loaded.image is not None:
            return loaded.image
        alt = self._alts[number] if number < len(self._alts) else ""
        return placeholder(alt, loaded.reason, self._palette)


class MarkdownTextView(QTextBrowser):
    """A read-only rich-text view that never follows a link by itself.

    Signals: those of ``QTextBrowser`` (``anchorClicked`` carries every click).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setSearchPaths([])

    def loadResource(self, type: int, name: QUrl | str) -> object:
        document = self.document()
        if isinstance(document, MarkdownDocument):
            return document.loadResource(type, name)
        return QByteArray(b" ")

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_images()

    def fit_images(self) -> None:
        """Show each image at its own size, or narrower to fit the view's width.

        A chart wider than the preview is scaled down, never cropped behind a
        scroll bar; the decoded pixels stay as they are (at most
        ``MAX_IMAGE_WIDTH`` wide).
        """
        document = self.document()
        positions = (
            document.image_positions if isinstance(document, MarkdownDocument) else ()
        )
        if not positions:
            return
        room = self.viewport().width() - 2 * document.documentMargin() - 8
        if room <= 0:
            return
        image_kind = int(QTextDocument.ResourceType.ImageResource)
        for position in positions:
            cursor = QTextCursor(document)
            cursor.setPosition(position)
            cursor.setPosition(position + 1, QTextCursor.MoveMode.KeepAnchor)
            look = cursor.charFormat()
            if not look.isImageFormat():
                continue
            image_look = look.toImageFormat()
            image = document.resource(image_kind, QUrl(image_look.name()))
            if not isinstance(image, QImage) or image.isNull():
                continue
            width = min(float(image.width()), room)
            height = image.height() * width / image.width()
            if (
                abs(image_look.width() - width) < 0.5
                and abs(image_look.height() - height) < 0.5
            ):
                continue
            image_look.setWidth(width)
            image_look.setHeight(height)
            cursor.setCharFormat(image_look)


def style_sheet(palette: QPalette) -> str:
    """Document CSS from the palette, so light and dark themes both read well."""
    alternate = palette.color(QPalette.ColorRole.AlternateBase).name()
    mid = palette.color(QPalette.ColorRole.Mid).name()
    link = palette.color(QPalette.ColorRole.Link).name()
    muted = palette.color(QPalette.ColorRole.PlaceholderText).name()
    return (
        f"a {{ color: {link}; }}"
        f"code {{ background-color: {alternate}; font-family: monospace; }}"
        f"pre {{ background-color: {alternate}; font-family: monospace;"
        " margin-top: 6px; margin-bottom: 10px; padding: 8px; }"
        "h1 { font-size: xx-large; margin-top: 6px; margin-bottom: 10px; }"
        "h2 { font-size: x-large; margin-top: 16px; margin-bottom: 8px; }"
        "h3 { font-size: large; margin-top: 12px; margin-bottom: 6px; }"
        "p { margin-top: 0px; margin-bottom: 10px; }"
        "li { margin-bottom: 2px; }"
        f"table.md {{ border-color: {mid}; border-style: solid;"
        " border-collapse: collapse; margin-bottom: 10px; }"
        f"th {{ background-color: {alternate}; font-weight: bold; }}"
        f"blockquote {{ color: {muted}; margin-left: 16px; }}"
    )
