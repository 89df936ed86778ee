"""Whether bytes are text: the one binary test, the one table of byte order marks."""

from __future__ import annotations

import codecs
import contextlib
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from app.core.filetype.alphabets import implausible_share

if TYPE_CHECKING:
    from charset_normalizer.models import CharsetMatch


class Bom(NamedTuple):
    """A byte order mark, the codec it names and that codec's code unit in bytes."""

    mark: bytes
    codec: str
    unit: int


# Longest first: the UTF-32 LE mark starts with the UTF-16 LE one.
BOMS: tuple[Bom, ...] = (
    Bom(codecs.BOM_UTF32_LE, "utf-32-le", 4),
    Bom(codecs.BOM_UTF32_BE, "utf-32-be", 4),
    Bom(codecs.BOM_UTF8, "utf-8", 1),
    Bom(codecs.BOM_UTF16_LE, "utf-16-le", 2),
    Bom(codecs.BOM_UTF16_BE, "utf-16-be", 2),
)

# A head whose share of suspicious bytes exceeds this is binary. Generous enough
# for Latin-1 prose shown with replacement characters, far below real binaries.
BINARY_SHARE = 0.10

# Controls that ordinary text carries: tab, line feed, vertical tab, form feed,
# carriage return, backspace and escape (coloured logs).
_TEXT_CONTROLS = frozenset(b"\t\n\x0b\f\r\b\x1b")

_TEXTUAL_APPLICATION = frozenset(
    {
        "application/json",
        "application/jsonl",
        "application/x-ipynb+json",
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


def find_bom(head: bytes) -> Bom | None:
    """The byte order mark ``head`` starts with, if any."""
    for bom in BOMS:
        if head.startswith(bom.mark):
            return bom
    return None


# How much of a head the legacy-encoding detector reads: enough for a guess.
LEGACY_SAMPLE = 16 * 1024
SINGLE_BYTE_COMMON = (
    "cp1252",
    "latin_1",
    "iso8859_15",
    "cp1250",
    "iso8859_2",
    "cp1251",
    "koi8_r",
    "koi8_u",
    "iso8859_5",
    "cp866",
    "cp1253",
    "iso8859_7",
    "cp1254",
    "iso8859_9",
    "cp1257",
    "iso8859_13",
    "cp1255",
    "cp1256",
    "cp874",
    "mac_roman",
    "cp437",
)
"""The single-byte encodings people still meet, most common first (Western)."""
_COMMON_RANK = {codec: rank for rank, codec in enumerate(SINGLE_BYTE_COMMON)}


def is_utf8(head: bytes) -> bool:
    """Whether ``head`` is valid UTF-8, a character cut off at its end allowed."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return False
    return True


@cache
def _single_byte(codec: str) -> bool:
    """Whether ``codec`` maps each byte to one character (so any cut is safe)."""
    try:
        return len(bytes(range(256)).decode(codec, "replace")) == 256
    except LookupError:
        return False


def legacy_encoding(head: bytes) -> str | None:
    """The single-byte encoding (``cp1252``, ``koi8_r``, …) of a non-UTF-8 text.

    ``None`` for UTF-8, a byte order mark, NUL bytes or no convincing guess.
    The detector (charset-normalizer) offers the decodings it finds readable;
    the likeliest is taken (``_likelihood``), and of the code pages that give
    the same text, the most common (Windows-1252 for Latin-1 text).
    Multi-byte legacy encodings are not offered: pages of a long file are cut
    at any byte, which only a single-byte encoding survives.
    """
    sample = head[:LEGACY_SAMPLE]
    if not sample or b"\x00" in sample or find_bom(sample) or is_utf8(sample):
        return None
    from charset_normalizer import from_bytes

    matches = [m for m in from_bytes(sample) if _single_byte(m.encoding)]
    if not matches:
        # The detector stops at its first clean reading, which for a short text
        # can be a multi-byte one: ask again among the common single-byte ones.
        matches = list(from_bytes(sample, cp_isolation=list(SINGLE_BYTE_COMMON)))
    if not matches:
        return None
    best = min(matches, key=_likelihood)
    return min(_names(best), key=_commonness)


def _names(match: CharsetMatch) -> list[str]:
    """The codecs that decode a match's bytes to the same text."""
    return [str(match.encoding), *match.could_be_from_charset]


def _commonness(codec: str) -> int:
    return _COMMON_RANK.get(codec, len(_COMMON_RANK))


def _likelihood(match: CharsetMatch) -> tuple[float, float, bool, float, int]:
    """Lower is likelier: implausible letters, then the detector's scores.

    Letters no one language writes together come first: where two code pages
    decode a text equally cleanly, only they tell which one is right. Then
    the detector's mess ("chaos"), then whether the code page is one people
    still meet (a rare one, such as HP Roman-8, wins no near-tie), then its
    coherence with the language it found, then how common the code page is.
    Scores are rounded to two places, so noise in the last digits breaks no tie.
    """
    common = min(_commonness(name) for name in _names(match))
    return (
        round(implausible_share(str(match)), 2),
        round(match.chaos, 2),
        common == len(_COMMON_RANK),
        -round(match.coherence, 2),
        common,
    )


def prepare_legacy_detection() -> None:
    """Load the detector and the codecs it tries, for a worker to call early.

    The first guess in a process imports charset-normalizer and the codec
    modules it tries (about 100 ms); opening a file must not be what pays it.
    """
    from charset_normalizer.constant import IANA_SUPPORTED

    for name in IANA_SUPPORTED:
        with contextlib.suppress(LookupError):
            codecs.lookup(name)
    legacy_encoding("Prêt à l'emploi, déjà vu.".encode("cp1252"))
    legacy_encoding("Привет, мир".encode("cp1251"))


def looks_binary(head: bytes) -> bool:
    """Whether a file's head is mostly not text: NUL bytes, or many invalid bytes.

    A byte order mark makes it text (UTF-16 and UTF-32 are full of NUL bytes);
    so does an empty head, and so do bytes that read as a single-byte legacy
    encoding (a Latin-1 note is text, however short).
    """
    if not head or find_bom(head) is not None:
        return False
    if b"\x00" in head:
        return True
    # final=False: a character cut off by the end of the head is not invalid.
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(head, final=False)
    controls = sum(
        1 for char in text if ord(char) < 32 and ord(char) not in _TEXT_CONTROLS
    )
    if controls + text.count("\ufffd") <= BINARY_SHARE * len(head):
        return False
    return controls > BINARY_SHARE * len(head) or legacy_encoding(head) is None


def is_textual_mime(mime: str) -> bool:
    """Whether a MIME type names something people read as text."""
    return mime.startswith("text/") or mime in _TEXTUAL_APPLICATION


def mostly_printable(head: bytes) -> bool:
    """Whether nearly every byte of the head's first KiB is printable or a line end.

    Stricter about controls and looser about high bytes than ``looks_binary``
    on purpose: it asks whether a media demuxer could read the bytes as one of
    its text formats, where any byte of 0x20 or above may be part of a word.
    """
    if not head or b"\x00" in head:
        return False
    sample = head[:1024]
    printable = sum(1 for byte in sample if byte >= 0x20 or byte in b"\t\r\n")
    return printable >= 0.95 * len(sample)
