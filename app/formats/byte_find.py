"""Finding and counting a needle in blocks of bytes, ASCII letters folded or not.

On Debian's CPython 3.11 ``bytes.lower`` and ``bytes.find`` step through a
1 MiB block in about 0.5 ms and 0.26 ms, one byte at a time, holding the
interpreter lock. stringzilla does the same with vector instructions:
``translate`` through a 256-byte table into a buffer kept for the whole pass
in about 0.2 ms, ``find`` in about 0.08 ms. A search through a 1 GiB file
then runs at about ``grep``'s speed.

Folding is ASCII only, as ``bytes.lower`` and ``grep -i`` in the C locale
fold: ``A``-``Z`` become ``a``-``z`` and every other byte stays, so the Kelvin
sign (U+212A) never matches ``k``. stringzilla's own Unicode folding would
match it, and is not used.
"""

from __future__ import annotations

from typing import TypeAlias

import stringzilla

Buffer: TypeAlias = bytes | bytearray | memoryview

_ASCII_LOWER = bytes(range(256)).lower()
"""The translate table of ``bytes.lower``: only ``A``-``Z`` change."""


class Folder:
    """ASCII lower-casing of block after block into one reused buffer.

    What ``fold`` returns is a view of that buffer: valid until the next call.
    One instance serves one pass on one thread.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()

    def fold(self, data: Buffer) -> memoryview:
        """``data`` with ASCII letters lower-cased, as ``bytes.lower`` does."""
        size = len(memoryview(data))
        if len(self._buffer) < size:
            self._buffer = bytearray(size)
        view = memoryview(self._buffer)[:size]
        if size:
            stringzilla.translate(data, _ASCII_LOWER, out=view)
        return view


def translated(data: Buffer, table: bytes) -> bytes:
    """``bytes.translate`` through a 256-byte ``table``, without deleting."""
    result: bytes = stringzilla.translate(data, table) if len(data) else b""
    return result


def lowered(data: Buffer) -> bytes:
    """``data`` with ASCII letters lower-cased, in new bytes (any thread)."""
    return translated(data, _ASCII_LOWER)


def find(hay: Buffer, needle: bytes, start: int = 0, end: int | None = None) -> int:
    """``bytes.find`` of ``needle`` in ``hay[start:end]``, for non-negative bounds."""
    size = len(memoryview(hay))
    end = size if end is None else min(end, size)
    if end - start < len(needle):
        return -1
    return int(stringzilla.find(hay, needle, start, end))


def rfind(hay: Buffer, needle: bytes, start: int = 0, end: int | None = None) -> int:
    """``bytes.rfind`` of ``needle`` in ``hay[start:end]``, for non-negative bounds."""
    size = len(memoryview(hay))
    end = size if end is None else min(end, size)
    if end - start < len(needle):
        return -1
    return int(stringzilla.rfind(hay, needle, start, end))


def count(hay: Buffer, needle: bytes, start: int = 0, end: int | None = None) -> int:
    """``bytes.count`` of ``needle`` in ``hay[start:end]``: matches do not overlap."""
    size = len(memoryview(hay))
    end = size if end is None else min(end, size)
    if end - start < len(needle):
        return 0
    return int(stringzilla.count(hay, needle, start, end))
