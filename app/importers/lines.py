"""Transcript lines read in bounded memory: counted, capped, never all at once."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any, Final

import orjson

from app.core.trust.safeio import VerifiedFile

# A line over this is counted as malformed and skipped without being kept:
# one pasted image or file in a transcript must not hold the import's memory.
MAX_LINE: Final = 16 << 20
CHUNK: Final = 1 << 20
# 2**64 has 20 digits: a number this long may not fit orjson's integers.
_LONG_NUMBER: Final = re.compile(rb"[0-9]{20}")

Progress = Callable[[int, int], None]


@dataclass
class LineStats:
    """What reading a transcript found, line by line."""

    lines: int = 0
    skipped: int = 0  # valid JSON of a type the importer does not know
    malformed: int = 0  # not valid JSON, a truncated last line included
    oversized: int = 0  # over MAX_LINE (also counted as malformed)
    sidechain: int = 0  # a subagent's lines, kept apart from the main turns


def raw_lines(
    opened: VerifiedFile,
    *,
    max_line: int = MAX_LINE,
    chunk_size: int = CHUNK,
    on_progress: Progress | None = None,
) -> Iterator[tuple[int, bytes | None]]:
    """Each line (1-based number, bytes without the newline, or ``None`` if too long).

    Reads through the verified descriptor in chunks; at most one line of up to
    ``max_line`` bytes is held besides the chunk.
    """
    total = opened.identity.size
    carry: list[bytes] = []
    carried = 0
    dropping = False
    number = 0
    offset = 0
    while chunk := opened.read(chunk_size, offset):
        offset += len(chunk)
        pieces = chunk.split(b"\n")
        for piece in pieces[:-1]:
            number += 1
            if dropping or carried + len(piece) > max_line:
                yield number, None
            else:
                yield number, b"".join((*carry, piece)) if carry else piece
            carry, carried, dropping = [], 0, False
        tail = pieces[-1]
        if not dropping:
            if carried + len(tail) > max_line:
                carry, carried, dropping = [], 0, True
            elif tail:
                carry.append(tail)
                carried += len(tail)
        if on_progress is not None:
            on_progress(offset, total)
    if carry or dropping:
        yield number + 1, None if dropping else b"".join(carry)


def loads(data: bytes) -> Any:
    """One line's JSON: orjson's speed, the standard library's reach.

    orjson refuses some of what Python's parser takes (NaN, lone surrogate
    escapes) and rounds integers past 64 bits to floats; a line it refuses, or
    one with a run of 20 digits anywhere, is read by ``json``, so a transcript
    means the same whichever parser read it.
    """
    if _LONG_NUMBER.search(data) is None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data)


def json_lines(
    opened: VerifiedFile, stats: LineStats, on_progress: Progress | None = None
) -> Generator[tuple[int, dict[str, Any]], None, None]:
    """The transcript's JSON objects; counts what is not one in ``stats``."""
    for number, data in raw_lines(opened, on_progress=on_progress):
        if data is None:
            stats.lines += 1
            stats.malformed += 1
            stats.oversized += 1
            continue
        if not data.strip():
            continue
        stats.lines += 1
        try:
            value = loads(data)
        except (ValueError, RecursionError):
            stats.malformed += 1
            continue
        if not isinstance(value, dict):
            stats.skipped += 1
            continue
        yield number, value
