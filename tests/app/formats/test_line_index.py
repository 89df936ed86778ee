"""The sparse line index: counts, random access, long lines, find, fence, cancel."""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest

from app.core.trust.safeio import open_verified
from app.formats.encoding import TextEncoding
from app.formats.line_index import _SEARCH_BYTES, BLOCK_BYTES, CUT_MARK, LineIndex
from app.formats.text_pages import BuildCancelledError, FenceBrokenError

from .conftest import record_threads


def index_of(path, **kwargs) -> LineIndex:
    return LineIndex.build(open_verified(str(path)), **kwargs)


@pytest.fixture
def many_lines(tmp_path):
    """About 1.5 MiB of lines of varied length, so several blocks and checkpoints."""
    rng = random.Random(7)
    lines = [f"{n}: " + "wörd " * rng.randint(0, 60) for n in range(20_000)]
    path = tmp_path / "many.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, lines


def test_counts_and_reads_any_window_like_splitlines(many_lines):
    path, lines = many_lines
    index = index_of(path)
    assert index.total_lines == len(lines)
    for first in (0, 1, 777, 10_001, 19_990):
        assert index.lines(first, 50) == lines[first : first + 50]
    assert index.lines(19_999, 50) == lines[-1:]
    assert index.lines(25_000, 5) == []


def test_offset_and_line_lookups_agree(many_lines):
    path, lines = many_lines
    index = index_of(path)
    data = path.read_bytes()
    for line in (0, 5, 4_321, 19_999):
        offset = index.offset_of_line(line)
        assert offset == 0 or data[offset - 1 : offset] == b"\n"
        assert index.line_at_offset(offset) == line
        assert index.line_at_offset(offset + 2) == line
    assert index.offset_of_line(len(lines)) == len(data)


