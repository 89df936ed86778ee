"""A PDF opened from verified bytes: pages, outline, classified links, text, bitmaps.

PyMuPDF is not thread-safe, so a ``PdfDocument`` remembers the thread that
opened it and refuses calls from any other. ``pymupdf`` is imported when the
first document opens, never when this module loads. Nothing here follows a
link, runs a script or extracts an embedded file: links come back classified,
and acting on them is the caller's choice.
"""

from __future__ import annotations

import bisect
import enum
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from app.core.filetype import HEAD_SIZE, PDF_MIME, detect

MAX_PDF_BYTES = 256 << 20
"""Larger files are refused: the whole file is held in memory while shown."""

MAX_BITMAP_PIXELS = 16_000_000
"""A rendered page never has more pixels than this, whatever the zoom."""

MAX_PAGE_IMAGE_PIXELS = 100_000_000
"""The images one page draws, in pixels as their headers claim; a page of more
is refused before MuPDF decodes any (a 30,000 x 30,000 image is 900 million)."""

MAX_OUTLINE_ENTRIES = 50_000
"""Outline entries past this many are left out (and counted)."""
MAX_TITLE_CHARS = 500
MAX_WORDS = 50_000
"""Words of one page kept for selection; a page of more keeps its first ones."""
MAX_MATCHES = 10_000

Box = tuple[float, float, float, float]
"""x0, y0, x1, y1 in PDF points, origin at the page's top left."""

_RELATIVE_NAMES = {"NextPage": 1, "PrevPage": -1}


class PdfError(Exception):
    """The PDF could not be opened or read; ``str()`` is the user-facing reason."""


class PageTooLargeError(PdfError):
    """A page's images would need more memory than a page is given."""


class WrongThreadError(RuntimeError):
    """A document was used from a thread other than the one that opened it."""


class LinkAction(enum.Enum):
    """What a click on a link may do."""

    GOTO = "goto"  # a page of this document
    WEB = "web"  # an http or https address, opened only after a confirmation
    BLOCKED = "blocked"  # a program, another file, or an unknown scheme: never


@dataclass(frozen=True)
class PdfLink:
    """One link area on a page, already judged."""

    box: Box
    action: LinkAction
    page: int = -1  # GOTO: the target page, from 0
    y: float | None = None  # GOTO: the target's top, in points
    url: str = ""  # WEB: the address; BLOCKED: what it names, for the notice


@dataclass(frozen=True)
class OutlineEntry:
    """One outline (bookmark) line; ``page`` is -1 when it points elsewhere."""

    level: int
    title: str
    page: int
    y: float | None


@dataclass(frozen=True)
class DocumentInfo:
    """What the viewer needs once a document is open."""

    page_sizes: tuple[tuple[float, float], ...]
    outline: tuple[OutlineEntry, ...]
    title: str
    embedded_files: int
    outline_left_out: int = 0
    """Entries past ``MAX_OUTLINE_ENTRIES``, not in ``outline``."""


@dataclass(frozen=True)
class Word:
    """A word on a page with its position in reading order."""

    box: Box
    text: str
    block: int
    line: int


@dataclass(frozen=True)
class Bitmap:
    """An RGB page image: ``height`` rows of ``stride`` bytes."""

    width: int
    height: int
    stride: int
    samples: bytes


def is_pdf(head: bytes) -> bool:
    """Whether the bytes start like a PDF file, as the file-type service judges."""
    return detect(head[:HEAD_SIZE]).mime == PDF_MIME


def classify_link(raw: dict[str, Any], page: int, page_count: int) -> PdfLink:
    """Judge a link from PyMuPDF's ``get_links()`` found on page ``page``."""
    area = raw.get("from")
    box: Box = (0.0, 0.0, 0.0, 0.0)
    if area is not None:
        box = (float(area.x0), float(area.y0), float(area.x1), float(area.y1))
    kind = int(raw.get("kind", 0))
    if kind in (1, 4):  # LINK_GOTO, LINK_NAMED
        target = _link_target(raw, page, page_count)
        if target is not None:
            return PdfLink(box, LinkAction.GOTO, target, _link_y(raw))
        name = str(raw.get("nameddest") or raw.get("name") or "")
        return PdfLink(box, LinkAction.BLOCKED, url=name)
    if kind == 2:  # LINK_URI
        url = str(raw.get("uri") or "")
        if urlsplit(url).scheme.lower() in ("http", "https"):
            return PdfLink(box, LinkAction.WEB, url=url)
        return PdfLink(box, LinkAction.BLOCKED, url=url)
    # LINK_LAUNCH, LINK_GOTOR and anything unknown: never acted on.
    return PdfLink(box, LinkAction.BLOCKED, url=str(raw.get("file") or ""))


