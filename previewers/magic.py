"""Tell a file's type from its first bytes: an ordered list of magic checks."""

from __future__ import annotations

import codecs
import mimetypes
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from app.core.media_facts import playlist_refusal

HEAD_SIZE = 4096
"""How many leading bytes a preview source carries for sniffing."""

EMPTY_MIME = "inode/x-empty"
OCTET_STREAM = "application/octet-stream"
TEXT_PLAIN = "text/plain"

# Byte order marks, longest first: the UTF-32 LE mark starts with the UTF-16 LE one.
BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# A head whose share of suspicious bytes exceeds this is binary. Generous enough
# for Latin-1 prose shown with replacement characters, far below real binaries.
BINARY_SHARE = 0.10

_ALLOWED_CONTROLS = frozenset(b"\t\n\r\f\b\x1b\x0b")


@dataclass(frozen=True)
class MagicType:
    """A detected type: its MIME type and the words a person would use for it."""

    mime: str
    description: str


def _zip_type(head: bytes) -> MagicType:
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
                return MagicType(mime, words)
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
            return MagicType(mime, words)
    return MagicType("application/zip", "ZIP archive")


def _riff_type(head: bytes) -> MagicType | None:
    form = head[8:12]
    if form == b"WEBP":
        return MagicType("image/webp", "WebP image")
    if form == b"WAVE":
        return MagicType("audio/wav", "WAV audio")
    if form == b"AVI ":
        return MagicType("video/x-msvideo", "AVI video")
    return None


def _ftyp_type(head: bytes) -> MagicType | None:
    if head[4:8] != b"ftyp":
        return None
    brand = head[8:12]
    if brand in (b"M4A ", b"M4B "):
        return MagicType("audio/mp4", "MPEG-4 audio")
    if brand in (b"qt  ",):
        return MagicType("video/quicktime", "QuickTime video")
    if brand in (b"avif", b"avis"):
        return MagicType("image/avif", "AVIF image")
    if brand in (b"heic", b"heix", b"mif1"):
        return MagicType("image/heic", "HEIF image")
    return MagicType("video/mp4", "MPEG-4 video")


def _prefix(
    signature: bytes, mime: str, words: str, offset: int = 0
) -> Callable[[bytes], MagicType | None]:
    found = MagicType(mime, words)

    def check(head: bytes) -> MagicType | None:
        return found if head[offset : offset + len(signature)] == signature else None

    return check


def _zip_check(head: bytes) -> MagicType | None:
    return _zip_type(head) if head[:4] in (b"PK\x03\x04", b"PK\x05\x06") else None


def _riff_check(head: bytes) -> MagicType | None:
    return _riff_type(head) if head[:4] == b"RIFF" else None


def _ebml_check(head: bytes) -> MagicType | None:
    if head[:4] != b"\x1a\x45\xdf\xa3":
        return None
    if b"webm" in head[:64]:
        return MagicType("video/webm", "WebM video")
    return MagicType("video/x-matroska", "Matroska video")


def _ogg_check(head: bytes) -> MagicType | None:
    if head[:4] != b"OggS":
        return None
    if b"theora" in head[:128].lower():
        return MagicType("video/ogg", "Ogg video")
    return MagicType("audio/ogg", "Ogg audio")


# An ID3v2 tag header: "ID3", major version, revision, flags, then the tag's
# size in four bytes of seven bits each, counting neither this header nor the
# footer that flag 0x10 adds. FFmpeg skips such tags before it probes what
# follows, so what follows is what must be checked.
_ID3_HEADER_SIZE = 10
_ID3_FOOTER_FLAG = 0x10
_MP3 = MagicType("audio/mpeg", "MP3 audio")


def _id3v2_end(head: bytes) -> int | None:
    """Where the ID3v2 tags that open ``head`` end; 0 when there are none.

    Tags may follow one another; each is skipped by the size it claims.
    ``None`` when a tag runs past the head: nothing beyond the head is ever
    looked at, so a huge claimed size costs nothing.
    """
    end = 0
    while head[end : end + 3] == b"ID3":
        header = head[end : end + _ID3_HEADER_SIZE]
        if len(header) < _ID3_HEADER_SIZE:
            return None
        flags, size_bytes = header[5], header[6:]
        if header[3] == 0xFF or header[4] == 0xFF or any(b & 0x80 for b in size_bytes):
            break  # not a tag header (version, revision or size), as FFmpeg judges
        size = 0
        for byte in size_bytes:
            size = size << 7 | byte
        footer = _ID3_HEADER_SIZE if flags & _ID3_FOOTER_FLAG else 0
        end += _ID3_HEADER_SIZE + size + footer
        if end > len(head):
            return None
    return end


