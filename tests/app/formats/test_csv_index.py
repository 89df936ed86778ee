"""CSV/TSV: sniffing, the quote-aware row index, odd rows, sort and TSV copy."""

from __future__ import annotations

import csv
import io
import random

import pytest

from app.core.trust.safeio import open_verified
from app.formats.csv_index import (
    CsvError,
    CsvFile,
    CsvIndex,
    _nth_row_end,
    _row_end,
    _scan,
    cells_to_tsv,
    sniff_format,
)
from app.formats.text_pages import BuildCancelledError, FenceBrokenError

from .conftest import record_threads


def table(path, name=None) -> CsvFile:
    return CsvFile(open_verified(str(path)), name=name or path.name)


def write_rows(path, rows, delimiter=",", lineterminator="\r\n") -> None:
    buffer = io.StringIO(newline="")
    csv.writer(buffer, delimiter=delimiter, lineterminator=lineterminator).writerows(
        rows
    )
    path.write_bytes(buffer.getvalue().encode())


@pytest.fixture
def quoted_rows(tmp_path):
    """About 600 KiB with quoted newlines, escapes and commas across checkpoints."""
    rng = random.Random(3)
    notes = ["plain", 'say ""hi""', "two\nlines", "a, b", "", "x\n\n\ny", 'q"']
    rows = [["id", "name", "note", "amount"]]
    rows += [
        [
            str(n),
            f"name {n}",
            rng.choice(notes) * rng.randint(1, 4),
            f"{rng.random():.3f}",
        ]
        for n in range(12_000)
    ]
    path = tmp_path / "quoted.csv"
    write_rows(path, rows)
    return path, rows


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_delimiter_is_sniffed(delimiter):
    rows = [["name", "city", "count"]] + [[f"n{i}", f"c{i}", str(i)] for i in range(30)]
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter).writerows(rows)
    found = sniff_format(buffer.getvalue(), "data.csv")
    assert (found.delimiter, found.columns, found.has_header) == (delimiter, 3, True)


def test_tsv_name_prefers_tab_and_headerless_data_is_seen():
    text = "".join(f"{i}\t{i * 2},5\t{i * 3}\n" for i in range(40))
    found = sniff_format(text, "numbers.tsv")
    assert (found.delimiter, found.has_header) == ("\t", False)


def test_rows_match_the_csv_module_across_checkpoints(quoted_rows):
    path, rows = quoted_rows
    data = table(path)
    index = CsvIndex.build(data)
    assert data.header == tuple(rows[0])
    assert index.row_count == len(rows) - 1
    assert index.warnings == ()
    for first in (0, 1, 2_345, 7_777, 11_990):
        got = [list(row.cells) for row in index.rows(first, 60)]
        assert got == rows[1 + first : 61 + first]
    assert [list(r.cells) for r in data.head_rows(60)] == rows[1:61]


def _parity_scan(segment: bytes, inside: bool) -> tuple[int, bool]:
    """The rule itself, byte by byte: a newline outside quotes ends a row."""
    ends = 0
    for byte in segment:
        if byte == ord('"'):
            inside = not inside
        elif byte == ord("\n") and not inside:
            ends += 1
    return ends, inside


@pytest.mark.parametrize("inside", [False, True])
def test_segment_scan_matches_the_quote_parity_rule(inside):
    rng = random.Random(11)
    pieces = [b"a", b",", b"\n", b'"', b'""', b"\r\n", b"xyz"]
    for _ in range(300):
        segment = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 80)))
        assert _scan(segment, inside) == _parity_scan(segment, inside), segment


def test_unquoted_rows_parse_exactly_like_the_csv_module(tmp_path):
    text = "a,b,c\r\n1,,3\n,,\nonly\n4,5,6,7\n\nx\ry,z,w\r\r\nlast,row,end"
    path = tmp_path / "plain.csv"
    path.write_bytes(text.encode())
    data = table(path)
    rows = CsvIndex.build(data).rows(0, 100)
    # What ``csv`` reads for each row's bytes, padded to three cells; a lone CR
    # splits a record, so that row is ragged.
    assert [(row.cells, row.ragged) for row in rows] == [
        (("1", "", "3"), False),
        (("", "", ""), False),
        (("only", "", ""), True),
        (("4", "5", "6", "7"), True),
        (("", "", ""), True),
        (("x", "y", "z", "w"), True),
        (("last", "row", "end"), False),
    ]


