"""Whether bytes are text: the one binary test, the one table of byte order marks."""

from __future__ import annotations

import codecs
import contextlib
import re
from functools import cache
from typing import NamedTuple

from app.core.filetype.alphabets import Judgement, east_asian, judge


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
_DATED = frozenset({"mac_roman", "cp437"})
"""Common once (classic Mac OS, DOS), seldom met in a file now: a near tie
is not theirs."""


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


EAST_ASIAN = ("shift_jis", "euc_jp", "gbk", "big5", "euc_kr")
"""The multi-byte encodings a whole small file may be read in (Japanese,
Simplified and Traditional Chinese, Korean), most common first."""
# The detector's names for their supersets, and what each counts as common:
# (the codec that lists the common characters, lowest and highest code).
_EAST_ASIAN_FAMILY = {
    "shift_jis": "shift_jis",
    "cp932": "shift_jis",
    "shift_jis_2004": "shift_jis",
    "euc_jp": "shift_jis",
    "euc_jis_2004": "shift_jis",
    "gbk": "gbk",
    "gb2312": "gbk",
    "gb18030": "gbk",
    "big5": "big5",
    "cp950": "big5",
    "big5hkscs": "big5",
    "euc_kr": "euc_kr",
    "cp949": "euc_kr",
}
_COMMON_IDEOGRAPHS = {
    "shift_jis": ("shift_jis", 0x889F, 0x9872),  # JIS level 1 kanji
    "gbk": ("gb2312", 0xB0A1, 0xD7F9),  # GB 2312 level 1 hanzi
    "big5": ("big5", 0xA440, 0xC67E),  # Big5's frequently used hanzi
    "euc_kr": ("euc_kr", 0xB0A1, 0xC8FE),  # KS X 1001 Hangul (not Hanja)
}


PROBED_CHARS = 512
"""How much of every reading is judged first: enough to drop most."""
JUDGED_CHARS = 2048
"""How much of the readings near the best is judged."""
_SPACED_IDEOGRAPHS = re.compile(r"(?<=[\u3400-\u9fff]) (?=[\u3400-\u9fff])")


class _Reading(NamedTuple):
    codec: str
    text: str
    judged: Judgement
    cost: float


def legacy_encoding(head: bytes, *, whole: bool = False) -> str | None:
    """The legacy encoding (``cp1252``, ``koi8_r``, …) of a non-UTF-8 text.

    ``None`` for UTF-8, a byte order mark, NUL bytes or no reading at all.
    Every common single-byte code page reads the head, and so does each that
    the detector (charset-normalizer) finds readable; of the readings, the
    one with the fewest characters no language writes that way is taken
    (``judge``), a rare code page paying for its rarity; among equals, the
    one in the language more people write, then the detector's least mess,
    then the commonest code page (Windows-1252 for Latin-1 text).

    Multi-byte encodings (Shift JIS, GBK, Big5, EUC-KR) are read only when
    ``whole`` says the head is the whole file: pages of a longer file are cut
    at any byte, which only a single-byte encoding survives.
    """
    sample = head[:LEGACY_SAMPLE]
    if not sample or b"\x00" in sample or find_bom(sample) or is_utf8(sample):
        return None
    readings = _readings(sample, whole and len(head) <= LEGACY_SAMPLE)
    if not readings:
        return None
    best = min(reading.cost for reading in readings)
    near = [reading for reading in readings if reading.cost == best]
    writers = max(reading.judged.writers for reading in near)
    near = [reading for reading in near if reading.judged.writers == writers]
    if len(near) == 1:
        return near[0].codec
    from charset_normalizer.md import mess_ratio

    return min(
        near,
        key=lambda r: (round(mess_ratio(r.text, 1.0), 2), _commonness(r.codec)),
    ).codec


def _offers(sample: bytes, whole: bool) -> dict[str, str]:
    """The detector's readable decodings (text to codec); none for a binary."""
    from charset_normalizer import from_bytes

    offers = {
        str(match): str(match.encoding)
        for match in from_bytes(sample)
        if _single_byte(str(match.encoding))
        or (whole and str(match.encoding) in _EAST_ASIAN_FAMILY)
    }
    if not offers:
        # The detector stops at its first clean reading, which for a short text
        # can be a multi-byte one: ask again among the common single-byte ones.
        isolated = from_bytes(sample, cp_isolation=list(SINGLE_BYTE_COMMON))
        offers = {str(match): str(match.encoding) for match in isolated}
    return offers


def has_legacy_reading(head: bytes) -> bool:
    """Whether the detector reads a non-UTF-8 head as text in some code page."""
    return bool(_offers(head[:LEGACY_SAMPLE], whole=False))


def _readings(sample: bytes, whole: bool) -> list[_Reading]:
    """Each distinct text the sample reads as, under its commonest codec.

    None when the detector finds no readable decoding (the bytes are not
    text); else every common code page's reading joins the detector's, as it
    leaves out some that read as cleanly as its own (ISO-8859-2 beside
    Windows-1250)."""
    offers = _offers(sample, whole)
    if not offers:
        return []
    texts: dict[str, str] = {}
    for codec in SINGLE_BYTE_COMMON + (EAST_ASIAN if whole else ()):
        with contextlib.suppress(UnicodeDecodeError):
            texts.setdefault(sample.decode(codec), codec)
    for text, codec in offers.items():
        texts.setdefault(text, codec)
    # Every reading's first lines tell the clearly wrong ones; only those
    # near the best are judged on more of the text.
    probed = [_judged(codec, text, PROBED_CHARS) for text, codec in texts.items()]
    if not probed:
        return []
    best = min(reading.cost for reading in probed)
    return [
        _judged(reading.codec, reading.text, JUDGED_CHARS)
        if len(reading.text) > PROBED_CHARS
        else reading
        for reading in probed
        if reading.cost <= best + 2
    ]


def _judged(codec: str, text: str, chars: int) -> _Reading:
    judged = judge(text[:chars])
    cost = float(judged.wrong)
    if east_asian(judged):
        cost += _rare_ideographs(text[:chars], codec)
    elif codec not in _COMMON_RANK:
        cost += max(1.5, 0.1 * judged.total)  # a rare code page wins no tie
    elif codec in _DATED:
        cost += 1.0
    return _Reading(codec, text, judged, cost)


def _rare_ideographs(text: str, codec: str) -> int:
    """Ideographs (or Hangul) a text in ``codec``'s language seldom writes.

    Chinese and Japanese put no space between words, so an ideograph with a
    space before it and one after (Korean's spaced words read as kanji)
    counts as rare too.
    """
    family = _EAST_ASIAN_FAMILY.get(codec)
    if family is None:
        return len(text)  # a single-byte code page has no ideographs of its own
    lister, low, high = _COMMON_IDEOGRAPHS[family]
    rare = 0
    for char in text:
        if char < "\u3400" or "\u3040" <= char <= "\u30ff":
            continue  # ASCII, punctuation, kana
        try:
            code = int.from_bytes(char.encode(lister), "big")
        except UnicodeEncodeError:
            code = 0
        rare += not low <= code <= high
    if family != "euc_kr":
        rare += len(_SPACED_IDEOGRAPHS.findall(text))
    return rare


def _commonness(codec: str) -> int:
    return _COMMON_RANK.get(codec, len(_COMMON_RANK))


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
    return controls > BINARY_SHARE * len(head) or not has_legacy_reading(head)


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
