"""The ordered table of magic-byte signatures, and the few checks beside it.

Specific before generic: ZIP before anything that might share a prefix, and
every binary signature before the text sniffing that ends the decision. A new
format is one more entry in ``SIGNATURES``, in the right place.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from app.core.filetype.text import find_bom, mostly_printable

HEAD_SIZE = 4096
"""How many leading bytes a file's type is decided from (more only behind tags)."""

OCTET_STREAM = "application/octet-stream"

ReadAt = Callable[[int, int], bytes]
"""``read(size, offset)``: bytes of the opened file, as ``VerifiedFile.read``."""


@dataclass(frozen=True)
class Match:
    """What a signature says: a MIME type and the words a person would use for it."""

    mime: str
    description: str


Check = Callable[[bytes, "ReadAt | None"], "Match | None"]


def _prefix(signature: bytes, mime: str, words: str, offset: int = 0) -> Check:
    found = Match(mime, words)

    def check(head: bytes, _read: ReadAt | None) -> Match | None:
        return found if head[offset : offset + len(signature)] == signature else None

    return check


def _zip(head: bytes, _read: ReadAt | None) -> Match | None:
    if head[:4] not in (b"PK\x03\x04", b"PK\x05\x06"):
        return None
    # OOXML and ODF are ZIP containers; their first entries say which kind.
    if head[30:38] == b"mimetype":
        odf = head[38:120]
        for marker, words in (
            (b"opendocument.text", "OpenDocument text (.odt, ZIP container)"),
            (b"opendocument.spreadsheet", "OpenDocument spreadsheet (.ods, ZIP)"),
            (b"opendocument.presentation", "OpenDocument slides (.odp, ZIP)"),
            (b"application/epub+zip", "EPUB e-book (ZIP container)"),
        ):
            if marker in odf:
                mime = odf.split(b"PK", 1)[0].decode("ascii", "replace")
                return Match(mime, words)
    for folder, mime, words in (
        (
            b"word/",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "Word document (.docx, ZIP container)",
        ),
        (
            b"xl/",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "Excel workbook (.xlsx, ZIP container)",
        ),
        (
            b"ppt/",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            "PowerPoint presentation (.pptx, ZIP container)",
        ),
    ):
        if b"[Content_Types].xml" in head and folder in head:
            return Match(mime, words)
    return Match("application/zip", "ZIP archive")


def _riff(head: bytes, _read: ReadAt | None) -> Match | None:
    if head[:4] != b"RIFF":
        return None
    form = head[8:12]
    if form == b"WEBP":
        return Match("image/webp", "WebP image")
    if form == b"WAVE":
        return Match("audio/wav", "WAV audio")
    if form == b"AVI ":
        return Match("video/x-msvideo", "AVI video")
    return None


# The sizes of the BMP info headers Windows and OS/2 ever wrote; two letters
# alone ("BM") would make a text that starts with them an image.
_BMP_INFO_SIZES = frozenset({12, 16, 40, 52, 56, 64, 108, 124})


def _bmp(head: bytes, _read: ReadAt | None) -> Match | None:
    if head[:2] != b"BM" or len(head) < 18:
        return None
    if int.from_bytes(head[14:18], "little") not in _BMP_INFO_SIZES:
        return None
    return Match("image/bmp", "BMP image")


def _tiff(head: bytes, _read: ReadAt | None) -> Match | None:
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return Match("image/tiff", "TIFF image")
    return None


def _ftyp(head: bytes, _read: ReadAt | None) -> Match | None:
    if head[4:8] != b"ftyp":
        return None
    brand = head[8:12]
    if brand in (b"M4A ", b"M4B "):
        return Match("audio/mp4", "MPEG-4 audio")
    if brand in (b"qt  ",):
        return Match("video/quicktime", "QuickTime video")
    if brand in (b"avif", b"avis"):
        return Match("image/avif", "AVIF image")
    if brand in (b"heic", b"heix", b"mif1"):
        return Match("image/heic", "HEIF image")
    return Match("video/mp4", "MPEG-4 video")


def _ebml(head: bytes, _read: ReadAt | None) -> Match | None:
    if head[:4] != b"\x1a\x45\xdf\xa3":
        return None
    if b"webm" in head[:64]:
        return Match("video/webm", "WebM video")
    return Match("video/x-matroska", "Matroska video")


def _ogg(head: bytes, _read: ReadAt | None) -> Match | None:
    if head[:4] != b"OggS":
        return None
    if b"theora" in head[:128].lower():
        return Match("video/ogg", "Ogg video")
    return Match("audio/ogg", "Ogg audio")


