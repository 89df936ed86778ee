"""What a file is, decided in one place: magic bytes first, then the name.

``detect`` is the one door: it takes a file's head (and, for formats whose
telling bytes may lie further in, a bounded reader), the file's name and the
kind a record already holds, and answers with a ``FileType``. The bytes win
whenever they say something: a PNG named ``.csv`` is an image, a text named
``.mp4`` is text. The name only refines what the bytes leave open (which kind
of text), and for binary bytes of no known format it is kept as words only:
nothing is decoded or played on a name's say-so.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.filetype.names import (
    TEXT_KINDS,
    Kind,
    kind_from_name,
    mime_from_name,
    suffix,
)
from app.core.filetype.signatures import (
    HEAD_SIZE,
    NOTEBOOK_MIME,
    OCTET_STREAM,
    TAG_LIMIT,
    ReadAt,
    executable_reason,
    match_signature,
    playlist_refusal,
    sniff_text,
)
from app.core.filetype.text import (
    BOMS,
    SINGLE_BYTE_COMMON,
    Bom,
    find_bom,
    is_textual_mime,
    is_utf8,
    legacy_encoding,
    looks_binary,
)

__all__ = [
    "BOMS",
    "EMPTY_MIME",
    "HEAD_SIZE",
    "NOTEBOOK_MIME",
    "OCTET_STREAM",
    "PDF_MIME",
    "SINGLE_BYTE_COMMON",
    "SVG_MIME",
    "TAG_LIMIT",
    "TEXT_KINDS",
    "TEXT_PLAIN",
    "Bom",
    "FileType",
    "Kind",
    "ReadAt",
    "detect",
    "executable_reason",
    "find_bom",
    "is_svg",
    "is_textual_mime",
    "is_utf8",
    "kind_from_name",
    "legacy_encoding",
    "looks_binary",
    "mime_from_name",
    "playlist_refusal",
    "suffix",
]

EMPTY_MIME = "inode/x-empty"
TEXT_PLAIN = "text/plain"
SVG_MIME = "image/svg+xml"
PDF_MIME = "application/pdf"

_FAMILIES: tuple[tuple[str, Kind], ...] = (
    ("image/", Kind.IMAGE),
    ("audio/", Kind.AUDIO),
    ("video/", Kind.VIDEO),
    (PDF_MIME, Kind.PDF),
)


@dataclass(frozen=True)
class FileType:
    """What a file is: its MIME type, words for people, its kind, and text or not.

    ``kind`` is the family the previewers pick from: the bytes' family when
    they name a binary format, the recorded (or named) kind when the bytes are
    text of that kind, ``TEXT`` for text with a binary name, ``OTHER`` else.
    """

    mime: str
    description: str
    kind: Kind
    text: bool

    @property
    def is_svg(self) -> bool:
        return self.mime == SVG_MIME

    @property
    def is_notebook(self) -> bool:
        """A Jupyter notebook, by its bytes or its ``.ipynb`` name (JSON text)."""
        return self.mime == NOTEBOOK_MIME


def _family(mime: str) -> Kind:
    for prefix, kind in _FAMILIES:
        if mime.startswith(prefix):
            return kind
    return Kind.OTHER


def _text_kind(named: Kind, mime: str) -> Kind:
    if named in TEXT_KINDS:
        return named
    return Kind.IMAGE if mime == SVG_MIME and named is Kind.IMAGE else Kind.TEXT


def detect(
    head: bytes,
    name: str = "",
    *,
    kind: Kind | None = None,
    read: ReadAt | None = None,
) -> FileType:
    """The type of a file whose first bytes are ``head`` (at most ``HEAD_SIZE``).

    ``kind`` is the kind a trusted record holds (``None``: from ``name``).
    ``read(size, offset)`` reads the same opened file; it lets the formats
    that hide behind tags (MP3 behind ID3) be judged by what follows them,
    at most ``TAG_LIMIT`` bytes in. Without it nothing past the head is read.
    """
    named = kind if kind is not None else kind_from_name(name)
    text = not looks_binary(head)
    if text and named is Kind.JSON and not _utf8_or_marked(head):
        # JSON is UTF-8 (or marked otherwise by a byte order mark): a legacy
        # encoding's guess does not make its invalid bytes text.
        text = False
    if not head:
        return FileType(EMPTY_MIME, "empty file", _text_kind(named, EMPTY_MIME), True)
    found = match_signature(head, read)
    if found is not None:
        return FileType(found.mime, found.description, _family(found.mime), text)
    by_name = mime_from_name(name)
    if not text and named is Kind.JSON:
        # JSON's grammar is the whole test: bytes that are not text are shown
        # as the parse error they cause (invalid UTF-8, a NUL), never decoded.
        mime = by_name or "application/json"
        return FileType(mime, "JSON file with bytes that are not text", named, False)
    if not text:
        if by_name is not None and not is_textual_mime(by_name):
            # The bytes name no format: the name's word is kept, nothing more.
            return FileType(OCTET_STREAM, f"binary file ({by_name})", Kind.OTHER, False)
        return FileType(OCTET_STREAM, "unknown binary", Kind.OTHER, False)
    sniffed = sniff_text(head, read)
    if sniffed is not None:
        kind_now = _text_kind(named, sniffed.mime)
        return FileType(sniffed.mime, sniffed.description, kind_now, True)
    if by_name is not None and is_textual_mime(by_name):
        return FileType(by_name, f"text ({by_name})", _text_kind(named, by_name), True)
    return FileType(TEXT_PLAIN, "plain text", _text_kind(named, TEXT_PLAIN), True)


def _utf8_or_marked(head: bytes) -> bool:
    """Whether ``head`` is UTF-8 (a sequence cut at its end allowed) or has a BOM."""
    return find_bom(head) is not None or is_utf8(head)


def is_svg(name: str, head: bytes | None = None) -> bool:
    """Whether a file is SVG: by its bytes when ``head`` is given, else its name.

    Untrusted SVG is never decoded by an image library (QtSvg loads the files
    it names), so callers ask this before they would.
    """
    if head is not None:
        return detect(head, name).is_svg
    return mime_from_name(name) == SVG_MIME