def _link_target(raw: dict[str, Any], page: int, page_count: int) -> int | None:
    target = raw.get("page")
    if isinstance(target, int) and 0 <= target < page_count:
        return target
    step = _RELATIVE_NAMES.get(str(raw.get("nameddest") or raw.get("name") or ""))
    if step is not None and 0 <= page + step < page_count:
        return page + step
    name = str(raw.get("nameddest") or raw.get("name") or "")
    if name == "FirstPage" and page_count:
        return 0
    if name == "LastPage" and page_count:
        return page_count - 1
    return None


def _link_y(raw: dict[str, Any]) -> float | None:
    point = raw.get("to")
    if point is None:
        return None
    y = float(point.y)
    return y if y > 0 else None


def selected_text(words: Iterable[Word], box: Box) -> str:
    """The text of the words touching ``box``: spaces within a line, lines apart."""
    lines: list[str] = []
    current: tuple[int, int] | None = None
    for word in selected_words(words, box):
        key = (word.block, word.line)
        if key != current:
            lines.append(word.text)
            current = key
        else:
            lines[-1] += " " + word.text
    return "\n".join(lines)


def selected_words(words: Iterable[Word], box: Box) -> list[Word]:
    """The words whose boxes overlap ``box``, in reading order."""
    x0, y0, x1, y1 = normalized(box)
    return [
        word
        for word in words
        if word.box[0] < x1
        and word.box[2] > x0
        and word.box[1] < y1
        and word.box[3] > y0
    ]


def normalized(box: Box) -> Box:
    """The box with its corners ordered (a drag may go up or left)."""
    x0, y0, x1, y1 = box
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def clamp_scale(width: float, height: float, scale: float) -> float:
    """``scale`` reduced so that the page's bitmap stays within the pixel bound."""
    pixels = width * height * scale * scale
    if pixels <= MAX_BITMAP_PIXELS or pixels <= 0:
        return scale
    return float(scale * (MAX_BITMAP_PIXELS / pixels) ** 0.5)


class PageLayout:
    """Where each page sits in a continuous column at one zoom (in pixels)."""

    def __init__(
        self, sizes: Sequence[tuple[float, float]], zoom: float, gap: int = 12
    ) -> None:
        self.zoom = zoom
        self.gap = gap
        self.sizes = [(round(w * zoom), round(h * zoom)) for w, h in sizes]
        self.tops: list[int] = []
        y = gap
        for _, height in self.sizes:
            self.tops.append(y)
            y += height + gap
        self.height = y
        self.width = max((w for w, _ in self.sizes), default=0) + 2 * gap

    def visible(self, top: int, bottom: int) -> range:
        """The pages that overlap the rows ``top`` to ``bottom``."""
        if not self.tops:
            return range(0)
        first = max(bisect.bisect_right(self.tops, top) - 1, 0)
        if self.tops[first] + self.sizes[first][1] < top:
            first = min(first + 1, len(self.tops) - 1)
        last = max(bisect.bisect_right(self.tops, bottom) - 1, first)
        return range(first, last + 1)

    def page_at(self, y: int) -> int:
        """The page whose area (with the gap above it) holds row ``y``."""
        if not self.tops:
            return 0
        return max(bisect.bisect_right(self.tops, y + self.gap) - 1, 0)


def _live(item: Any) -> bool:
    """Whether an outline item is there (PyMuPDF ends chains with empty items)."""
    if item is None:
        return False
    this = getattr(item, "this", None)
    return this is None or bool(getattr(this, "m_internal", True))


def _pymupdf() -> Any:
    # Imported on first use because it is heavy; typed Any because its API is
    # unannotated, which would otherwise fail strict type checking.
    import pymupdf

    return pymupdf


def quiet_mupdf() -> None:
    """Import PyMuPDF and keep MuPDF's own messages off standard error."""
    tools = _pymupdf().TOOLS
    tools.mupdf_display_errors(False)
    tools.mupdf_display_warnings(False)


def _check_images(page: Any) -> None:
    """Refuse a page whose images claim more pixels than a page may decode."""
    pixels = 0
    for image in page.get_images(full=True):
        width, height = int(image[2]), int(image[3])
        pixels += max(width, 0) * max(height, 0)
        if pixels > MAX_PAGE_IMAGE_PIXELS:
            raise PageTooLargeError(
                f"its images have {pixels / 1e6:,.0f} million pixels, more than "
                f"the {MAX_PAGE_IMAGE_PIXELS / 1e6:,.0f} million a page may decode"
            )


