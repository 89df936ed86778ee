"""Qt's ICU data, less the parts of it that Qt never reads.

The PySide6 wheels carry ICU 73 for QtCore: ``libicudata.so.73`` is a 32 MB
library whose only content is ICU's common data package, one symbol
(``icudt73_dat``) holding a table of named items. QtCore is the only part of
the bundle that calls ICU (Chromium has its own, in ``icudtl.dat``), and it
calls only the functions in ``QT_CALLS``: converters, collation, time zone
names and case mapping. None of them reads the break-iterator dictionaries,
the transliterators, the spelled-out number rules, or the names of
languages, regions, currencies and units: 15 MB of the package. The build
writes the package again without those trees and links it into a library of
the same shape (binutils' ``as`` and ``ld``); ``check_calls`` fails the build
when a bundled library starts calling an ICU function outside ``QT_CALLS``,
since that function might read what was left out.
"""

from __future__ import annotations

import re
import struct
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

# Trees of the package that no function in QT_CALLS opens: break iterators
# (word and line dictionaries), display names of currencies, languages,
# regions and units, rule-based number formats and transliterators. Time
# zone names (zone), collation (coll), converters (cnv) and the locales'
# own data stay.
UNREAD_TREES: tuple[str, ...] = (
    "brkitr",
    "curr",
    "lang",
    "rbnf",
    "region",
    "translit",
    "unit",
)

# The ICU functions the bundle calls (all from libQt6Core), without ICU's
# version suffix.
QT_CALLS: frozenset[str] = frozenset(
    {
        "UCNV_FROM_U_CALLBACK_SUBSTITUTE",
        "UCNV_TO_U_CALLBACK_SUBSTITUTE",
        "u_strToLower",
        "u_strToUpper",
        "ucal_close",
        "ucal_getCanonicalTimeZoneID",
        "ucal_getTimeZoneDisplayName",
        "ucal_open",
        "ucnv_cbFromUWriteUChars",
        "ucnv_cbToUWriteUChars",
        "ucnv_close",
        "ucnv_countAvailable",
        "ucnv_fromUCountPending",
        "ucnv_fromUnicode",
        "ucnv_getAvailableName",
        "ucnv_getFromUCallBack",
        "ucnv_getMaxCharSize",
        "ucnv_getName",
        "ucnv_getStandardName",
        "ucnv_getToUCallBack",
        "ucnv_open",
        "ucnv_reset",
        "ucnv_setFromUCallBack",
        "ucnv_setToUCallBack",
        "ucnv_toUCountPending",
        "ucnv_toUnicode",
        "ucol_close",
        "ucol_getSortKey",
        "ucol_open",
        "ucol_setAttribute",
        "ucol_strcoll",
    }
)

_PT_LOAD = 1
_ALIGN = 16
_PADDING = b"\xaa"  # what ICU's packager fills gaps with


class IcuDataError(RuntimeError):
    """The ICU data library is not of the shape this module rewrites."""


def _symbol(library: Path) -> tuple[str, int, int]:
    """The data symbol's name, address and size (its only defined symbol)."""
    listing = subprocess.run(
        ["objdump", "-T", str(library)], capture_output=True, text=True, check=True
    ).stdout
    found = re.findall(
        r"^([0-9a-f]+) g\s+DO \.rodata\s+([0-9a-f]+)\s+(icudt\d+_dat)$",
        listing,
        flags=re.MULTILINE,
    )
    if len(found) != 1:
        raise IcuDataError(f"{library}: no single icudt*_dat symbol")
    address, size, name = found[0]
    return name, int(address, 16), int(size, 16)


def _file_offset(image: bytes, address: int) -> int:
    """Where ``address`` of a 64-bit little-endian ELF image is in the file."""
    (table,) = struct.unpack_from("<Q", image, 0x20)
    entry_size, count = struct.unpack_from("<HH", image, 0x36)
    for index in range(count):
        kind, _flags, offset, start, _p, size, _m, _a = struct.unpack_from(
            "<IIQQQQQQ", image, table + index * entry_size
        )
        if kind == _PT_LOAD and start <= address < start + size:
            return offset + address - start
    raise IcuDataError(f"address {address:#x} is in no load segment")


def read_package(package: bytes) -> tuple[bytes, list[tuple[str, bytes]]]:
    """The header and the ``(name, content)`` items of an ICU common data package.

    Each item's content runs to the next item, so it keeps its padding.
    """
    header_size, magic = struct.unpack_from("<H2s", package, 0)
    if magic != b"\xda\x27" or package[12:16] != b"CmnD":
        raise IcuDataError("not an ICU common data package")
    toc = package[header_size:]
    (count,) = struct.unpack_from("<I", toc, 0)
    entries = [struct.unpack_from("<II", toc, 4 + 8 * i) for i in range(count)]
    items = []
    for index, (name_at, data_at) in enumerate(entries):
        name = toc[name_at : toc.index(b"\0", name_at)].decode("ascii")
        end = entries[index + 1][1] if index + 1 < count else len(toc)
        items.append((name, toc[data_at:end]))
    return package[:header_size], items