# -- MP3 and the ID3 tags in front of it ------------------------------------------

# An ID3v2 tag header: "ID3", major version, revision, flags, then the tag's
# size in four bytes of seven bits each, counting neither this header nor the
# footer that flag 0x10 adds. FFmpeg skips such tags before it probes what
# follows, so what follows is what must be checked.
_ID3_HEADER_SIZE = 10
_ID3_FOOTER_FLAG = 0x10
TAG_LIMIT = 16 << 20
"""Tags are followed this far into a file (cover art makes them large); no further."""
_MAX_TAGS = 64
_MP3 = Match("audio/mpeg", "MP3 audio")
_NO_AUDIO = Match(OCTET_STREAM, "ID3 tag with no audio after it")
_TOO_LARGE = Match(OCTET_STREAM, "ID3 tags larger than 16 MiB; what follows is unseen")
_TOO_MANY = Match(OCTET_STREAM, "more ID3 tags in a row than any audio file has")
_NOT_AUDIO = Match(OCTET_STREAM, "playlist or text behind an ID3 tag, not audio")


def _is_mp3_frame(head: bytes) -> bool:
    # Eleven sync bits, an MPEG version that exists, and Layer III.
    if len(head) < 2 or head[0] != 0xFF or head[1] & 0xE6 != 0xE2:
        return False
    return head[1] & 0x18 != 0x08


def _tags_end(head: bytes, read: ReadAt | None) -> int | Match | None:
    """Where the ID3v2 tags that open the file end, or the verdict on them.

    Tags may follow one another; each is skipped by the size it claims, and
    read through ``read`` when it lies past the head. ``None`` when a tag runs
    past the head and there is no ``read``: nothing unseen is guessed at.
    """
    end = 0
    for _tag in range(_MAX_TAGS):
        if end + _ID3_HEADER_SIZE <= len(head):
            header = head[end : end + _ID3_HEADER_SIZE]
        elif read is not None:
            header = read(_ID3_HEADER_SIZE, end)
        else:
            return end if head[end : end + 3] != b"ID3" else None
        if header[:3] != b"ID3":
            return end
        if len(header) < _ID3_HEADER_SIZE:
            return _NO_AUDIO
        flags, size_bytes = header[5], header[6:]
        if header[3] == 0xFF or header[4] == 0xFF or any(b & 0x80 for b in size_bytes):
            return end  # not a tag header (version, revision or size), as FFmpeg judges
        size = 0
        for byte in size_bytes:
            size = size << 7 | byte
        footer = _ID3_HEADER_SIZE if flags & _ID3_FOOTER_FLAG else 0
        end += _ID3_HEADER_SIZE + size + footer
        if end > TAG_LIMIT:
            return _TOO_LARGE if read is not None else None
    return _TOO_MANY


def _mp3(head: bytes, read: ReadAt | None) -> Match | None:
    if head[:3] != b"ID3":
        return _MP3 if _is_mp3_frame(head) else None
    end = _tags_end(head, read)
    if isinstance(end, Match):
        return end
    if end is None or (read is None and end >= len(head)):
        if len(head) < HEAD_SIZE:
            # A short head is the whole file: the tags fill it or claim more
            # than it holds, and no audio follows them.
            return _NO_AUDIO
        # What follows lies past the head and cannot be read here: taken for
        # MP3, as FFmpeg would, whose protocol whitelist still applies.
        return _MP3
    if read is None or end + HEAD_SIZE <= len(head):
        following = head[end : end + HEAD_SIZE]
    else:
        following = read(HEAD_SIZE, end)  # a bounded window behind the tags
    if not following:
        return _NO_AUDIO
    if playlist_refusal(following) is not None:
        # A playlist or text list behind a tag would reach FFmpeg's playlist
        # demuxers as "MP3"; it is no more audio than without the tag.
        return _NOT_AUDIO
    return _MP3