class PdfDocument:
    """One open PDF, used only from the thread that opened it."""

    def __init__(self, document: Any) -> None:
        self._doc = document
        self._thread = threading.get_ident()
        self._unlocked = False

    @classmethod
    def open(cls, data: bytes) -> PdfDocument:
        """Open ``data`` as a PDF, and only as a PDF (no content sniffing)."""
        if not is_pdf(data):
            raise PdfError("the file does not start with %PDF- and is not a PDF")
        pymupdf = _pymupdf()
        try:
            document = pymupdf.open(stream=data, filetype="pdf")
        except (RuntimeError, ValueError) as error:
            raise PdfError(f"the PDF is damaged ({error})") from error
        if document.page_count == 0 and not document.needs_pass:
            document.close()
            raise PdfError("the PDF is damaged: it has no readable pages")
        return cls(document)

    def _check(self) -> None:
        if threading.get_ident() != self._thread:
            raise WrongThreadError("a PDF document is used from another thread")

    @property
    def needs_password(self) -> bool:
        self._check()
        # PyMuPDF keeps saying so after a successful ``authenticate``.
        return bool(self._doc.needs_pass) and not self._unlocked

    def authenticate(self, password: str) -> bool:
        """Unlock with ``password``; True if it was right."""
        self._check()
        self._unlocked = self._unlocked or bool(self._doc.authenticate(password))
        return self._unlocked

    def info(self) -> DocumentInfo:
        self._check()
        count = int(self._doc.page_count)
        sizes = []
        for number in range(count):
            rect = self._doc.load_page(number).rect
            sizes.append((float(rect.width), float(rect.height)))
        outline, left_out = self._outline(count)
        metadata = self._doc.metadata or {}
        return DocumentInfo(
            tuple(sizes),
            tuple(outline),
            str(metadata.get("title") or "")[:MAX_TITLE_CHARS],
            int(self._doc.embfile_count()),
            left_out,
        )

    def _outline(self, count: int) -> tuple[list[OutlineEntry], int]:
        """The outline in reading order, walked without recursion.

        ``get_toc`` recurses once per level, so an outline 1,000 levels deep
        raised ``RecursionError``; entries past ``MAX_OUTLINE_ENTRIES`` are
        counted, not kept.
        """
        entries: list[OutlineEntry] = []
        left_out = 0
        stack: list[tuple[Any, int]] = [(self._doc.outline, 1)]
        while stack:
            item, level = stack.pop()
            if not _live(item):
                continue
            if len(entries) >= MAX_OUTLINE_ENTRIES:
                left_out += 1
            else:
                entries.append(self._outline_entry(item, level, count))
            stack.append((item.next, level))
            stack.append((item.down, level + 1))  # popped first: children next
            if left_out > 10 * MAX_OUTLINE_ENTRIES:
                break  # counting a hostile outline has a limit too
        return entries, left_out

    def _outline_entry(self, item: Any, level: int, count: int) -> OutlineEntry:
        title = str(item.title or " ")[:MAX_TITLE_CHARS]
        page, y = -1, None
        if not item.is_external and item.uri:
            page = int(item.page)
            if page == -1:  # a named destination: as get_toc resolves it
                page = int(self._doc.resolve_link(item.uri)[0])
            dest = getattr(item, "dest", None)
            kind = int(getattr(dest, "kind", 1)) if dest is not None else 1
            point = getattr(dest, "lt", None) if dest is not None else None
            if point is not None and float(point.y) > 0:
                y = float(point.y)
            if kind not in (1, 4) or not 0 <= page < count:
                page, y = -1, None
        return OutlineEntry(level, title, page, y)

    def render(self, page: int, scale: float) -> Bitmap:
        """Draw ``page`` at ``scale`` pixels per point (clamped), opaque RGB."""
        self._check()
        pymupdf = _pymupdf()
        loaded = self._doc.load_page(page)
        _check_images(loaded)
        scale = clamp_scale(loaded.rect.width, loaded.rect.height, scale)
        pixmap = loaded.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False)
        return Bitmap(
            int(pixmap.width), int(pixmap.height), int(pixmap.stride), pixmap.samples
        )

    def links(self, page: int) -> tuple[PdfLink, ...]:
        self._check()
        count = int(self._doc.page_count)
        try:
            raw = self._doc.load_page(page).get_links()
        except (SystemError, UnicodeDecodeError):
            # WORKAROUND(PyMuPDF 2.0 fails to decode link ids in some encrypted
            # files): the page is still shown, with its links inert.
            return ()
        return tuple(classify_link(link, page, count) for link in raw)

    def words(self, page: int) -> tuple[Word, ...]:
        self._check()
        return tuple(
            Word(
                (float(w[0]), float(w[1]), float(w[2]), float(w[3])),
                str(w[4]),
                int(w[5]),
                int(w[6]),
            )
            for w in self._doc.load_page(page).get_text("words")[:MAX_WORDS]
        )

    def search(self, page: int, text: str) -> tuple[Box, ...]:
        """Where ``text`` occurs on ``page`` (case-insensitive)."""
        self._check()
        return tuple(
            (float(r.x0), float(r.y0), float(r.x1), float(r.y1))
            for r in self._doc.load_page(page).search_for(text)[:MAX_MATCHES]
        )

    def close(self) -> None:
        self._check()
        self._doc.close()
