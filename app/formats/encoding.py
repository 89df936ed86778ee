"""Text encodings of previewed files: the encoding a mark names, and safe cuts.

The cut and search helpers work on raw bytes in code units (1, 2 or 4 bytes), so a
page or a block read at any offset never splits a character and a UTF-16 line
end is only found at an aligned position. The stdlib's incremental decoders
cannot say where to cut without decoding, hence these few hand-written helpers.
"""

from __future__ import annotations

import sys
from array import array
from dataclasses import dataclass

from app.core.filetype import SINGLE_BYTE_COMMON, find_bom, is_utf8, legacy_encoding

# Names people know legacy encodings by; other codecs show their codec name.
_NAMES = {
    "latin_1": "ISO-8859-1 (Latin-1)",
    "iso8859_15": "ISO-8859-15 (Latin-9)",
    "koi8_r": "KOI8-R",
    "koi8_u": "KOI8-U",
    "mac_roman": "Mac Roman",
    "cp437": "DOS (CP437)",
    "cp850": "DOS Latin-1 (CP850)",
    "cp866": "DOS Cyrillic (CP866)",
    "cp874": "Windows-874 (Thai)",
    "shift_jis": "Shift JIS",
    "euc_jp": "EUC-JP",
    "gbk": "GBK",
    "big5": "Big5",
    "euc_kr": "EUC-KR",
}
for _number in range(1250, 1259):
    _NAMES[f"cp{_number}"] = f"Windows-{_number}"
for _number in range(2, 17):
    _NAMES.setdefault(f"iso8859_{_number}", f"ISO-8859-{_number}")

# What each legacy code page was made for, said where one is chosen.
_WRITTEN_IN = {
    "cp1250": "Central European",
    "iso8859_2": "Central European",
    "cp1251": "Cyrillic",
    "koi8_r": "Russian",
    "koi8_u": "Ukrainian",
    "iso8859_5": "Cyrillic",
    "cp1252": "Western",
    "cp1253": "Greek",
    "iso8859_7": "Greek",
    "cp1254": "Turkish",
    "iso8859_9": "Turkish",
    "cp1255": "Hebrew",
    "cp1256": "Arabic",
    "cp1257": "Baltic",
    "iso8859_13": "Baltic",
    "shift_jis": "Japanese",
    "euc_jp": "Japanese",
    "gbk": "Simplified Chinese",
    "big5": "Traditional Chinese",
    "euc_kr": "Korean",
}

CHOOSABLE = ("utf-8", *SINGLE_BYTE_COMMON)
"""What "Reopen with encoding…" offers: UTF-8 and single-byte encodings."""


@dataclass(frozen=True)
class TextEncoding:
    """How the bytes of a text file are encoded: codec, byte order mark, unit size."""

    codec: str
    bom: bytes = b""
    unit: int = 1

    @property
    def name(self) -> str:
        """A name to show the user, for example ``UTF-16 LE`` or ``Windows-1252``."""
        if self.codec in _NAMES:
            return _NAMES[self.codec]
        return self.codec.upper().replace("-LE", " LE").replace("-BE", " BE")

    @property
    def label(self) -> str:
        """The name and what the code page is for: ``Windows-1251 (Cyrillic)``."""
        written_in = _WRITTEN_IN.get(self.codec)
        return f"{self.name} ({written_in})" if written_in else self.name

    @property
    def utf8(self) -> bool:
        return self.codec == "utf-8"

    def char_bytes(self, char: str) -> bytes:
        return char.encode(self.codec)


UTF8 = TextEncoding("utf-8")


def detect_encoding(head: bytes) -> TextEncoding:
    """The encoding a byte order mark names; UTF-8 when there is none."""
    bom = find_bom(head)
    return UTF8 if bom is None else TextEncoding(bom.codec, bom.mark, bom.unit)


def guess_encoding(head: bytes, *, whole: bool = False) -> TextEncoding:
    """A mark's encoding; else UTF-8 if the head is valid UTF-8; else the legacy
    encoding it reads best in (UTF-8 when none reads it).

    ``whole``: the head is the whole file, which may then be read in a
    multi-byte legacy encoding (Shift JIS, GBK, …) too."""
    if find_bom(head) is not None or is_utf8(head):
        return detect_encoding(head)
    legacy = legacy_encoding(head, whole=whole)
    return UTF8 if legacy is None else TextEncoding(legacy)


def chosen_encoding(codec: str, head: bytes) -> TextEncoding:
    """The encoding a person chose; a byte order mark the file has is skipped."""
    if codec == "utf-8":
        marked = detect_encoding(head)
        return marked if marked.codec == "utf-8" else UTF8
    return TextEncoding(codec)


