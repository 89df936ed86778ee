"""A PDF opened from verified bytes: pages, outline, classified links, text, bitmaps.

PyMuPDF is not thread-safe, so a ``PdfDocument`` remembers the thread that
opened it and refuses calls from any other. The pages are what a person came
for: every other part (outline, links, annotations, title, the count of
embedded files) is read item by item, and one that cannot be read is left out
and named in ``DocumentInfo.unreadable`` instead of costing the document.
``pymupdf`` is imported when the first document opens, never when this module
loads. Nothing here follows a link, runs a script or extracts an embedded
file: links come back classified, and acting on them is the caller's choice.
"""

from __future__ import annotations

import bisect
import enum
import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from app.core.filetype import HEAD_SIZE, PDF_MIME, detect
from app.core.filetype.sizes import counted

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
    """One outline (bookmark) line; ``page`` is -1 when it points elsewhere.

    ``readable`` is False for an entry whose target could not be read: it
    keeps its place and title in the tree and goes nowhere.
    """

    level: int
    title: str
    page: int
    y: float | None
    readable: bool = True


@dataclass(frozen=True)
class DocumentInfo:
    """What the viewer needs once a document is open."""

    page_sizes: tuple[tuple[float, float], ...]
    outline: tuple[OutlineEntry, ...]
    title: str
    embedded_files: int
    outline_left_out: int = 0
    """Entries past ``MAX_OUTLINE_ENTRIES``, not in ``outline``."""
    unreadable: tuple[str, ...] = ()
    """The parts that could not be read and are left out, named for a notice
    ("the outline", "the targets of 2 outline entries", ...)."""


@dataclass(frozen=True)
class Word:
    """A word on a page with its position in reading order."""

    box: Box
    text: str
    block: int
    line: int


@dataclass(frozen=True)
class Bitmap:
    """An RGB page image: ``height`` rows of ``stride`` bytes.

    ``annotations_left_out``: the page's annotations could not be drawn, so
    the page is drawn without them.
    """

    width: int
    height: int
    stride: int
    samples: bytes
    annotations_left_out: bool = False


def is_pdf(head: bytes) -> bool:
    """Whether the bytes start like a PDF file, as the file-type service judges."""
    return detect(head[:HEAD_SIZE]).mime == PDF_MIME


def classify_link(
    raw: dict[str, Any],
    page: int,
    page_count: int,
    named: tuple[int, float | None] | None = None,
) -> PdfLink:
    """Judge a link from PyMuPDF's ``get_links()`` found on page ``page``.

    ``named`` is where a named destination leads (page, top), as the document
    resolves it: PyMuPDF gives such a link's point in PDF space (from the
    bottom), not in page space like every other point here.
    """
    area = raw.get("from")
    box: Box = (0.0, 0.0, 0.0, 0.0)
    if area is not None:
        box = (float(area.x0), float(area.y0), float(area.x1), float(area.y1))
    kind = int(raw.get("kind", 0))
    if kind in (1, 4) and named is not None and 0 <= named[0] < page_count:
        return PdfLink(box, LinkAction.GOTO, named[0], named[1])
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


_OUT_OF_MEMORY = ("malloc", "out of memory", "cannot allocate")