def _mp3_check(head: bytes) -> MagicType | None:
    if head[:3] != b"ID3":
        if len(head) > 1 and head[0] == 0xFF and head[1] in b"\xfb\xf3\xf2":
            return _MP3
        return None
    end = _id3v2_end(head)
    if end is None or end >= len(head):
        if len(head) < HEAD_SIZE:
            # A short head is the whole file: the tags fill it or claim more
            # than it holds, and no audio follows them.
            return MagicType(OCTET_STREAM, "ID3 tag with no audio after it")
        # What follows the tags lies past the head (cover art makes tags large):
        # taken for MP3, as FFmpeg would, whose protocol whitelist still applies.
        return _MP3
    if playlist_refusal(head[end:]) is not None:
        # A playlist or text list behind a tag would reach FFmpeg's playlist
        # demuxers as "MP3"; it is no more audio than without the tag.
        return MagicType(OCTET_STREAM, "playlist or text behind an ID3 tag, not audio")
    return _MP3


def _tiff_check(head: bytes) -> MagicType | None:
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return MagicType("image/tiff", "TIFF image")
    return None


# Specific before generic: ZIP before anything that might share a prefix, and
# every binary signature before the text sniffing that ends the list.
CHECKS: tuple[Callable[[bytes], MagicType | None], ...] = (
    _prefix(b"\x89PNG\r\n\x1a\n", "image/png", "PNG image"),
    _prefix(b"\xff\xd8\xff", "image/jpeg", "JPEG image"),
    _prefix(b"GIF87a", "image/gif", "GIF image"),
    _prefix(b"GIF89a", "image/gif", "GIF image"),
    _riff_check,
    _prefix(b"BM", "image/bmp", "BMP image"),
    _prefix(b"\x00\x00\x01\x00", "image/vnd.microsoft.icon", "Windows icon"),
    _tiff_check,
    _prefix(b"%PDF-", "application/pdf", "PDF"),
    _zip_check,
    _prefix(b"\x7fELF", "application/x-executable", "ELF executable"),
    _prefix(
        b"MZ", "application/vnd.microsoft.portable-executable", "Windows executable"
    ),
    _prefix(b"\xcf\xfa\xed\xfe", "application/x-mach-binary", "Mach-O executable"),
    _prefix(b"\xfe\xed\xfa\xcf", "application/x-mach-binary", "Mach-O executable"),
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
    _ogg_check,
    _mp3_check,
    _ftyp_type,
    _ebml_check,
    _prefix(b"wOFF", "font/woff", "WOFF font"),
    _prefix(b"wOF2", "font/woff2", "WOFF2 font"),
)


def bom_encoding(head: bytes) -> tuple[str, int] | None:
    """The encoding a byte order mark names and the mark's length, if any."""
    for mark, encoding in BOMS:
        if head.startswith(mark):
            return encoding, len(mark)
    return None


def looks_binary(head: bytes) -> bool:
    """Whether the head is mostly not text: NUL bytes, or invalid UTF-8 and controls.

    A byte order mark makes it text (UTF-16 and UTF-32 are full of NUL bytes).
    """
    if not head or bom_encoding(head) is not None:
        return False
    if b"\x00" in head:
        return True
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    # final=False: a character cut off by the end of the head is not invalid.
    text = decoder.decode(head, final=False)
    suspicious = text.count("\ufffd") + sum(
        1 for char in text if ord(char) < 32 and ord(char) not in _ALLOWED_CONTROLS
    )
    return suspicious > BINARY_SHARE * len(head)


_TEXTUAL_APPLICATION = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-sh",
        "application/toml",
        "application/yaml",
        "application/x-yaml",
        "application/sql",
        "application/x-tex",
        "application/x-python-code",
    }
)


def is_textual_mime(mime: str) -> bool:
    """Whether a MIME type names something people read as text."""
    return mime.startswith("text/") or mime in _TEXTUAL_APPLICATION


def mime_from_name(name: str) -> str | None:
    """What the file name alone suggests, or ``None``."""
    guessed, _encoding = mimetypes.guess_type(PurePath(name).name, strict=False)
    return guessed


def _sniff_text(head: bytes) -> MagicType | None:
    stripped = head.lstrip()[:256].lower()
    if stripped.startswith((b"<!doctype html", b"<html")):
        return MagicType("text/html", "HTML document")
    if stripped.startswith(b"<svg") or (
        stripped.startswith(b"<?xml") and b"<svg" in head[:1024].lower()
    ):
        return MagicType("image/svg+xml", "SVG image (XML text)")
    return None


def detect(head: bytes, name: str) -> MagicType:
    """Magic bytes first, then the name; a text head never gets a binary type."""
    if not head:
        return MagicType(EMPTY_MIME, "empty file")
    for check in CHECKS:
        found = check(head)
        if found is not None:
            return found
    by_name = mime_from_name(name)
    if looks_binary(head):
        if by_name is not None and not is_textual_mime(by_name):
            return MagicType(by_name, f"binary file ({by_name})")
        return MagicType(OCTET_STREAM, "unknown binary")
    sniffed = _sniff_text(head)
    if sniffed is not None:
        return sniffed
    if by_name is not None and is_textual_mime(by_name):
        return MagicType(by_name, f"text ({by_name})")
    return MagicType(TEXT_PLAIN, "plain text")


def sniff_mime(head: bytes, name: str) -> str:
    """The MIME type for a file: magic bytes first, then the name."""
    return detect(head, name).mime


def describe(head: bytes, name: str) -> str:
    """The type in words, e.g. "Word document (.docx, ZIP container)"."""
    return detect(head, name).description
