"""Paged text: encodings, page cuts on line ends and characters, the version fence."""

from __future__ import annotations

import os
import time

import pytest

from app.core.filetype import looks_binary
from app.core.trust.safeio import open_verified
from app.formats.text_pages import PAGE_SIZE, FenceBrokenError, PagedText


def paged(file_path, **kwargs) -> PagedText:
    return PagedText(open_verified(str(file_path)), **kwargs)


def all_pages(text: PagedText) -> list:
    pages, start = [], text.data_start
    while True:
        page = text.read_page(start)
        pages.append(page)
        if page.is_last:
            return pages
        assert page.end > start
        start = page.end


def test_small_file_is_one_page_with_the_whole_text(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("one\ntwo\n")
    text = paged(path)
    page = text.first_page()
    assert text.is_single_page
    assert (page.text, page.is_last, page.had_invalid_bytes) == (
        "one\ntwo\n",
        True,
        False,
    )


def test_empty_file_gives_one_empty_last_page(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    page = paged(path).first_page()
    assert (page.text, page.is_last, page.start, page.end) == ("", True, 0, 0)


@pytest.mark.parametrize(
    "codec", ["utf-8-sig", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]
)
def test_byte_order_mark_picks_the_encoding_and_is_not_shown(tmp_path, codec):
    path = tmp_path / "bom.txt"
    body = "héllo \U0001f600\nwörld\n"
    mark = {"utf-8-sig": b""}.get(codec, "\ufeff".encode(codec))
    path.write_bytes(mark + body.encode(codec))
    page = paged(path).first_page()
    assert page.text == body
    assert not page.had_invalid_bytes


def test_invalid_utf8_becomes_replacement_characters_and_is_flagged(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"ok \xff\xfe bytes\n")
    page = paged(path, codec="utf-8").first_page()
    assert page.had_invalid_bytes
    assert page.text == "ok \ufffd\ufffd bytes\n"


def test_a_legacy_text_is_read_in_the_encoding_its_bytes_suggest(tmp_path):
    path = tmp_path / "note.txt"
    path.write_bytes("Grüße aus Köln, schöne Straße.\n".encode("latin-1"))
    pages = paged(path)
    assert pages.encoding.name == "Windows-1252"
    page = pages.first_page()
    assert page.text == "Grüße aus Köln, schöne Straße.\n"
    assert not page.had_invalid_bytes


def test_pages_of_a_single_byte_text_are_cut_at_line_ends(tmp_path):
    path = tmp_path / "long.txt"
    path.write_bytes(("é" * 30 + "\n").encode("latin-1") * 40)
    pages = paged(path, page_size=100, codec="latin_1")
    first = pages.first_page()
    assert first.text == ("é" * 30 + "\n") * 3
    assert pages.read_page(first.end).text.startswith("é" * 30 + "\n")


def test_nul_bytes_page_without_error_and_look_binary(tmp_path):
    path = tmp_path / "nul.bin"
    data = b"abc\x00\x00def\n" * 10
    path.write_bytes(data)
    assert paged(path).first_page().text == data.decode()
    assert looks_binary(data)
    assert not looks_binary(b"plain text\n\tindented\n")
    assert not looks_binary("\ufefftext".encode("utf-16-le"))
    assert looks_binary(bytes(range(1, 32)) * 4)


def test_pages_join_to_the_file_and_end_on_line_ends(tmp_path):
    path = tmp_path / "lines.txt"
    body = "".join(f"line {n} {'x' * (n % 37)}\n" for n in range(400))
    path.write_text(body)
    pages = all_pages(paged(path, page_size=256))
    assert "".join(page.text for page in pages) == body
    assert all(page.end - page.start <= 256 for page in pages)
    assert all(page.text.endswith("\n") for page in pages)
    assert len(pages) > 10


def test_crlf_is_never_split_between_pages(tmp_path):
    path = tmp_path / "crlf.txt"
    # 15 bytes then CRLF: with 16-byte pages the CR is the last byte of a window.
    path.write_bytes(b"a" * 15 + b"\r\n" + b"b" * 10 + b"\r\n")
    pages = all_pages(paged(path, page_size=16))
    assert all(not page.text.endswith("\r") for page in pages)
    assert "".join(page.text for page in pages) == "a" * 15 + "\r\n" + "b" * 10 + "\r\n"


def test_cr_only_line_endings_are_line_ends_for_the_cut(tmp_path):
    path = tmp_path / "cr.txt"
    path.write_bytes(b"abc\rdefgh\rij\r" * 10)
    pages = all_pages(paged(path, page_size=16))
    assert all(page.text.endswith("\r") for page in pages[:-1])


@pytest.mark.parametrize(
    ("codec", "char"), [("utf-8", "é€\U0001f600"), ("utf-16-le", "\U0001f600a")]
)
def test_a_long_line_is_cut_on_character_boundaries(tmp_path, codec, char):
    path = tmp_path / "long.txt"
    body = char * 500
    mark = b"" if codec == "utf-8" else "\ufeff".encode(codec)
    path.write_bytes(mark + body.encode(codec))
    pages = all_pages(paged(path, page_size=37))
    assert not any(page.had_invalid_bytes for page in pages)
    assert "".join(page.text for page in pages) == body
    assert all(page.ends_mid_line for page in pages[:-1])


def test_a_100_mb_single_line_pages_quickly_in_bounded_pages(tmp_path):
    path = tmp_path / "one-line.txt"
    block = "é" * (512 * 1024)  # 1 MiB of two-byte characters
    with open(path, "wb") as out:
        for _ in range(100):
            out.write(block.encode())
    began = time.perf_counter()
    text = paged(path)
    first = text.first_page()
    middle = text.read_page(first.end * 25)
    assert time.perf_counter() - began < 2
    assert first.end - first.start <= PAGE_SIZE
    assert first.ends_mid_line and not first.had_invalid_bytes
    assert len(first.text) == PAGE_SIZE // 2
    assert not middle.had_invalid_bytes


def test_appended_file_breaks_the_fence_on_the_next_page(tmp_path):
    path = tmp_path / "grows.txt"
    path.write_text("first line\n" * 100)
    text = paged(path, page_size=64)
    first = text.first_page()
    with open(path, "a") as out:
        out.write("new line\n")
    with pytest.raises(FenceBrokenError) as caught:
        text.read_page(first.end)
    assert caught.value.reason == "changed"


def test_truncated_file_breaks_the_fence_instead_of_joining_text(tmp_path):
    path = tmp_path / "shrinks.txt"
    path.write_text("first line\n" * 100)
    text = paged(path, page_size=64)
    first = text.first_page()
    os.truncate(path, 100)
    with pytest.raises(FenceBrokenError):
        text.read_page(first.end)


def test_rewrite_in_place_with_the_same_size_breaks_the_fence(tmp_path):
    path = tmp_path / "rewritten.txt"
    path.write_text("aaaa\n" * 20)
    text = paged(path, page_size=32)
    stat = os.stat(path)
    path.write_text("bbbb\n" * 20)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    with pytest.raises(FenceBrokenError):
        text.read_page(32)


def test_file_replaced_by_rename_is_detected_through_the_path(tmp_path):
    path = tmp_path / "replaced.txt"
    path.write_text("old\n" * 50)
    text = paged(path, page_size=32, path=str(path))
    text.first_page()
    other = tmp_path / "other.txt"
    other.write_text("new\n" * 50)
    os.replace(other, path)
    with pytest.raises(FenceBrokenError) as caught:
        text.read_page(32)
    assert caught.value.reason == "replaced"


def test_without_the_path_a_replaced_file_keeps_paging_the_old_revision(tmp_path):
    path = tmp_path / "replaced.txt"
    path.write_text("old\n" * 50)
    text = paged(path, page_size=32)
    other = tmp_path / "other.txt"
    other.write_text("new\n" * 50)
    os.replace(other, path)
    assert text.read_page(32).text.startswith("old")


def test_removed_file_is_reported_missing_when_the_path_is_fenced(tmp_path):
    path = tmp_path / "gone.txt"
    path.write_text("x\n" * 50)
    text = paged(path, page_size=32, path=str(path))
    path.unlink()
    with pytest.raises(FenceBrokenError) as caught:
        text.read_page(32)
    assert caught.value.reason == "missing"


def test_a_reader_file_pages_through_its_own_reader_and_never_a_path(
    tmp_path,
) -> None:
    from app.core.trust.safeio import Identity, VerifiedFile
    from app.formats.line_index import LineIndex
    from app.formats.text_pages import FencedReader, ReaderFile

    data = b"".join(b"line %06d\n" % number for number in range(300_000))
    closed: list[bool] = []
    memory = VerifiedFile.from_bytes(data, Identity(0, 0, len(data), 0))
    file = ReaderFile(FencedReader(memory), on_close=lambda: closed.append(True))
    # The path names nothing on this disk: a local lstat would say "missing".
    missing = str(tmp_path / "on-another-host.log")
    pages = PagedText(file, path=missing)
    assert not pages.is_single_page
    assert pages.first_page().text.startswith("line 000000\n")
    index = LineIndex.build(file, path=missing)
    assert index.total_lines == 300_000
    assert index.lines(299_999, 1) == ["line 299999"]
    file.close()
    file.close()
    assert closed == [True]
    memory.close()