def test_ragged_rows_are_padded_and_flagged(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("a,b,c\n1,2,3\n4,5\n6,7,8,9\n")
    index = CsvIndex.build(table(path))
    got = index.rows(0, 3)
    assert [row.ragged for row in got] == [False, True, True]
    assert got[1].cells == ("4", "5", "")
    assert got[2].cells == ("6", "7", "8", "9")


def test_a_field_over_the_default_csv_limit_parses(tmp_path):
    path = tmp_path / "big.csv"
    big = "z" * (131_072 + 10)  # the csv module's default field limit
    write_rows(path, [["k", "v"], ["1", big], ["2", "small"]])
    index = CsvIndex.build(table(path))
    assert index.rows(0, 2)[0].cells == ("1", big)
    assert index.rows(1, 1)[0].cells == ("2", "small")


def test_unbalanced_quote_warns_and_keeps_the_rows_before_it(tmp_path):
    path = tmp_path / "broken.csv"
    path.write_text('a,b\n1,2\n3,"never closed\n4,5\n6,7\n')
    data = table(path)
    index = CsvIndex.build(data)
    assert index.row_count == 2
    assert "never closed" in index.warnings[0]
    first, rest = index.rows(0, 5)
    assert first.cells == ("1", "2")
    assert rest.cells[0] == "3" and "6,7" in rest.cells[1]
    assert len(data.head_rows(10)) == 2


def test_no_trailing_newline_and_empty_file(tmp_path):
    (tmp_path / "a.csv").write_text("x,y\n1,2\n3,4")
    (tmp_path / "e.csv").write_bytes(b"")
    assert CsvIndex.build(table(tmp_path / "a.csv")).rows(1, 5)[0].cells == ("3", "4")
    empty = CsvIndex.build(table(tmp_path / "e.csv"))
    assert (empty.row_count, empty.rows(0, 5)) == (0, [])


def test_bom_is_skipped_and_utf16_is_refused_with_a_reason(tmp_path):
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbfname,n\nx,1\ny,2\n")
    assert table(tmp_path / "bom.csv").header == ("name", "n")
    (tmp_path / "wide.csv").write_bytes("\ufeffa,b\n1,2\n".encode("utf-16-le"))
    with pytest.raises(CsvError, match="UTF-16"):
        table(tmp_path / "wide.csv")


def test_sort_is_numeric_aware_with_empty_cells_last(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("v\n10\n9\n\nbanana\n100\nApple\n-1\n")
    index = CsvIndex.build(table(path))
    values = [row.cells[0] for row in index.rows(0, 10)]
    ascending = [values[n] for n in index.sorted_order(0)]
    descending = [values[n] for n in index.sorted_order(0, descending=True)]
    assert ascending == ["-1", "9", "10", "100", "Apple", "banana", ""]
    assert descending == ["banana", "Apple", "100", "10", "9", "-1", ""]


def test_tsv_copy_defuses_formulas_and_quotes_special_cells():
    text = cells_to_tsv([["=SUM(A1)", "+1", "-2", "@x", "\tx", "ok"], ['a"b', "c\nd"]])
    first, second = text.split("\n", 1)
    assert first == "'=SUM(A1)\t'+1\t'-2\t'@x\t\"'\tx\"\tok"
    assert second == '"a""b"\t"c\nd"'


def test_index_build_cancels_and_fence_stops_rows(quoted_rows):
    path, _ = quoted_rows
    with pytest.raises(BuildCancelledError):
        CsvIndex.build(table(path), cancelled=lambda: True)
    index = CsvIndex.build(table(path))
    with open(path, "a") as out:
        out.write("1,2,3,4\n")
    with pytest.raises(FenceBrokenError):
        index.rows(10, 5)


def all_found(index, needle, limit=40, **kwargs):
    found, row = [], 0
    while len(found) < limit and (hit := index.find(needle, row, **kwargs)):
        found.append(hit)
        row = hit[0] + 1
    return found


def expected_cells(rows, needle, fold=True):
    """(data row, first column holding the needle) by the csv module's rows."""
    want = needle.lower() if fold else needle
    found = []
    for number, row in enumerate(rows[1:]):
        for column, cell in enumerate(row):
            if want in (cell.lower() if fold else cell):
                found.append((number, column))
                break
    return found


@pytest.mark.parametrize("needle", ["TWO\nLINES", "Name 117", "a, b", "ß", 'say ""hi'])
def test_find_returns_the_cells_the_csv_module_reads(quoted_rows, needle):
    path, rows = quoted_rows
    rows = [*rows]
    rows[5000][1] = "Straße"  # one non-ASCII cell, found by the slower path
    write_rows(path, rows)
    index = CsvIndex.build(table(path))
    want = expected_cells(rows, needle)
    assert want
    assert all_found(index, needle) == want[:40]
    last = want[-1]
    assert index.find(needle, index.row_count, backward=True) == last
    if len(want) > 1:
        assert index.find(needle, last[0], backward=True) == want[-2]


def test_find_case_and_header_and_bounds(quoted_rows):
    path, _ = quoted_rows
    index = CsvIndex.build(table(path))
    assert index.find("NAME 7", 0, case_sensitive=True) is None
    assert index.find("name 7", 0, case_sensitive=True) == (7, 1)
    # "amount" is only in the header, which is not a data row.
    assert index.find("amount") is None
    assert index.find("amount", 12_000, backward=True) is None
    assert index.find("name 11999", 11_999) == (11_999, 1)
    assert index.find("name 0", 1, backward=True) == (0, 1)
    with pytest.raises(ValueError):
        index.find("")
    with pytest.raises(BuildCancelledError):
        index.find("nothing here", cancelled=lambda: True)


def test_a_single_row_table_has_no_header(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("name,age\n\n")
    found = table(path)
    assert found.header is None and not found.format.has_header
    assert [row.cells for row in found.head_rows(5)] == [("name", "age"), ("",) * 2]


def test_lone_cr_line_ends_are_a_csv_error(tmp_path):
    path = tmp_path / "mac.csv"
    path.write_bytes(b"a,b\r1,2\r")
    with pytest.raises(CsvError, match="carriage return alone"):
        table(path)


def _row_by_row(data: bytes, count: int, inside: bool) -> int:
    """The rule itself: step row end by row end (a leading quote if inside)."""
    probe = b'"' if inside else b""
    data, position = probe + data, 0
    for _ in range(count):
        position = _row_end(data, position)
        if position < 0:
            return -1
    return position - len(probe)


@pytest.mark.parametrize("inside", [False, True])
def test_the_nth_row_end_is_where_stepping_row_by_row_lands(inside):
    rng = random.Random(5)
    pieces = [b"a", b",", b"\n", b'"', b'""', b"\r\n", b"xyz", b'"x\ny"']
    for _ in range(300):
        segment = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 80)))
        for count in range(1, 8):
            assert _nth_row_end(segment, count, inside) == _row_by_row(
                segment, count, inside
            ), (segment, count)