def is_out_of_memory(error: BaseException) -> bool:
    """Whether an error says memory ran out (as MuPDF words it, or Python)."""
    text = str(error).lower()
    return isinstance(error, MemoryError) or any(w in text for w in _OUT_OF_MEMORY)


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
        """The page sizes and whatever else of the document could be read."""
        self._check()
        count = int(self._doc.page_count)
        sizes: list[tuple[float, float]] = []
        for number in range(count):
            sizes.append(self._page_size(number, sizes[-1] if sizes else None))
        unreadable: list[str] = []
        outline, left_out = self._outline(count, unreadable)
        try:
            title = str((self._doc.metadata or {}).get("title") or "")
        except Exception:  # PyMuPDF raises any type for a part it cannot read
            title = ""
            unreadable.append("the title")
        try:
            embedded = int(self._doc.embfile_count())
        except Exception:
            embedded = 0
            unreadable.append("the list of embedded files")
        return DocumentInfo(
            tuple(sizes),
            tuple(outline),
            title[:MAX_TITLE_CHARS],
            embedded,
            left_out,
            tuple(unreadable),
        )

    def _page_size(
        self, number: int, before: tuple[float, float] | None
    ) -> tuple[float, float]:
        """A page's size; one that cannot be read takes its neighbour's (or
        Letter's), and drawing it then says why it failed."""
        try:
            rect = self._doc.load_page(number).rect
            return (float(rect.width), float(rect.height))
        except Exception:
            return before or (612.0, 792.0)

    def _outline(
        self, count: int, unreadable: list[str]
    ) -> tuple[list[OutlineEntry], int]:
        """The outline in reading order, walked without recursion.

        ``get_toc`` recurses once per level, so an outline 1,000 levels deep
        raised ``RecursionError``; entries past ``MAX_OUTLINE_ENTRIES`` are
        counted, not kept. An entry whose target cannot be read stays, going
        nowhere; a branch that cannot be followed is left out. Either is
        named in ``unreadable``.
        """
        entries: list[OutlineEntry] = []
        left_out = 0
        try:
            first = self._doc.outline
        except Exception:  # PyMuPDF raises any type for a part it cannot read
            unreadable.append("the outline")
            return entries, 0
        stack: list[tuple[Any, int]] = [(first, 1)]
        broken = targetless = 0
        while stack:
            item, level = stack.pop()
            if not _live(item):
                continue
            if len(entries) >= MAX_OUTLINE_ENTRIES:
                left_out += 1
            else:
                entry = self._outline_entry(item, level, count)
                targetless += not entry.readable
                entries.append(entry)
            # Children are popped first, so they follow their entry.
            for step, depth in (("next", level), ("down", level + 1)):
                try:
                    stack.append((getattr(item, step), depth))
                except Exception:  # that branch is left out, and counted
                    broken += 1
            if left_out > 10 * MAX_OUTLINE_ENTRIES:
                break  # counting a hostile outline has a limit too
        if broken:
            unreadable.append(
                counted(broken, "part of the outline", "parts of the outline")
            )
        if targetless:
            unreadable.append(
                "the targets of "
                + counted(targetless, "outline entry", "outline entries")
            )
        return entries, left_out

    def _outline_entry(self, item: Any, level: int, count: int) -> OutlineEntry:
        try:
            title = str(item.title or " ")[:MAX_TITLE_CHARS]
        except Exception:  # PyMuPDF raises any type for a part it cannot read
            return OutlineEntry(level, "Untitled", -1, None, readable=False)
        try:
            if item.is_external or not item.uri:
                return OutlineEntry(level, title, -1, None)
            page, y = self._target(str(item.uri), count)
        except Exception:
            return OutlineEntry(level, title, -1, None, readable=False)
        return OutlineEntry(level, title, page, y)

    def _target(self, uri: str, count: int) -> tuple[int, float | None]:
        """Where an internal link's URI leads: (page, top), (-1, None) if nowhere.

        ``resolve_link`` reads an explicit destination and a named one alike;
        the ``dest`` of an outline item fails on a named one (PyMuPDF 1.28.2
        asserts a document it was never given), and pdfTeX's hyperref and
        Texinfo name every destination.
        """
        page, _x, y = self._doc.resolve_link(uri)
        page = int(page)
        if not 0 <= page < count:
            return -1, None
        top = float(y)
        return page, (top if math.isfinite(top) and top > 0 else None)

    def render(self, page: int, scale: float) -> Bitmap:
        """Draw ``page`` at ``scale`` pixels per point (clamped), opaque RGB."""
        self._check()
        pymupdf = _pymupdf()
        loaded = self._doc.load_page(page)
        _check_images(loaded)
        scale = clamp_scale(loaded.rect.width, loaded.rect.height, scale)
        matrix = pymupdf.Matrix(scale, scale)
        left_out = False
        try:
            pixmap = loaded.get_pixmap(matrix=matrix, alpha=False)
        except Exception as error:
            # An annotation MuPDF cannot draw must not cost the page: it is
            # drawn again without annotations, and fails only if that fails.
            if is_out_of_memory(error):
                raise
            pixmap = loaded.get_pixmap(matrix=matrix, alpha=False, annots=False)
            left_out = True
        return Bitmap(
            int(pixmap.width),
            int(pixmap.height),
            int(pixmap.stride),
            pixmap.samples,
            left_out,
        )

    def links(self, page: int) -> tuple[PdfLink, ...]:
        return self.read_links(page)[0]

    def read_links(self, page: int) -> tuple[tuple[PdfLink, ...], int]:
        """The page's links and how many of them could not be read (left out)."""
        self._check()
        count = int(self._doc.page_count)
        try:
            raw = self._doc.load_page(page).get_links()
        except Exception:  # PyMuPDF raises any type for a part it cannot read
            # (PyMuPDF 2.0 fails to decode link ids in some encrypted files):
            # the page is still shown, with its links inert.
            return (), 1
        links: list[PdfLink] = []
        for link in raw:
            try:
                judged = self._classify(link, page, count)
            except Exception:  # this link is left out, and counted
                judged = None
            if judged is not None:
                links.append(judged)
        return tuple(links), len(raw) - len(links)

    def _classify(self, raw: dict[str, Any], page: int, count: int) -> PdfLink:
        name = raw.get("nameddest")
        named = None
        if int(raw.get("kind", 0)) in (1, 4) and name:
            named = self._target("#nameddest=" + quote(str(name), safe=""), count)
        return classify_link(raw, page, count, named)

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
