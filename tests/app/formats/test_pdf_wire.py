"""Frames to and from the PDF worker: bounded, timed, and checked field by field."""

from __future__ import annotations

import contextlib
import os
import struct
import time
from collections.abc import Iterator

import pytest

from app.formats.pdf_doc import DocumentInfo, LinkAction, OutlineEntry, PdfLink, Word
from app.formats.pdf_wire import (
    MAX_HEADER_BYTES,
    WireClosedError,
    WireError,
    WireTimeoutError,
    decode_info,
    decode_links,
    decode_words,
    encode_info,
    encode_links,
    encode_words,
    read_frame,
    write_frame,
)


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    yield read, write
    for fd in (read, write):
        with contextlib.suppress(OSError):  # a test may have closed one
            os.close(fd)


def test_a_frame_arrives_whole(pipe: tuple[int, int]) -> None:
    read, write = pipe
    write_frame(write, {"op": "render", "page": 3}, b"\x00\x01" * 10)
    assert read_frame(read, time.monotonic() + 5) == (
        {"op": "render", "page": 3},
        b"\x00\x01" * 10,
    )


def test_a_frame_claiming_too_much_is_refused_before_it_is_read(
    pipe: tuple[int, int],
) -> None:
    read, write = pipe
    os.write(write, struct.pack(">II", MAX_HEADER_BYTES + 1, 0))
    with pytest.raises(WireError, match="size limit"):
        read_frame(read, time.monotonic() + 5)


def test_a_silent_or_closed_peer_ends_the_wait(pipe: tuple[int, int]) -> None:
    read, write = pipe
    with pytest.raises(WireTimeoutError):
        read_frame(read, time.monotonic() + 0.05)
    os.close(write)
    with pytest.raises(WireClosedError):
        read_frame(read, time.monotonic() + 5)


def test_what_the_worker_sends_comes_back_the_same() -> None:
    info = DocumentInfo(
        ((595.0, 842.0),),
        (OutlineEntry(1, "Intro", 0, 36.0), OutlineEntry(2, "Gone", -1, None, False)),
        "Title",
        1,
        4,
        ("the title", "the targets of 1 outline entry"),
    )
    assert decode_info(encode_info(info)) == info
    links = (PdfLink((1.0, 2.0, 3.0, 4.0), LinkAction.WEB, -1, None, "https://x"),)
    assert decode_links(encode_links(links)) == links
    words = (Word((1.0, 2.0, 3.0, 4.0), "fox", 0, 1),)
    assert decode_words(encode_words(words)) == words


@pytest.mark.parametrize(
    "header",
    [
        {"page_sizes": "many", "outline": [], "title": "", "embedded_files": 0},
        {"page_sizes": [[1, "x"]], "outline": [], "title": "", "embedded_files": 0},
        {
            "page_sizes": [],
            "outline": [[1, 2, 3, None]],
            "title": "",
            "embedded_files": 0,
        },
        {"page_sizes": [], "outline": [], "title": 5, "embedded_files": 0},
    ],
)
def test_a_malformed_answer_is_an_error_not_data(header: dict[str, object]) -> None:
    with pytest.raises(WireError):
        decode_info({"outline_left_out": 0, **header})


def test_an_unknown_link_kind_is_refused() -> None:
    with pytest.raises(WireError, match="link kind"):
        decode_links([[[0, 0, 1, 1], "launch", -1, None, "/bin/sh"]])
