"""Image facts from headers, the decompression-bomb limit, and scaled decoding.

Every decoder of the app reads an image's size here, before a pixel is
decoded, and refuses what is over its pixel limit; ``decode_scaled`` then
decodes no larger than it must (JPEG in the DCT, an icon's best image).
"""

from __future__ import annotations

import io
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from app.core.filetype import detect

if TYPE_CHECKING:
    from PIL.IcoImagePlugin import IcoFile
    from PIL.Image import Image as PilImage
    from PIL.ImageFile import ImageFile

MAX_PIXELS = 89_478_485
"""Pillow's ``MAX_IMAGE_PIXELS``: larger images (or animation frames) are refused."""

ICO_IMAGE_LIMIT = 256
"""More images than any icon holds: an icon listing more is refused unread."""

EXIF_ORIENTATION_TAG = 0x0112
# EXIF orientations 5 to 8 turn the image a quarter: width and height swap.
_QUARTER_TURNS = frozenset({5, 6, 7, 8})


@dataclass(frozen=True)
class ImageFormat:
    """One accepted format: its MIME type, Pillow's name for it, words for people."""

    mime: str
    pillow: str
    label: str
    animatable: bool = False

    @property
    def decoder(self) -> bytes:
        """The name decoders that are told the format take (``png``, ``jpeg``)."""
        return self.pillow.lower().encode()


FORMATS: dict[str, ImageFormat] = {
    fmt.mime: fmt
    for fmt in (
        ImageFormat("image/png", "PNG", "PNG"),
        ImageFormat("image/jpeg", "JPEG", "JPEG"),
        ImageFormat("image/gif", "GIF", "GIF", animatable=True),
        ImageFormat("image/webp", "WEBP", "WebP", animatable=True),
        ImageFormat("image/bmp", "BMP", "BMP"),
        ImageFormat("image/vnd.microsoft.icon", "ICO", "ICO"),
        ImageFormat("image/tiff", "TIFF", "TIFF"),
    )
}
"""Formats this viewer decodes, by the MIME type the magic bytes gave."""


def format_for_mime(mime: str) -> ImageFormat | None:
    """The format for a sniffed MIME type; ``None`` for anything else (e.g. SVG)."""
    return FORMATS.get(mime)


class ImageDataError(ValueError):
    """The image could not be read; the message is for the user."""


@dataclass(frozen=True)
class ImageFacts:
    """What the header says: stored size, frame count and EXIF orientation."""

    format: ImageFormat
    width: int
    height: int
    frames: int = 1
    orientation: int = 1

    @property
    def pixels(self) -> int:
        return self.width * self.height

    @property
    def animated(self) -> bool:
        return self.frames > 1

    @property
    def display_size(self) -> tuple[int, int]:
        """The size as shown, after the EXIF orientation is applied."""
        if self.orientation in _QUARTER_TURNS:
            return self.height, self.width
        return self.width, self.height


def megapixels(pixels: int) -> str:
    """ "400 MP", "24 MP", "0.3 MP", "<0.1 MP"."""
    value = pixels / 1_000_000
    if value >= 10:
        return f"{value:.0f} MP"
    return f"{value:.1f} MP" if value >= 0.1 else "<0.1 MP"


def pixel_refusal(facts: ImageFacts, limit: int = MAX_PIXELS) -> str | None:
    """Why the image is too large to decode, or ``None`` when it is within ``limit``.

    For an animation the size is the canvas every frame is drawn on, so this is
    also the per-frame limit.
    """
    if facts.pixels <= limit:
        return None
    what = "Each frame" if facts.animated else "The image"
    return (
        f"{what} is {facts.width}\u00d7{facts.height} pixels "
        f"({megapixels(facts.pixels)}), more than the {limit // 1_000_000} MP "
        "this viewer decodes."
    )


class ReadAtStream(io.RawIOBase):
    """A seekable read-only stream over ``read_at(size, offset)``, e.g. a descriptor.

    Lets a parser read only the bytes it needs through positional reads.
    """

    def __init__(self, read_at: Callable[[int, int], bytes], size: int) -> None:
        super().__init__()
        self._read_at = read_at
        self._size = size
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}
        self._position = max(0, base[whence] + offset)
        return self._position

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._read_at(len(buffer), self._position)
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)


_init_lock = threading.Lock()


def _open_header(stream: IO[bytes], fmt: ImageFormat) -> ImageFile:
    """Parse only the header with the plugin for ``fmt``; no pixel is decoded.

    ``Image.open`` would raise on a bomb before saying its size; the plugin's
    own factory reads the size so the refusal can name it.
    """
    from PIL import Image

    with _init_lock:  # plugin registration is not thread-safe
        if fmt.pillow not in Image.OPEN:
            Image.init()
    factory, accept = Image.OPEN[fmt.pillow]
    prefix = stream.read(16)
    stream.seek(0)
    if accept is not None and not accept(prefix):
        raise ImageDataError(f"The file does not start like a {fmt.label} image")
    try:
        return factory(stream, "")
    except Image.DecompressionBombError as error:  # a frame past twice the limit
        raise ImageDataError(
            f"The {fmt.label} image has more pixels than this viewer decodes"
        ) from error
    except _DAMAGED as error:
        raise ImageDataError(
            f"The {fmt.label} header is damaged or truncated"
        ) from error
    except MemoryError as error:  # a header that claims huge tables
        raise ImageDataError(
            f"The {fmt.label} header asks for more memory than this viewer gives"
        ) from error


