"""Bounded messages between the app and its PDF worker process, over pipes.

A frame is a JSON header and an optional binary payload (the PDF's bytes one
way, a page bitmap the other), each length-prefixed and bounded before
anything is allocated. Nothing is pickled: the worker parses hostile PDFs, so
what it sends back is data that the app checks field by field
(``decode_info``, ``decode_links``, ...) and never code.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from collections.abc import Sequence
from typing import Any

from app.formats.pdf_doc import (
    MAX_BITMAP_PIXELS,
    MAX_PDF_BYTES,
    Box,
    DocumentInfo,
    LinkAction,
    OutlineEntry,
    PdfLink,
    Word,
)

MAX_HEADER_BYTES = 64 << 20
"""A header (page sizes, outline, words of a page) is at most this long."""
MAX_PAYLOAD_BYTES = max(MAX_PDF_BYTES, MAX_BITMAP_PIXELS * 3)
"""A payload is a whole PDF (requests) or one RGB page bitmap (replies)."""
_PREFIX = struct.Struct(">II")
_CHUNK = 1 << 20


class WireError(Exception):
    """The other side broke the protocol, closed its end, or took too long."""


class WireClosedError(WireError):
    """The other side closed its end (the worker process ended)."""


class WireTimeoutError(WireError):
    """No whole frame arrived before the deadline."""


def write_frame(fd: int, header: dict[str, Any], payload: bytes = b"") -> None:
    """Send one frame; raises ``WireClosedError`` if the reader is gone."""
    encoded = json.dumps(header, ensure_ascii=False).encode()
    if len(encoded) > MAX_HEADER_BYTES or len(payload) > MAX_PAYLOAD_BYTES:
        raise WireError("a message for the PDF worker is too large")
    view = memoryview(_PREFIX.pack(len(encoded), len(payload)) + encoded)
    try:
        for part in (view, memoryview(payload)):
            while part:
                written = os.write(fd, part[:_CHUNK])
                part = part[written:]
    except (BrokenPipeError, ConnectionResetError) as error:
        raise WireClosedError("the PDF worker is gone") from error


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    parts: list[bytes] = []
    left = size
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise WireTimeoutError("the PDF worker did not answer in time")
        chunk = os.read(fd, min(left, _CHUNK))
        if not chunk:
            raise WireClosedError("the PDF worker is gone")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def read_frame(fd: int, deadline: float | None = None) -> tuple[dict[str, Any], bytes]:
    """One frame from ``fd``; ``deadline`` is a ``time.monotonic()`` value."""
    header_size, payload_size = _PREFIX.unpack(
        _read_exactly(fd, _PREFIX.size, deadline)
    )
    if header_size > MAX_HEADER_BYTES or payload_size > MAX_PAYLOAD_BYTES:
        raise WireError("the PDF worker sent a message over the size limit")
    try:
        header = json.loads(_read_exactly(fd, header_size, deadline))
    except (ValueError, RecursionError) as error:
        raise WireError("the PDF worker sent a message that is not JSON") from error
    if not isinstance(header, dict):
        raise WireError("the PDF worker sent a message of the wrong shape")
    return header, _read_exactly(fd, payload_size, deadline)


# -- what travels: encoded by the worker, checked by the app ---------------------


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise WireError("the PDF worker sent a value of the wrong type")
    return float(value)


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise WireError("the PDF worker sent a value of the wrong type")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise WireError("the PDF worker sent a value of the wrong type")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise WireError("the PDF worker sent a value of the wrong type")
    return value


def _items(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise WireError("the PDF worker sent a value of the wrong type")
    return value


def _box(value: Any) -> Box:
    x0, y0, x1, y1 = (_number(part) for part in _items(value)[:4])
    return (x0, y0, x1, y1)


def encode_info(info: DocumentInfo) -> dict[str, Any]:
    return {
        "page_sizes": [list(size) for size in info.page_sizes],
        "outline": [[e.level, e.title, e.page, e.y, e.readable] for e in info.outline],
        "title": info.title,
        "embedded_files": info.embedded_files,
        "outline_left_out": info.outline_left_out,
        "unreadable": list(info.unreadable),
    }


def decode_info(header: dict[str, Any]) -> DocumentInfo:
    sizes = tuple(
        (_number(size[0]), _number(size[1]))
        for size in map(_items, _items(header.get("page_sizes")))
    )
    outline = tuple(
        OutlineEntry(
            _integer(entry[0]),
            _text(entry[1]),
            _integer(entry[2]),
            None if entry[3] is None else _number(entry[3]),
            _flag(entry[4]),
        )
        for entry in map(_items, _items(header.get("outline")))
    )
    return DocumentInfo(
        sizes,
        outline,
        _text(header.get("title")),
        _integer(header.get("embedded_files")),
        _integer(header.get("outline_left_out")),
        tuple(_text(part) for part in _items(header.get("unreadable"))),
    )


def encode_links(links: Sequence[PdfLink]) -> list[Any]:
    return [[list(k.box), k.action.value, k.page, k.y, k.url] for k in links]


def decode_links(value: Any) -> tuple[PdfLink, ...]:
    links = []
    for box, action, page, y, url in map(_items, _items(value)):
        try:
            kind = LinkAction(_text(action))
        except ValueError as error:
            raise WireError("the PDF worker sent an unknown link kind") from error
        target = None if y is None else _number(y)
        links.append(PdfLink(_box(box), kind, _integer(page), target, _text(url)))
    return tuple(links)


def encode_words(words: Sequence[Word]) -> list[Any]:
    return [[*w.box, w.text, w.block, w.line] for w in words]


def decode_words(value: Any) -> tuple[Word, ...]:
    return tuple(
        Word(_box(item[:4]), _text(item[4]), _integer(item[5]), _integer(item[6]))
        for item in map(_items, _items(value))
    )


def decode_boxes(value: Any) -> tuple[Box, ...]:
    return tuple(_box(item) for item in _items(value))