SIGNATURES: tuple[Check, ...] = (
    _prefix(b"\x89PNG\r\n\x1a\n", "image/png", "PNG image"),
    _prefix(b"\xff\xd8\xff", "image/jpeg", "JPEG image"),
    _prefix(b"GIF87a", "image/gif", "GIF image"),
    _prefix(b"GIF89a", "image/gif", "GIF image"),
    _riff,
    _bmp,
    _prefix(b"\x00\x00\x01\x00", "image/vnd.microsoft.icon", "Windows icon"),
    _tiff,
    _prefix(b"%PDF-", "application/pdf", "PDF"),
    _zip,
    _prefix(b"\x7fELF", "application/x-executable", "ELF executable"),
    _prefix(
        b"MZ", "application/vnd.microsoft.portable-executable", "Windows executable"
    ),
    _prefix(b"\xcf\xfa\xed\xfe", "application/x-mach-binary", "Mach-O executable"),
    _prefix(b"\xce\xfa\xed\xfe", "application/x-mach-binary", "Mach-O executable"),
    _prefix(b"\xfe\xed\xfa\xcf", "application/x-mach-binary", "Mach-O executable"),
    _prefix(b"\xfe\xed\xfa\xce", "application/x-mach-binary", "Mach-O executable"),
    _prefix(
        b"\xca\xfe\xba\xbe", "application/x-mach-binary", "Mach-O universal binary"
    ),
    _prefix(b"\x1f\x8b", "application/gzip", "gzip archive"),
    _prefix(b"BZh", "application/x-bzip2", "bzip2 archive"),
    _prefix(b"\xfd7zXZ\x00", "application/x-xz", "xz archive"),
    _prefix(b"(\xb5/\xfd", "application/zstd", "Zstandard archive"),
    _prefix(b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed", "7-Zip archive"),
    _prefix(b"Rar!\x1a\x07", "application/vnd.rar", "RAR archive"),
    _prefix(b"ustar", "application/x-tar", "tar archive", offset=257),
    _prefix(b"SQLite format 3\x00", "application/vnd.sqlite3", "SQLite database"),
    _prefix(
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "application/x-ole-storage",
        "Microsoft Office 97-2003 document (OLE container)",
    ),
    _prefix(b"fLaC", "audio/flac", "FLAC audio"),
    _ogg,
    _mp3,
    _ftyp,
    _ebml,
    _prefix(b"wOFF", "font/woff", "WOFF font"),
    _prefix(b"wOF2", "font/woff2", "WOFF2 font"),
)
"""Binary formats by their first bytes, checked in order; the first match wins."""


def match_signature(head: bytes, read: ReadAt | None = None) -> Match | None:
    """The first signature in ``SIGNATURES`` that ``head`` carries, or None."""
    for check in SIGNATURES:
        found = check(head, read)
        if found is not None:
            return found
    return None


# What may stand before an XML document's root: declarations, processing
# instructions, comments and a DOCTYPE (with an internal subset), and spaces.
_PROLOG_PART = re.compile(
    rb"\s*(?:<\?.*?\?>|<!--.*?-->|<!doctype\b(?:[^\[>]|\[.*?\])*>)",
    re.DOTALL | re.IGNORECASE,
)
_SVG_ROOT = re.compile(rb"\s*<(?:[\w.-]+:)?svg[\s>/]", re.IGNORECASE)
SVG_PROLOG_LIMIT = 64 * 1024
"""How far into a text file the root element of an SVG is looked for."""


def _as_utf8(head: bytes) -> bytes:
    """The head as UTF-8 bytes: a UTF-16 or UTF-32 byte order mark is decoded."""
    bom = find_bom(head)
    if bom is None:
        return head
    body = head[len(bom.mark) :]
    if bom.unit > 1:
        body = body[: len(body) - len(body) % bom.unit]
        return body.decode(bom.codec, "replace").encode("utf-8")
    return body


def _svg_root(head: bytes) -> bool | None:
    """Whether the root element is ``svg``; None if the prolog runs past the head."""
    text = _as_utf8(head)
    position = 0
    while True:
        part = _PROLOG_PART.match(text, position)
        if part is None:
            break
        position = part.end()
    rest = text[position:]
    if _SVG_ROOT.match(rest):
        return True
    if rest.lstrip().startswith(b"<") and b">" not in rest:
        return None  # a comment or DOCTYPE not closed within the head
    return False


# A Jupyter notebook is a JSON object. Writers that sort keys (nbformat, so
# Jupyter and VS Code) put "cells" first and "nbformat" last, after every
# cell; others (Colab, the version 3 format) name "nbformat" near the top.
NOTEBOOK_MIME = "application/x-ipynb+json"
_NOTEBOOK_FORMAT = re.compile(rb'"nbformat"\s*:\s*[0-9]')
_NOTEBOOK_CELLS = re.compile(rb'\{\s*"cells"\s*:\s*\[\s*\{')
_NOTEBOOK_CELL_TYPE = re.compile(rb'"cell_type"\s*:\s*"')
NOTEBOOK_SNIFF_LIMIT = 64 * 1024
"""How far into a file that opens with a list of cells a cell type is looked for
(a first cell's attached images come before its type)."""


def _is_notebook(text: bytes, head: bytes, read: ReadAt | None) -> bool:
    """Whether a text that starts with ``{`` reads as the head of a notebook."""
    if _NOTEBOOK_FORMAT.search(text):
        return True
    if _NOTEBOOK_CELLS.match(text) is None:
        return False
    if _NOTEBOOK_CELL_TYPE.search(text):
        return True
    if read is None or len(head) < HEAD_SIZE:
        return False
    return (
        _NOTEBOOK_CELL_TYPE.search(_as_utf8(read(NOTEBOOK_SNIFF_LIMIT, 0))) is not None
    )


def sniff_text(head: bytes, read: ReadAt | None = None) -> Match | None:
    """HTML, SVG or a Jupyter notebook recognised in a text head, or None.

    SVG is told by its root element, after whatever prolog comes first (a
    DOCTYPE, comments, a UTF-16 byte order mark); a prolog longer than the
    head is read on through ``read``, up to ``SVG_PROLOG_LIMIT`` bytes. A
    notebook is a JSON object that names its format version, or whose first
    member is a list of cells.
    """
    text = _as_utf8(head).lstrip()
    if text.startswith(b"{"):
        if _is_notebook(text, head, read):
            return Match(NOTEBOOK_MIME, "Jupyter notebook (JSON)")
        return None
    stripped = text[:256].lower()
    if stripped.startswith((b"<!doctype html", b"<html")):
        return Match("text/html", "HTML document")
    if not stripped.startswith(b"<"):
        return None
    root = _svg_root(head)
    if root is None and read is not None and len(head) >= HEAD_SIZE:
        root = _svg_root(read(SVG_PROLOG_LIMIT, 0))
    if root:
        return Match("image/svg+xml", "SVG image (XML text)")
    return None


# -- what must never reach another program -----------------------------------------

# What the first bytes of an executable or a script look like.
_EXECUTABLES: tuple[tuple[bytes, str], ...] = (
    (b"\x7fELF", "an executable program (ELF)"),
    (b"MZ", "a Windows program"),
    (b"\xfe\xed\xfa\xce", "a macOS program"),
    (b"\xfe\xed\xfa\xcf", "a macOS program"),
    (b"\xce\xfa\xed\xfe", "a macOS program"),
    (b"\xcf\xfa\xed\xfe", "a macOS program"),
    (b"\xca\xfe\xba\xbe", "a macOS program or Java class"),
    (b"#!", "a script"),
)


def executable_reason(head: bytes) -> str | None:
    """What ``head`` (a file's first bytes) says it is when it can run, or None."""
    for magic, what in _EXECUTABLES:
        if head.startswith(magic):
            return what
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    lines = [line.strip() for line in text.splitlines()]
    first = next((line for line in lines if line and not line.startswith(b"#")), b"")
    if first == b"[Desktop Entry]":
        return "a desktop launcher"
    # A zip that carries a Java manifest is a .jar under any name.
    if head.startswith(b"PK\x03\x04") and b"META-INF/MANIFEST.MF" in head:
        return "a Java program"
    return None


# Containers that name other files or URLs for the demuxer to open: a media
# player must never follow them, whatever the file is called.
_PLAYLISTS: tuple[tuple[bytes, str], ...] = (
    (b"#extm3u", "an M3U/HLS playlist"),
    (b"ffconcat", "an FFmpeg concat list"),
    (b"[playlist]", "a PLS playlist"),
    (b"<?xml", "an XML document (playlists such as SMIL, XSPF or ASX are XML)"),
    (b"<smil", "a SMIL playlist"),
    (b"<asx", "an ASX playlist"),
    (b"<playlist", "an XSPF playlist"),
    (b"v=0", "an SDP session description"),
)


def playlist_refusal(head: bytes) -> str | None:
    """Why these leading bytes must not reach a media player, or ``None``.

    Playlists and session descriptions are refused by their content, never by
    their name; so is anything that reads as text, since real media is binary.
    """
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:64].lower()
    for marker, words in _PLAYLISTS:
        if stripped.startswith(marker):
            return f"It is {words}, not media; playlists are never played."
    if mostly_printable(head):
        return "It is text, not media."
    return None