def test_a_file_of_many_reads_counts_every_block_as_wc_does(tmp_path):
    """Past one read of the two-thread build: CRLF lines across every edge."""
    rng = random.Random(11)
    rows = [b"x" * rng.randint(0, 300) + b"\r\n" for _ in range(4_000)]
    block = b"".join(rows)
    data = block * (19 * BLOCK_BYTES // len(block)) + b"no final line end"
    path = tmp_path / "many-reads.log"
    path.write_bytes(data)
    index = index_of(path)
    wc = subprocess.run(["wc", "-l", str(path)], capture_output=True, check=True)
    assert index.total_lines == int(wc.stdout.split()[0]) + 1
    assert list(index._blocks) == [
        data.count(b"\n", 0, start) for start in range(0, len(data), BLOCK_BYTES)
    ]
    for line in rng.sample(range(index.total_lines), 50):
        start = index.offset_of_line(line)
        assert start == 0 or data[start - 1 : start] == b"\n"
        assert data.count(b"\n", 0, start) == line


def test_index_memory_is_one_number_per_block(many_lines):
    path, _ = many_lines
    index = index_of(path)
    assert len(index._blocks) <= path.stat().st_size // BLOCK_BYTES + 1


def test_cr_only_file_counts_carriage_returns(tmp_path):
    path = tmp_path / "mac.txt"
    path.write_bytes(b"one\rtwo\rthree")
    index = index_of(path)
    assert (index.terminator, index.total_lines) == ("\r", 3)
    assert index.lines(0, 5) == ["one", "two", "three"]


def test_mixed_endings_count_line_feeds_and_keep_lone_cr_in_the_line(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"a\r\nb\rc\nd\n")
    index = index_of(path)
    assert (index.terminator, index.total_lines) == ("\n", 3)
    assert index.lines(0, 3) == ["a", "b\rc", "d"]


def test_last_line_without_line_end_counts_and_empty_file_has_none(tmp_path):
    (tmp_path / "a").write_text("x\ny")
    (tmp_path / "b").write_bytes(b"")
    assert index_of(tmp_path / "a").total_lines == 2
    assert index_of(tmp_path / "b").total_lines == 0
    assert index_of(tmp_path / "b").lines(0, 10) == []


def test_utf16_file_is_indexed_in_code_units(tmp_path):
    path = tmp_path / "wide.txt"
    lines = [f"línea {n} \U0001f600 \u0a0a" for n in range(5_000)]
    path.write_bytes(
        "\ufeff".encode("utf-16-le") + "\n".join(lines).encode("utf-16-le")
    )
    index = index_of(path)
    assert index.total_lines == len(lines)
    assert index.lines(4_000, 3) == lines[4_000:4_003]


def test_a_legacy_text_is_indexed_in_the_encoding_it_was_read_in(tmp_path):
    path = tmp_path / "cyrillic.txt"
    lines = [f"строка {n} — всё хорошо" for n in range(60_000)]
    path.write_bytes("\n".join(lines).encode("cp1251", "replace"))
    index = index_of(path, encoding=TextEncoding("cp1251"))
    assert index.total_lines == len(lines)
    expected = [line.encode("cp1251", "replace").decode("cp1251") for line in lines]
    assert index.lines(45_000, 3) == expected[45_000:45_003]
    assert index.find("строка 59999") is not None


def test_a_huge_line_is_cut_with_a_mark(tmp_path):
    path = tmp_path / "huge.txt"
    path.write_bytes(b"short\n" + b"y" * (5 * BLOCK_BYTES) + b"\nend\n")
    index = index_of(path)
    got = index.lines(0, 3, max_line_chars=100)
    assert got[0] == "short" and got[2] == "end"
    assert got[1] == "y" * 100 + CUT_MARK


def test_find_forward_and_backward_across_blocks(many_lines):
    path, lines = many_lines
    index = index_of(path)
    target = 15_000
    column = lines[target].index(":")
    needle = f"{target}:"
    assert index.find(needle) == (target, 0)
    assert index.find(needle.upper() + " WÖRD", 0) == (
        (target, 0) if "wörd" in lines[target] else None
    )
    assert index.find(needle, target + 1) is None
    assert index.find(needle, 19_999, backward=True) == (
        target,
        column - len(str(target)),
    )
    assert index.find(needle, target, start_column=1) is None
    assert index.find("WÖRD", 0, case_sensitive=True) is None


def test_find_next_on_the_same_line_uses_the_column(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("abc abc\nabc\n")
    index = index_of(path)
    assert index.find("abc", 0, start_column=1) == (0, 4)
    assert index.find("abc", 0, start_column=5) == (1, 0)
    assert index.find("abc", 1, start_column=0, backward=True) == (0, 4)
    assert index.find("abc", 0, start_column=4, backward=True) == (0, 0)


@pytest.mark.parametrize("edge", [BLOCK_BYTES, _SEARCH_BYTES])
def test_find_catches_a_match_straddling_a_block_cut_in_a_long_line(tmp_path, edge):
    path = tmp_path / "long.txt"
    head = b"x" * (edge - 9)
    path.write_bytes(b"first\n" + head + b"NEEDLE" + b"x" * 100 + b"\n")
    index = index_of(path)
    assert index.find("needle") == (1, len(head))
    assert index.find("needle", 2, backward=True) == (1, len(head))


def test_backward_find_catches_a_match_straddling_a_block_start(tmp_path):
    path = tmp_path / "long.txt"
    # The last 1 MiB block begins three bytes into the needle.
    path.write_bytes(
        b"first\n" + b"x" * 100 + b"NEEDLE" + b"x" * (BLOCK_BYTES - 3) + b"\n"
    )
    index = index_of(path)
    assert index.find("needle", 2, backward=True) == (1, 100)


def test_find_refuses_a_needle_with_a_line_end(many_lines):
    with pytest.raises(ValueError):
        index_of(many_lines[0]).find("a\nb")


def test_build_reports_progress_and_can_be_cancelled(many_lines):
    path, _ = many_lines
    seen: list[tuple[int, int]] = []
    index_of(path, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (path.stat().st_size, path.stat().st_size)
    with pytest.raises(BuildCancelledError):
        index_of(path, cancelled=lambda: True)


def test_a_file_that_grows_after_indexing_stops_reads(many_lines):
    path, _ = many_lines
    index = index_of(path)
    with open(path, "a") as out:
        out.write("more\n")
    with pytest.raises(FenceBrokenError):
        index.lines(100, 10)
    with pytest.raises(FenceBrokenError):
        index.find("anything")


def all_matches(index: LineIndex, needle: str, **kwargs) -> list[tuple[int, int]]:
    found, at = [], (0, 0)
    while (hit := index.find(needle, at[0], start_column=at[1], **kwargs)) is not None:
        found.append(hit)
        at = (hit[0], hit[1] + 1)
    return found


def grep_lines(path, needle: str, *flags: str) -> list[int]:
    """0-based numbers of the lines ``grep -nF`` finds, in the C locale."""
    done = subprocess.run(
        ["grep", "-nF", *flags, "--", needle, str(path)],
        capture_output=True,
        check=False,
        env={**os.environ, "LC_ALL": "C"},
    )
    return [int(line.split(b":", 1)[0]) - 1 for line in done.stdout.splitlines()]


@pytest.mark.skipif(shutil.which("grep") is None, reason="needs grep")
@pytest.mark.parametrize("case_sensitive", [False, True])
def test_find_and_count_agree_with_grep(tmp_path, case_sensitive):
    rng = random.Random(3)
    words = ["Alpha", "alpha", "ALPHA", "béta", "x" * 200, "needl", "eedle"]
    lines = [
        " ".join(rng.choice(words) for _ in range(rng.randint(0, 30)))
        for _ in range(12_000)
    ]
    for number in rng.sample(range(len(lines)), 150):
        at = rng.randrange(len(lines[number]) + 1)
        needle = rng.choice(["needle", "NeEdLe", "needleneedle"])
        lines[number] = lines[number][:at] + needle + lines[number][at:]
    path = tmp_path / "words.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert path.stat().st_size > 2 * BLOCK_BYTES
    index = index_of(path)
    flags = () if case_sensitive else ("-i",)
    found = all_matches(index, "needle", case_sensitive=case_sensitive)
    assert sorted({line for line, _ in found}) == grep_lines(path, "needle", *flags)
    for line, column in found[:50]:
        assert lines[line][column : column + 6].lower() == "needle"
    expected = sum(
        (line if case_sensitive else line.lower()).count("needle") for line in lines
    )
    assert index.count("needle", case_sensitive=case_sensitive) == expected
    assert expected > 50


def test_count_of_a_non_ascii_needle_folds_case_on_text(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("Béta béta BÉTA\nbeta\n" * 50_000, encoding="utf-8")
    index = index_of(path)
    assert index.count("béta") == 150_000
    assert index.count("béta", case_sensitive=True) == 50_000
    assert index.find("BÉTA", 1) == (2, 0)


@pytest.mark.parametrize("edge", [BLOCK_BYTES, _SEARCH_BYTES])
def test_count_catches_a_match_straddling_a_block_cut_in_a_long_line(tmp_path, edge):
    path = tmp_path / "long.txt"
    head = b"x" * (edge - 10)
    path.write_bytes(b"needle\n" + head + b"NEEDLE" + b"x" * 100 + b"\nneedle")
    index = index_of(path)
    assert index.count("needle") == 3
    assert index.count("needle", case_sensitive=True) == 2
    assert all_matches(index, "needle") == [(0, 0), (1, len(head)), (2, 0)]


def test_a_needle_that_overlaps_itself_is_counted_as_bytes_count_does(tmp_path):
    """Matches taken left to right, never twice across a read's edge."""
    path = tmp_path / "runs.txt"
    data = b"ab\n" + b"a" * (2 * _SEARCH_BYTES + 5) + b"\n" + b"aXa" * 1000 + b"aaa"
    path.write_bytes(data)
    index = index_of(path)
    for needle in ("aa", "aaa", "aXa"):
        expected = sum(line.count(needle.encode()) for line in data.split(b"\n"))
        assert index.count(needle) == expected, needle
        assert index.count(needle, case_sensitive=True) == expected, needle


def test_a_match_after_a_read_edge_inside_a_character_has_its_column(tmp_path):
    path = tmp_path / "wide.txt"
    # Three-byte characters: the edge of the second read falls inside one.
    head = "€" * (_SEARCH_BYTES // 3 + 5)
    assert len(head.encode()) % _SEARCH_BYTES != 0
    path.write_text("top\n" + head + "needle\n", encoding="utf-8")
    index = index_of(path)
    assert index.find("NEEDLE") == (1, len(head))
    assert index.count("needle") == 1


def test_count_reports_progress_and_can_be_cancelled(many_lines):
    path, _ = many_lines
    index = index_of(path)
    seen: list[tuple[int, int]] = []
    assert index.count("wörd", progress=lambda d, t: seen.append((d, t))) > 0
    assert seen[-1][0] == seen[-1][1] == path.stat().st_size
    with pytest.raises(BuildCancelledError):
        index.count("word", cancelled=lambda: True)
    with pytest.raises(ValueError):
        index.count("a\rb")


@pytest.fixture
def several_blocks(tmp_path):
    """About 6 MiB: lines of varied length, a stretch of empty lines, CRLF ends."""
    rng = random.Random(11)
    lines = [f"{n}: " + "x" * rng.randint(0, 400) for n in range(20_000)]
    lines[9_000:9_000] = [""] * 300_000  # dense line ends across block edges
    path = tmp_path / "blocks.log"
    path.write_bytes("\r\n".join(lines).encode() + b"\r\n")
    assert path.stat().st_size > 4 * BLOCK_BYTES
    return path, lines


def test_lookups_in_every_block_agree_with_the_bytes(several_blocks, monkeypatch):
    import app.formats.line_index as line_index

    monkeypatch.setattr(line_index, "_KEPT_BLOCKS", 2)  # blocks are counted again
    path, lines = several_blocks
    data = path.read_bytes()
    starts = [0, *[at + 1 for at in range(len(data)) if data[at] == 10][:-1]]
    index = index_of(path)
    assert index.total_lines == len(lines) == len(starts)
    rng = random.Random(3)
    picked = rng.sample(range(len(lines)), 400)
    for line in [0, 1, 8_999, 9_000, 309_000, len(lines) - 1, *picked]:
        assert index.offset_of_line(line) == starts[line], line
        assert index.line_at_offset(starts[line]) == line
    for edge in range(0, len(data), BLOCK_BYTES // 2):
        assert index.line_at_offset(edge) == data.count(b"\n", 0, edge)
    assert index.lines(309_000, 3) == lines[309_000:309_003]
    assert len(index._slots_of) <= 2


def test_line_ends_that_begin_after_the_first_blocks_are_counted(tmp_path):
    path = tmp_path / "late.txt"
    head = b"z" * (2 * BLOCK_BYTES + 77)
    path.write_bytes(head + b"\nsecond\nthird")
    index = index_of(path)
    assert index.total_lines == 3
    assert index.offset_of_line(1) == len(head) + 1
    assert index.lines(1, 5) == ["second", "third"]
    assert index.line_at_offset(BLOCK_BYTES + 5) == 0


def test_a_local_file_is_counted_on_two_threads(several_blocks, monkeypatch):
    import app.formats.line_index as line_index

    used = record_threads(monkeypatch, line_index)
    path, lines = several_blocks
    assert index_of(path).total_lines == len(lines)
    assert used == [2]


def grep_matches(path, needle: str, *flags: str) -> int:
    """How many matches ``grep -oF`` prints, in the C locale (bytes, ASCII folding)."""
    done = subprocess.run(
        ["grep", "-oF", *flags, "--", needle, str(path)],
        capture_output=True,
        check=False,
        env={**os.environ, "LC_ALL": "C"},
    )
    return len(done.stdout.splitlines())


@pytest.mark.skipif(
    shutil.which("grep") is None or shutil.which("wc") is None,
    reason="needs grep and wc",
)
def test_crlf_kelvin_and_no_final_newline_agree_with_grep_and_wc(tmp_path):
    rng = random.Random(11)
    words = ["Kelvin", "\u212aelvin", "kELVIN", "k\u00e9lvin", "K", "\u212a", "xyz"]
    lines = [
        " ".join(rng.choice(words) for _ in range(rng.randint(0, 40)))
        for _ in range(30_000)
    ]
    path = tmp_path / "crlf.log"
    path.write_bytes("\r\n".join(lines).encode())  # no line end after the last
    assert path.stat().st_size > 3 * BLOCK_BYTES
    index = index_of(path)
    wc = subprocess.run(["wc", "-l", str(path)], capture_output=True, check=True)
    assert index.total_lines == int(wc.stdout.split()[0]) + 1 == len(lines)
    for needle in ("kelvin", "k", "K", "LVIN"):
        for case_sensitive, flags in ((False, ("-i",)), (True, ())):
            expected = grep_matches(path, needle, *flags)
            assert index.count(needle, case_sensitive=case_sensitive) == expected
    # The Kelvin sign is not "k" when case is ignored, as in grep's C locale.
    text = "\r\n".join(lines)
    assert index.count("kelvin") == text.encode().lower().count(b"kelvin")
    assert index.count("kelvin") < text.casefold().count("kelvin")
    last = max(n for n, line in enumerate(lines) if "kELVIN" in line)
    found = index.find("kELVIN", len(lines), backward=True, case_sensitive=True)
    assert found is not None and found[0] == last
    assert index.lines(len(lines) - 1, 1) == [lines[-1]]