@dataclass(frozen=True)
class _IconImage:
    """One image of an icon: where Pillow lists it, its real size and depth."""

    index: int
    width: int
    height: int
    depth: int

    @property
    def pixels(self) -> int:
        return self.width * self.height


def _icon_images(
    stream: IO[bytes], fmt: ImageFormat
) -> tuple[IcoFile, tuple[_IconImage, ...]]:
    """An icon's directory, with each image's size read from that image's header.

    The directory's one-byte sizes bind nothing: an entry listed as 16x16 may
    hold a 7000x7000 PNG, and Pillow's and Qt's readers decode an image whole
    to learn its size. Here each image's own header (PNG or DIB) is parsed
    lazily instead; no pixel is decoded.
    """
    from PIL import BmpImagePlugin, IcoImagePlugin, PngImagePlugin

    damaged = f"The {fmt.label} header is damaged or truncated"
    stream.seek(0)
    try:
        icon = IcoImagePlugin.IcoFile(stream)
    except _DAMAGED as error:
        raise ImageDataError(damaged) from error
    if not icon.entry:
        raise ImageDataError(f"The {fmt.label} file holds no image")
    if len(icon.entry) > ICO_IMAGE_LIMIT:
        raise ImageDataError(
            f"The {fmt.label} file lists {len(icon.entry)} images, more than "
            f"the {ICO_IMAGE_LIMIT} this viewer reads"
        )
    images = []
    for index, listed in enumerate(icon.entry):
        try:
            stream.seek(listed.offset)
            png = detect(stream.read(16)).mime == "image/png"
            stream.seek(listed.offset)
            if png:
                width, height = PngImagePlugin.PngImageFile(stream).size
            else:
                # A DIB's height counts its colour and mask rows together.
                width, rows = BmpImagePlugin.DibImageFile(stream).size
                height = rows // 2
        except _DAMAGED as error:
            raise ImageDataError(damaged) from error
        if width <= 0 or height <= 0:
            raise ImageDataError(damaged)
        images.append(_IconImage(index, width, height, listed.bpp))
    return icon, tuple(images)


def _largest(images: tuple[_IconImage, ...]) -> _IconImage:
    return max(images, key=lambda image: (image.pixels, image.depth))


def _icon_facts(stream: IO[bytes], fmt: ImageFormat) -> ImageFacts:
    """An icon's facts: the size of its largest image, as the viewer shows it.

    No image of it is larger, so an icon within the limit holds only images
    within it.
    """
    _icon, images = _icon_images(stream, fmt)
    largest = _largest(images)
    return ImageFacts(fmt, largest.width, largest.height)


def _icon_image(
    data: bytes, fmt: ImageFormat, bound: tuple[int, int] | None, limit: int
) -> tuple[PilImage, tuple[int, int]]:
    """The icon's image that best fills ``bound``, and the largest image's size.

    Every image's real size is checked against ``limit`` before any is
    decoded; then only the smallest image that fills ``bound`` (else the
    largest) is decoded: a thumbnail never decodes a 256x256 image when
    the icon holds a 128x128 one.
    """
    icon, images = _icon_images(io.BytesIO(data), fmt)
    largest = _largest(images)
    refusal = pixel_refusal(ImageFacts(fmt, largest.width, largest.height), limit)
    if refusal is not None:
        raise ImageDataError(refusal)
    full = (largest.width, largest.height)
    wanted = fit_within(full, bound) if bound is not None else full
    filling = [
        image
        for image in images
        if image.width >= wanted[0] and image.height >= wanted[1]
    ]
    chosen = (
        min(filling, key=lambda image: (image.pixels, -image.depth))
        if filling
        else largest
    )
    try:
        picked: PilImage = icon.frame(chosen.index)  # a PNG image stays unloaded
    except _DAMAGED as error:
        raise ImageDataError(f"The {fmt.label} data is damaged or truncated") from error
    if picked.size != (chosen.width, chosen.height):
        raise ImageDataError(f"The {fmt.label} data is damaged or truncated")
    return picked, full


# What a damaged header or data stream raises inside Pillow's plugins and
# decoders: fuzzed files reach TypeError and struct.error, not only OSError.
_DAMAGED = (
    SyntaxError,
    IndexError,
    TypeError,
    ValueError,
    EOFError,
    OSError,
    KeyError,
    ZeroDivisionError,
    struct.error,
)