def decode(data: bytes, encoding: TextEncoding) -> tuple[str, bool]:
    """Decode ``data``; invalid bytes become U+FFFD and the flag says so."""
    try:
        return data.decode(encoding.codec), False
    except UnicodeDecodeError:
        return data.decode(encoding.codec, "replace"), True


def _units(data: bytes, encoding: TextEncoding) -> array[int]:
    """The code units of ``data`` (which starts aligned) in native byte order."""
    typecode = "H" if encoding.unit == 2 else "I"
    units = array(typecode)
    usable = len(data) - len(data) % encoding.unit
    units.frombytes(data[:usable])
    if not encoding.codec.endswith(sys.byteorder[0] + "e"):
        units.byteswap()
    return units


def count_char(
    data: bytes, encoding: TextEncoding, char: str, start: int = 0, end: int = -1
) -> int:
    """How many times the one-unit ``char`` occurs at aligned offsets in a range."""
    end = len(data) if end < 0 else end
    if encoding.unit == 1:
        return data.count(char.encode(), start, end)
    return _units(data[start:end], encoding).count(ord(char))


def find_char(
    data: bytes, encoding: TextEncoding, char: str, start: int = 0, end: int = -1
) -> int:
    """The aligned byte offset of the first ``char`` in ``data[start:end]``, or -1."""
    end = len(data) if end < 0 else end
    pattern = encoding.char_bytes(char)
    position = data.find(pattern, start, end)
    while position != -1 and position % encoding.unit:
        position = data.find(pattern, position + 1, end)
    return position


def rfind_char(data: bytes, encoding: TextEncoding, char: str, end: int = -1) -> int:
    """The aligned byte offset of the last ``char`` in ``data[:end]``, or -1."""
    end = len(data) if end < 0 else end
    pattern = encoding.char_bytes(char)
    position = data.rfind(pattern, 0, end)
    while position != -1 and position % encoding.unit:
        position = data.rfind(pattern, 0, position + len(pattern) - 1)
    return position


def char_boundary(data: bytes, encoding: TextEncoding) -> int:
    """The largest cut ``<= len(data)`` that splits no character (0 if none)."""
    if encoding.unit == 1 and not encoding.utf8:
        return len(data)  # single-byte: every cut is between characters
    if encoding.unit == 1:
        cut = len(data)
        lead = cut - 1
        # Walk back over at most three continuation bytes to the lead byte.
        while lead > 0 and cut - lead < 4 and data[lead] & 0xC0 == 0x80:
            lead -= 1
        if lead >= 0 and data[lead] >= 0xC0:
            width = 2 if data[lead] < 0xE0 else 3 if data[lead] < 0xF0 else 4
            if cut - lead < width:
                return lead
        return cut
    cut = len(data) - len(data) % encoding.unit
    if encoding.unit == 2 and cut >= 4:
        last = _units(data[cut - 2 : cut], encoding)[0]
        if 0xD800 <= last <= 0xDBFF:  # a high surrogate waits for its pair
            cut -= 2
    return cut


def last_line_end(
    data: bytes, encoding: TextEncoding, terminators: str, lookahead: bytes = b""
) -> int:
    """The cut just after the last line end in ``data``, or -1 if there is none.

    ``terminators`` holds the characters that end a line (``"\\n"``, ``"\\r"`` or
    both). A ``\\r`` at the very end followed by ``\\n`` in ``lookahead`` is the first
    half of a CRLF: cutting there would split it, so an earlier end is taken.
    """
    best = max(rfind_char(data, encoding, char) for char in terminators)
    if best == -1:
        return -1
    cut = best + encoding.unit
    if (
        cut == len(data)
        and "\r" in terminators
        and data[best : best + encoding.unit] == encoding.char_bytes("\r")
        and lookahead.startswith(encoding.char_bytes("\n"))
    ):
        return last_line_end(data[:best], encoding, terminators)
    return cut


def char_start(data: bytes, encoding: TextEncoding) -> int:
    """How many leading bytes of ``data`` belong to a character begun before it."""
    if encoding.unit == 1 and not encoding.utf8:
        return 0
    if encoding.unit == 1:
        skip = 0
        while skip < min(3, len(data)) and data[skip] & 0xC0 == 0x80:
            skip += 1
        return skip
    if encoding.unit == 2 and len(data) >= 2:
        first = _units(data[:2], encoding)[0]
        return 2 if 0xDC00 <= first <= 0xDFFF else 0  # a low surrogate's pair
    return 0