def _padded(data: bytes) -> bytes:
    return data + _PADDING * (-len(data) % _ALIGN)


def write_package(header: bytes, items: Sequence[tuple[str, bytes]]) -> bytes:
    """An ICU common data package of ``items``, kept in their (sorted) order."""
    names = b"".join(name.encode("ascii") + b"\0" for name, _content in items)
    names_at = 4 + 8 * len(items)
    data_at = len(_padded(bytes(names_at) + names))
    entries, name_at, place = [], names_at, data_at
    for name, content in items:
        entries.append(struct.pack("<II", name_at, place))
        name_at += len(name) + 1
        place += len(_padded(content))
    toc = struct.pack("<I", len(items)) + b"".join(entries) + names
    body = b"".join(_padded(content) for _name, content in items)
    return header + _padded(toc) + body


def without_trees(
    items: Iterable[tuple[str, bytes]], trees: Iterable[str]
) -> list[tuple[str, bytes]]:
    """``items`` less those in the named trees (``icudt73l/<tree>/<item>``)."""
    dropped = set(trees)
    kept = []
    for name, content in items:
        parts = name.split("/")
        if len(parts) > 2 and parts[1] in dropped:
            continue
        kept.append((name, content))
    return kept


def package_of(library: Path) -> tuple[str, bytes]:
    """The data symbol's name and the package it holds."""
    image = library.read_bytes()
    name, address, size = _symbol(library)
    start = _file_offset(image, address)
    return name, image[start : start + size]


def link_library(symbol: str, package: bytes, soname: str, target: Path) -> None:
    """Write a shared library whose only content is ``package`` as ``symbol``,
    as ICU's own build writes ``libicudata``."""
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data.bin"
        data.write_bytes(package)
        source = Path(folder) / "data.s"
        source.write_text(
            "\n".join(
                [
                    ".section .rodata",
                    f".globl {symbol}",
                    f".type {symbol}, @object",
                    f".balign {_ALIGN}",
                    f"{symbol}:",
                    f'.incbin "{data}"',
                    f".size {symbol}, . - {symbol}",
                    '.section .note.GNU-stack,"",@progbits',
                    "",
                ]
            ),
            encoding="ascii",
        )
        objects = Path(folder) / "data.o"
        subprocess.run(["as", "-o", str(objects), str(source)], check=True)
        subprocess.run(
            [
                "ld",
                "-shared",
                "--strip-all",
                "--build-id",
                "--hash-style=gnu",
                "-z",
                "noexecstack",
                "-soname",
                soname,
                "-o",
                str(target),
                str(objects),
            ],
            check=True,
        )


def trim(library: Path, trees: Iterable[str] = UNREAD_TREES) -> int:
    """Rewrite ``library`` without ``trees``; the bytes it saved."""
    before = library.stat().st_size
    symbol, package = package_of(library)
    header, items = read_package(package)
    kept = without_trees(items, trees)
    with tempfile.TemporaryDirectory() as folder:
        built = Path(folder) / library.name
        link_library(symbol, write_package(header, kept), library.name, built)
        _symbol(built)  # the symbol is there, as the one defined
        library.write_bytes(built.read_bytes())  # keeps the file's own mode
    return before - library.stat().st_size


def _dynamic_symbols(path: Path) -> tuple[set[str], set[str]]:
    """The names ``path`` defines and the names it imports (none for an ELF file
    without a dynamic symbol table, such as an object file)."""
    listing = subprocess.run(
        ["objdump", "-T", str(path)], capture_output=True, text=True, check=False
    ).stdout
    defined, imported = set(), set()
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) < 4 or not re.fullmatch(r"[0-9a-f]{16}", fields[0]):
            continue
        (imported if "*UND*" in fields else defined).add(fields[-1])
    return defined, imported


def icu_calls(libraries: Iterable[Path]) -> dict[str, set[str]]:
    """The ICU functions each of ``libraries`` calls, by library name, without
    ICU's version suffix; ICU's own libraries are among ``libraries``."""
    paths = list(libraries)
    icu: set[str] = set()
    for path in paths:
        if path.name.startswith(("libicuuc.", "libicui18n.")):
            icu |= _dynamic_symbols(path)[0]
    calls: dict[str, set[str]] = {}
    for path in paths:
        if path.name.startswith("libicu"):
            continue
        if found := _dynamic_symbols(path)[1] & icu:
            calls[path.name] = {re.sub(r"_\d+$", "", name) for name in found}
    return calls


def unknown_calls(calls: dict[str, set[str]]) -> list[str]:
    """The calls outside ``QT_CALLS``, as ``library: function``."""
    return sorted(
        f"{library}: {name}"
        for library, names in calls.items()
        for name in names - QT_CALLS
    )