def _orientation(image: ImageFile) -> int:
    """The EXIF orientation from the bytes the header parse kept; decodes nothing.

    ``getexif()`` is not used: for PNG it decodes every pixel first, looking
    for an eXIf chunk after the image data.
    """
    from PIL import Image

    try:
        if image.format == "TIFF":
            value = image.tag_v2.get(EXIF_ORIENTATION_TAG, 1)  # type: ignore[attr-defined]
        else:
            raw = image.info.get("exif")
            if not isinstance(raw, bytes) or not raw:
                return 1
            exif = Image.Exif()
            exif.load(raw)
            value = exif.get(EXIF_ORIENTATION_TAG, 1)
    except _DAMAGED:  # a broken EXIF block
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _checked_size(image: ImageFile, fmt: ImageFormat) -> tuple[int, int]:
    width, height = image.width, image.height
    if width <= 0 or height <= 0:
        raise ImageDataError(
            f"The {fmt.label} header says the image is {width}\u00d7{height} "
            "pixels: it has no pixels to show"
        )
    return width, height


def read_facts(stream: IO[bytes], fmt: ImageFormat) -> ImageFacts:
    """Dimensions, frames and orientation from the header, decoding nothing.

    An image over ``MAX_PIXELS`` is described by its size alone: nothing
    more of it is read, so a refusal costs a header parse. An icon is
    described by its largest image, measured by that image's own header.
    """
    if fmt.pillow == "ICO":
        return _icon_facts(stream, fmt)
    image = _open_header(stream, fmt)
    width, height = _checked_size(image, fmt)
    if pixel_refusal(ImageFacts(fmt, width, height)) is not None:
        return ImageFacts(fmt, width, height)
    frames = 1
    if fmt.animatable:
        try:
            frames = max(1, int(getattr(image, "n_frames", 1)))
        except _DAMAGED:
            frames = 1  # a cut-off animation still shows its first frame
    return ImageFacts(fmt, width, height, frames, _orientation(image))


@dataclass(frozen=True)
class DecodedImage:
    """RGBA pixels decoded for display, oriented, at most the requested size."""

    data: bytes
    width: int
    height: int
    full_width: int
    full_height: int

    @property
    def scale(self) -> float:
        """Decoded width over the full (oriented) width."""
        return self.width / self.full_width if self.full_width else 1.0


def fit_within(size: tuple[int, int], bound: tuple[int, int]) -> tuple[int, int]:
    """``size`` shrunk (never grown) to fit ``bound``, keeping its aspect ratio."""
    width, height = size
    scale = min(1.0, bound[0] / max(1, width), bound[1] / max(1, height))
    return max(1, round(width * scale)), max(1, round(height * scale))


def decode_scaled(
    data: bytes,
    fmt: ImageFormat,
    bound: tuple[int, int] | None = None,
    *,
    limit: int = MAX_PIXELS,
) -> DecodedImage:
    """Decode to RGBA no larger than ``bound`` (display orientation); None = full.

    The size in the header is checked against ``limit`` pixels before any
    pixel is decoded (for an icon, every image's). JPEG is reduced while
    decoding (``draft``: DCT scaling), so a 24 MP photo never exists at full
    size; an icon decodes only its image nearest ``bound``; other formats
    decode, then shrink at once.
    """
    from PIL import Image, ImageOps

    image: PilImage
    if fmt.pillow == "ICO":
        image, full = _icon_image(data, fmt, bound, limit)
        turned = False
    else:
        opened = _open_header(io.BytesIO(data), fmt)
        width, height = _checked_size(opened, fmt)
        refusal = pixel_refusal(ImageFacts(fmt, width, height), limit)
        if refusal is not None:
            raise ImageDataError(refusal)  # before anything is decoded
        facts = ImageFacts(fmt, width, height, 1, _orientation(opened))
        image, full = opened, facts.display_size
        turned = facts.orientation in _QUARTER_TURNS
    stored = (image.width, image.height)
    if bound is not None:
        # Decoding works in stored orientation; a quarter turn swaps the bound.
        stored = fit_within(stored, bound[::-1] if turned else bound)
    try:
        shown: PilImage = image
        if stored != (image.width, image.height):
            image.draft(None, stored)  # JPEG: scale by 1/2, 1/4 or 1/8 in the DCT
            shown = image.resize(stored, Image.Resampling.LANCZOS, reducing_gap=2.0)
        else:
            image.load()
        shown = ImageOps.exif_transpose(shown)
        rgba = _to_rgba(shown)
    except _DAMAGED as error:
        raise ImageDataError(f"The {fmt.label} data is damaged or truncated") from error
    except MemoryError as error:
        raise ImageDataError(
            f"There is not enough memory to decode this {fmt.label} image"
        ) from error
    return DecodedImage(rgba.tobytes(), rgba.width, rgba.height, *full)


def _to_rgba(image: PilImage) -> PilImage:
    if image.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        # Deep greyscale: scale to 8 bits rather than clip to white.
        image = image.convert("I").point(lambda value: value / 256).convert("L")
    return image if image.mode == "RGBA" else image.convert("RGBA")