def test_every_record_starts_where_the_csv_module_reads_it(quoted_rows):
    path, rows = quoted_rows
    data = table(path)
    index = CsvIndex.build(data)
    raw = path.read_bytes()
    # Every record's offset, across every checkpoint (some start in quotes).
    starts = [index.offset_of_record(record) for record in range(1, len(rows))]
    assert starts == sorted(starts) and starts[0] == raw.index(b"\n") + 1
    for record in (1, 2, 999, 5_000, len(rows) - 1):
        line = raw[starts[record - 1] :].split(b"\r\n", 1)[0].decode()
        assert next(csv.reader(io.StringIO(line)))[0] == rows[record][0]


@pytest.mark.parametrize("inside", [False, True])
def test_a_large_segment_scans_like_the_parity_rule_from_either_side(inside):
    rng = random.Random(5)
    pieces = [b"abc,", b"12.5,", b"\n", b'"', b'""', b"\r\n", b'"x\ny"']
    quoted = b"".join(rng.choice(pieces) for _ in range(20_000))
    plain = b"1,2,3\n" * 5_000
    for segment in (quoted, plain, plain + b'"' + plain):
        assert len(segment) > 16 * 1024  # counted through the histogram
        assert _scan(segment, inside) == _parity_scan(segment, inside)


def test_blocks_with_and_without_quotes_chain_across_block_edges(tmp_path, monkeypatch):
    import app.formats.csv_index as csv_index

    used = record_threads(monkeypatch, csv_index)
    rows = [["id", "note"]]
    rows += [[str(n), "plain"] for n in range(150_000)]  # over a block, no quote
    rows += [[str(n), "line one\n" * 60_000] for n in range(2)]  # over block edges
    rows += [[str(n), 'say "hi", twice'] for n in range(100_000)]
    rows += [[str(n), "plain again"] for n in range(100_000)]
    path = tmp_path / "mixed.csv"
    write_rows(path, rows)
    assert path.stat().st_size > 4 * csv_index.BLOCK_BYTES
    data = table(path)
    index = CsvIndex.build(data)
    assert used == [2]
    assert index.row_count == len(rows) - 1
    for first in (0, 149_998, 150_000, 150_001, 250_001, len(rows) - 3):
        got = [list(row.cells) for row in index.rows(first, 3)]
        assert got == rows[1 + first : 4 + first], first
