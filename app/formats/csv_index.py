"""CSV and TSV: dialect and header sniffing, a quote-aware row index, row parsing.

Rows are parsed by the ``csv`` module, but only the rows a view asks for, on the
exact bytes of those rows. Where each row begins comes from a byte-level scan the
``csv`` module cannot do (it would parse every field, about 10 s per GiB): a
newline ends a row unless an odd number of quotes precede it in the row, which is
RFC 4180 quoting, ``""`` escapes included. Like ``LineIndex``, the index stores
one row count and one in-quotes flag per 64 KiB, never a list of rows.

A quote that is never closed makes the rest of the file one row; the index says so
in ``warnings`` and a row longer than ``MAX_ROW_BYTES`` is parsed from its start
only and flagged ``truncated``. Files must be UTF-8 (a BOM is skipped). Rows end
at LF (so CRLF too); a file whose lines end with a lone CR is refused with a
``CsvError`` that says so (the index would see one long row). A table of one
row shows it as data, not as a header over no rows.
"""

from __future__ import annotations

import bisect
import csv
import dataclasses
import io
import math
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass

from app.core.trust.safeio import VerifiedFile
from app.formats import byte_find
from app.formats.byte_count import count_byte, in_order
from app.formats.csv_header import plainly_header
from app.formats.encoding import UTF8, detect_encoding
from app.formats.text_pages import (
    BuildCancelledError,
    Cancelled,
    FencedReader,
    Progress,
    fenced_reader,
    reads_in_parallel,
)

CHECKPOINT_BYTES = 64 * 1024
BLOCK_BYTES = 1024 * 1024
SAMPLE_BYTES = 64 * 1024
MAX_ROW_BYTES = 8 * 1024 * 1024
SORT_LIMIT_BYTES = 50 * 1024 * 1024
_QUOTE = ord('"')
_LF = ord("\n")
# Everything but the quote and the line feed, for ``bytes.translate``.
_NOT_QUOTE_OR_LF = bytes(b for b in range(256) if b not in b'"\n')
_FIELD_LIMIT_LOCK = threading.Lock()


class CsvError(ValueError):
    """The file cannot be shown as a table; the message says why."""


def _allow_big_fields() -> None:
    """Raise the ``csv`` module's field limit so one row up to MAX_ROW_BYTES parses.

    The limit is process-wide, so it is only ever raised, never restored: putting
    it back while another thread parses would break that thread's rows.
    """
    with _FIELD_LIMIT_LOCK:
        if csv.field_size_limit() < MAX_ROW_BYTES:
            csv.field_size_limit(MAX_ROW_BYTES)


@dataclass(frozen=True)
class CsvFormat:
    """How a table is written: delimiter, quote, header, usual cell count."""

    delimiter: str
    has_header: bool
    columns: int
    quotechar: str = '"'


_DELIMITERS = ",\t;|"
# csv.Sniffer gets slow (it tries regexes over the whole text) and guesses worse
# on long samples, so it sees only this much; the check below uses the full sample.
# Its regexes are quadratic on quote-heavy text and each is one call that holds
# the interpreter lock: 16 KiB of unclosed quotes held it 1.5 s (the GUI thread
# froze), 4 KiB 0.1 s.
_SNIFF_CHARS = 4 * 1024


def _shape(rows: list[list[str]]) -> tuple[int, float]:
    """The most common cell count and the share of rows that have it."""
    counts = Counter(len(row) for row in rows if row)
    if not counts:
        return 0, 0.0
    columns, seen = counts.most_common(1)[0]
    return columns, seen / sum(counts.values())


def _parse_sample(sample: str, delimiter: str) -> list[list[str]]:
    try:
        return list(csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter))
    except csv.Error:
        return []


def _looks_numeric(cell: str) -> bool:
    try:
        float(cell.replace(",", ""))
    except ValueError:
        return False
    return True


def _guess_header(rows: list[list[str]]) -> bool:
    """Fallback: a first row of distinct, non-empty, non-numeric cells over data
    that has a numeric column, or that differs from the rows below it."""
    if len(rows) < 2 or not rows[0]:
        return False
    first = rows[0]
    if any(not cell.strip() or _looks_numeric(cell) for cell in first):
        return False
    if len(set(first)) != len(first):
        return False
    body = rows[1:]
    for column in range(len(first)):
        values = [row[column] for row in body if column < len(row) and row[column]]
        if values and sum(map(_looks_numeric, values)) * 2 >= len(values):
            return True
    return not any(row[: len(first)] == first for row in body)


def sniff_format(sample: str, name: str = "") -> CsvFormat:
    """Guess delimiter (``,`` tab ``;`` ``|``) and header from a bounded sample.

    ``csv.Sniffer`` answers first; its guess is kept only if parsing the sample
    with it gives a steady cell count above one. Otherwise each candidate is
    scored by that steadiness. A ``.tsv`` or ``.tab`` name tries tab first.
    """
    short = sample[:_SNIFF_CHARS]
    if len(sample) > _SNIFF_CHARS and "\n" in short:
        short = short[: short.rfind("\n") + 1]
    candidates = list(_DELIMITERS)
    if name.lower().endswith((".tsv", ".tab")):
        candidates.insert(0, "\t")
    else:
        try:
            guessed = csv.Sniffer().sniff(short, delimiters=_DELIMITERS).delimiter
            candidates.insert(0, guessed)
        except csv.Error:
            pass  # no clear answer; the scores below decide
    shapes = {d: _shape(_parse_sample(short, d)) for d in dict.fromkeys(candidates)}
    steady = [d for d, (cols, share) in shapes.items() if cols > 1 and share >= 0.9]
    if steady:
        delimiter = steady[0]
    else:
        delimiter = max(shapes, key=lambda d: (shapes[d][0] > 1, shapes[d][1]))
    rows = _parse_sample(short, delimiter)
    if plainly_header(rows):
        return CsvFormat(delimiter, True, max(shapes[delimiter][0], 1))
    try:
        has_header = csv.Sniffer().has_header(short)
    except csv.Error:
        has_header = _guess_header(rows)
    if has_header and rows and len(rows[0]) < 2 <= shapes[delimiter][0]:
        has_header = False  # the sniffer's header guess used another delimiter
    return CsvFormat(delimiter, has_header, max(shapes[delimiter][0], 1))


@dataclass(frozen=True)
class Row:
    """One table row; ``ragged`` rows had another cell count and were padded."""

    cells: tuple[str, ...]
    ragged: bool = False
    truncated: bool = False


def _row_end(data: bytes, start: int) -> int:
    """The offset just past the first row end at or after ``start``, or -1.

    ``start`` is a row start, so it is outside quotes.
    """
    quotes = 0
    position = start
    while True:
        newline = data.find(b"\n", position)
        if newline == -1:
            return -1
        quotes += data.count(b'"', position, newline)
        if quotes % 2 == 0:
            return newline + 1
        position = newline + 1


def _scan_both(segment: bytes) -> tuple[int, int, bool]:
    """Row ends in ``segment`` from either side of a quote, and whether it flips sides.

    Returns the row ends if the segment starts outside quotes, those if it
    starts inside, and whether it ends on the other side than it began. Neither
    depends on the segment before, so blocks can be scanned in any order.

    Only quotes and line feeds matter, so the rest is deleted; adjacent quote
    pairs (closed fields, ``""`` escapes) cannot change which side a newline is on
    and are dropped too. What remains is short, and empty of quotes in the usual
    case where no field holds a newline.
    """
    if _QUOTE not in segment:
        return count_byte(segment, _LF), 0, False
    reduced = segment.translate(None, _NOT_QUOTE_OR_LF)
    # The reduced form keeps every line feed and is far shorter: count there.
    newlines = reduced.count(b"\n")
    compact = reduced.replace(b'""', b"")
    if _QUOTE not in compact:
        return newlines, 0, False
    parts = compact.split(b'"')
    # Parts alternate outside/inside quotes; join the outside ones and count once,
    # rather than one Python step per quote.
    outside = b"".join(parts[0::2]).count(b"\n")
    return outside, newlines - outside, len(parts) % 2 == 0


def _scan(segment: bytes, inside: bool) -> tuple[int, bool]:
    """Row ends in ``segment`` and whether it ends inside quotes."""
    from_outside, from_inside, flips = _scan_both(segment)
    return (from_inside if inside else from_outside), inside ^ flips


def _block_scanner(
    reader: FencedReader,
) -> Callable[[int], list[tuple[int, int, bool]]]:
    """``_scan_both`` of each checkpoint of the block at an offset (any thread)."""

    one_at_a_time = threading.Lock()

    def scan(offset: int) -> list[tuple[int, int, bool]]:
        block = reader.read(BLOCK_BYTES, offset)
        parts = range(0, len(block), CHECKPOINT_BYTES)
        if _QUOTE not in block:  # line feeds only: counted off the lock
            return [
                (count_byte(block, _LF, at, at + CHECKPOINT_BYTES), 0, False)
                for at in parts
            ]
        # Quoted blocks hold the interpreter lock throughout; two threads taking
        # turns at it only cost more (about 15 %), so they take turns here.
        with one_at_a_time:
            return [_scan_both(block[at : at + CHECKPOINT_BYTES]) for at in parts]

    return scan


def _nth_row_end(data: bytes, count: int, inside: bool) -> int:
    """The offset just past the ``count``-th row end in ``data``, or -1.

    ``inside`` says ``data`` starts inside quotes. The quotes-and-line-feeds
    form of ``_scan`` tells which line feed ends that row; one split finds
    where it is. Skipping row by row took a Python step per row: about 700
    for each jump into a 64 KiB checkpoint, the most of a scrolled frame.
    """
    reduced = data.translate(None, _NOT_QUOTE_OR_LF).replace(b'""', b"")
    outside = not inside
    before = ends = 0  # line feeds before this part, and row ends among them
    for part in reduced.split(b'"'):
        feeds = part.count(b"\n")
        if outside and ends + feeds >= count:
            ordinal = before + count - ends  # that line feed's number, from 1
            pieces = data.split(b"\n", ordinal)
            return len(data) - len(pieces[-1]) if len(pieces) > ordinal else -1
        if outside:
            ends += feeds
        before += feeds
        outside = not outside
    return -1


class CsvFile:
    """An opened CSV or TSV: its format, header and first rows, before any index."""

    def __init__(
        self,
        file: VerifiedFile,
        *,
        name: str = "",
        path: str | None = None,
        header: bool | None = None,
    ):
        self.reader = fenced_reader(file, path)
        self.local = reads_in_parallel(file)
        """A file on this machine: its blocks may be read on two threads at once."""
        head = self.reader.read(SAMPLE_BYTES, 0)
        encoding = detect_encoding(head)
        if encoding.codec != UTF8.codec:
            raise CsvError(f"Tables are read as UTF-8; this file is {encoding.name}.")
        self.data_start = len(encoding.bom)
        sample = head[self.data_start :]
        if len(head) < self.reader.size:
            sample = sample[: sample.rfind(b"\n") + 1] or sample
        if b"\r" in sample and b"\n" not in sample:
            raise CsvError(
                "Its lines end with a carriage return alone (an old Mac format), "
                "which the table view does not read; Show source shows it as text."
            )
        self.format: CsvFormat = sniff_format(sample.decode("utf-8", "replace"), name)
        self.header: tuple[str, ...] | None = None
        self.first_row = self.data_start
        self.column_count = self.format.columns
        self._not_plain = (self.format.quotechar, "\r", "\n", "\0")
        _allow_big_fields()
        # ``header`` is the reader's own choice ("First row is header"), if made;
        # else a table of one row is data, not a header over no rows.
        if header is None and self.format.has_header and self._only_one_row():
            self.format = dataclasses.replace(self.format, has_header=False)
        if self.format.has_header if header is None else header:
            end = self._next_end(self.data_start)
            names = self._read_row(self.data_start, end)
            self.header = names.cells[: max(self.column_count, 1)]
            self.first_row = min(end, self.reader.size)

    def _only_one_row(self) -> bool:
        """Whether nothing but blank lines follows the first row."""
        end = min(self._next_end(self.data_start), self.reader.size)
        remaining = self.reader.size - end
        if remaining > SAMPLE_BYTES:
            return False
        return not self.reader.read(remaining, end).strip()

    def _next_end(self, start: int) -> int:
        """Where the row at ``start`` ends: quote-aware, read forward in blocks.

        Gives up after MAX_ROW_BYTES and answers ``start + MAX_ROW_BYTES + 1``.
        """
        quotes_before = 0
        position = start
        while position < min(self.reader.size, start + MAX_ROW_BYTES):
            block = self.reader.read(BLOCK_BYTES, position)
            # Odd quotes so far: a quote in front keeps the parity of the scan.
            probe = (b'"' if quotes_before % 2 else b"") + block
            end = _row_end(probe, 0)
            if end != -1:
                return position + end - (len(probe) - len(block))
            quotes_before += block.count(b'"')
            position += len(block)
        return min(self.reader.size, start + MAX_ROW_BYTES + 1)

    def _read_row(self, start: int, end: int) -> Row:
        truncated = end - start > MAX_ROW_BYTES
        return self._row(
            self.reader.read(min(end - start, MAX_ROW_BYTES), start), truncated
        )

    def _row(self, data: bytes, truncated: bool = False) -> Row:
        """Parse the bytes of one row and pad it to the table's cell count."""
        text = data.decode("utf-8", "replace")
        line = text.removesuffix("\n").removesuffix("\r")
        if line and not any(char in line for char in self._not_plain):
            # No quote, CR, LF or NUL: ``csv`` would split at the delimiter alone.
            cells = tuple(line.split(self.format.delimiter))
            missing = max(self.column_count - len(cells), 0)
            ragged = len(cells) != self.column_count
            return Row(cells + ("",) * missing, ragged, truncated)
        try:
            records = list(
                csv.reader(
                    io.StringIO(text, newline=""),
                    delimiter=self.format.delimiter,
                    quotechar=self.format.quotechar,
                )
            )
        except csv.Error:
            records = [[text.rstrip("\r\n")]]
        # A quote inside an unquoted field (``5" screen``) is literal to ``csv`` but
        # opens quotes to the RFC 4180 scan; such a range can hold several records.
        cells = tuple(cell for record in records for cell in record)
        missing = max(self.column_count - len(cells), 0)
        ragged = len(records) > 1 or len(cells) != self.column_count
        return Row(cells + ("",) * missing, ragged, truncated)

    def _rows_from(
        self, start: int, count: int, end_of: Callable[[int, int], int]
    ) -> list[Row]:
        """``count`` rows from row start ``start``, read in windows of 64 KiB.

        A row longer than a window is found with ``end_of(row number, start)``.
        """
        rows: list[Row] = []
        position = start
        while len(rows) < count and position < self.reader.size:
            data = self.reader.read(SAMPLE_BYTES, position)
            used = 0
            while len(rows) < count:
                end = _row_end(data, used)
                if end == -1:
                    break
                rows.append(self._row(data[used:end]))
                used = end
            if used == 0:  # a long row, or the last one without a line end
                end = end_of(len(rows), position)
                if end <= position:  # nothing left to read
                    break
                rows.append(self._read_row(position, end))
                used = end - position
            position += used
        return rows

    def head_rows(self, count: int) -> list[Row]:
        """The first ``count`` data rows, read from the start without an index.

        Stops after a row longer than MAX_ROW_BYTES: without the index, where the
        next row begins is not known.
        """
        rows = self._rows_from(self.first_row, count, self._end_or_stop)
        for number, row in enumerate(rows):
            if row.truncated:
                return rows[: number + 1]
        return rows

    def _end_or_stop(self, _number: int, start: int) -> int:
        end = self._next_end(start)
        return end if end - start <= MAX_ROW_BYTES else self.reader.size


class CsvIndex:
    """Where each row begins, built once in the background; rows parsed on demand."""

    def __init__(
        self, table: CsvFile, counts: array[int], inside: bytearray, records: int
    ) -> None:
        self.table = table
        self._counts = counts
        self._inside = inside
        self._records = records
        skipped = 1 if table.header is not None and records else 0
        self.row_count = records - skipped
        self._first_record = skipped
        self.warnings: tuple[str, ...] = ()
        if inside and inside[-1]:
            self.warnings = (
                f"A quote is never closed: row {self.row_count} runs to the end "
                "of the file.",
            )

    @classmethod
    def build(
        cls,
        table: CsvFile,
        *,
        progress: Progress | None = None,
        cancelled: Cancelled | None = None,
    ) -> CsvIndex:
        """Scan the whole file in 1 MiB reads; ``BuildCancelledError`` if cancelled.

        A local file's blocks are scanned on two threads: the line feeds of a
        block without quotes are counted with the interpreter lock released
        (``byte_count``), and each block's scan is one for either side of a
        quote, chained here in order.
        """
        reader, start = table.reader, table.data_start
        counts, inside_flags = array("Q"), bytearray()
        total, inside = 0, False
        offsets = range(start, reader.size, BLOCK_BYTES)
        threads = 2 if table.local else 1
        with closing(in_order(_block_scanner(reader), offsets, threads)) as scans:
            for offset, block in zip(offsets, scans, strict=True):
                if cancelled is not None and cancelled():
                    raise BuildCancelledError
                for from_outside, from_inside, flips in block:
                    counts.append(total)
                    inside_flags.append(inside)
                    total += from_inside if inside else from_outside
                    inside ^= flips
                if progress is not None:
                    progress(min(offset + BLOCK_BYTES, reader.size), reader.size)
        inside_flags.append(inside)
        if reader.size > start and (inside or reader.read(1, reader.size - 1) != b"\n"):
            total += 1  # the last row has no line end outside quotes
        return cls(table, counts, inside_flags, total)

    def offset_of_record(self, record: int) -> int:
        """Byte offset where record ``record`` (0-based, header included) begins."""
        table = self.table
        if record <= 0:
            return table.data_start
        if record >= self._records:
            return table.reader.size
        slot = bisect.bisect_left(self._counts, record) - 1
        base = table.data_start + slot * CHECKPOINT_BYTES
        data = table.reader.read(CHECKPOINT_BYTES, base)
        wanted = record - int(self._counts[slot])
        position = _nth_row_end(data, wanted, bool(self._inside[slot]))
        if position < 0:  # the fence held, so the index cannot be wrong
            raise AssertionError("row index out of step with its file")
        return base + position

    def record_at_offset(self, offset: int) -> int:
        """The record (0-based, header included) that holds byte ``offset``."""
        table = self.table
        offset = min(max(offset, table.data_start), table.reader.size)
        slot = min(
            (offset - table.data_start) // CHECKPOINT_BYTES, len(self._counts) - 1
        )
        if slot < 0:
            return 0
        base = table.data_start + slot * CHECKPOINT_BYTES
        data = table.reader.read(offset - base, base)
        ends, _ = _scan(data, bool(self._inside[slot]))
        return int(self._counts[slot]) + ends

    def find(
        self,
        needle: str,
        start_row: int = 0,
        *,
        backward: bool = False,
        case_sensitive: bool = False,
        progress: Progress | None = None,
        cancelled: Cancelled | None = None,
    ) -> tuple[int, int] | None:
        """The first data row at or after ``start_row`` with a cell holding
        ``needle`` (the last row before it when ``backward``), as (row, column).

        An ASCII needle is searched in the raw bytes a block at a time (on
        the block's ASCII lower-casing when case does not matter), and only a
        row the bytes match in is parsed, to find the cell; any other needle is
        matched row by row on parsed cells, which is slower; so is a needle with
        a quote, which the file writes doubled (``""``) inside a quoted cell.
        """
        if not needle:
            raise ValueError("Search for some text.")
        search = _CellSearch(self, needle, case_sensitive, progress, cancelled)
        if not needle.isascii() or '"' in needle:
            return search.by_rows(start_row, backward)
        if backward:
            return search.bytes_backward(start_row)
        return search.bytes_forward(start_row)

    def rows(self, first: int, count: int) -> list[Row]:
        """Data rows ``first`` to ``first + count - 1`` (the header is not a row)."""
        first = max(first, 0)
        last = min(first + max(count, 0), self.row_count)
        if first >= last:
            return []
        record = first + self._first_record
        start = self.offset_of_record(record)
        return self.table._rows_from(
            start, last - first, lambda n, _: self.offset_of_record(record + n + 1)
        )

    def sorted_order(self, column: int, descending: bool = False) -> list[int]:
        """Data row numbers ordered by ``column``: numbers by value, then text.

        Empty cells come last either way. Only for files up to SORT_LIMIT_BYTES.
        """
        if self.table.reader.size > SORT_LIMIT_BYTES:
            raise CsvError("Sorting needs the whole table in memory; it is too big.")
        cells = [row.cells[column] for row in self.rows(0, self.row_count)]
        numbers: list[tuple[float, int]] = []
        texts: list[tuple[str, int]] = []
        empty: list[int] = []
        for number, cell in enumerate(cells):
            value = cell.strip()
            if not value:
                empty.append(number)
                continue
            try:
                numeric = float(value)
            except ValueError:
                texts.append((value.casefold(), number))
                continue
            if math.isfinite(numeric):
                numbers.append((numeric, number))
            else:
                texts.append((value.casefold(), number))
        numbers.sort(key=lambda item: item[0], reverse=descending)
        texts.sort(key=lambda item: item[0], reverse=descending)
        ordered = [n for _, n in numbers] + [n for _, n in texts]
        if descending:
            ordered = [n for _, n in texts] + [n for _, n in numbers]
        return ordered + empty


# A leading character that makes a spreadsheet evaluate the cell (OWASP "CSV
# injection", CWE-1236): prefixing a quote keeps it text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class _CellSearch:
    """One run of ``CsvIndex.find``."""

    def __init__(
        self,
        index: CsvIndex,
        needle: str,
        case_sensitive: bool,
        progress: Progress | None,
        cancelled: Cancelled | None,
    ) -> None:
        self.index = index
        self.fold = not case_sensitive
        self.needle = needle.lower() if self.fold else needle
        raw = needle.encode("utf-8")
        self.key = raw.lower() if self.fold else raw
        self.extra = len(raw) - 1
        self.progress = progress
        self.cancelled = cancelled
        self._folder = byte_find.Folder()

    def _read(self, size: int, offset: int) -> byte_find.Buffer:
        """The bytes, ASCII-folded when case does not matter (valid until the next)."""
        if self.cancelled is not None and self.cancelled():
            raise BuildCancelledError
        data = self.index.table.reader.read(size, offset)
        return self._folder.fold(data) if self.fold else data

    def column(self, row: int) -> int | None:
        """The first cell of data row ``row`` that holds the needle."""
        found = self.index.rows(row, 1)
        for column, cell in enumerate(found[0].cells if found else ()):
            if self.needle in (cell.lower() if self.fold else cell):
                return column
        return None

    def _row_of(self, offset: int) -> int:
        return self.index.record_at_offset(offset) - self.index._first_record

    def bytes_forward(self, row: int) -> tuple[int, int] | None:
        index = self.index
        size = index.table.reader.size
        row = max(row, 0)
        while row < index.row_count:
            position = index.offset_of_record(row + index._first_record)
            hit = -1
            while hit < 0 and position < size:
                hay = self._read(BLOCK_BYTES + self.extra, position)
                used = min(len(hay), BLOCK_BYTES)
                at = byte_find.find(hay, self.key, 0, used + self.extra)
                hit = position + at if at >= 0 else -1
                position += used
                if self.progress is not None:
                    self.progress(position, size)
            if hit < 0:
                return None
            found = max(self._row_of(hit), row)
            column = self.column(found)
            if column is not None:
                return found, column
            row = found + 1  # the bytes matched across cells, or in the header
        return None

    def bytes_backward(self, row: int) -> tuple[int, int] | None:
        index = self.index
        start = index.table.data_start
        size = index.table.reader.size
        row = min(row, index.row_count)
        while row > 0:
            end = index.offset_of_record(row + index._first_record)
            hit = -1
            while hit < 0 and end > start:
                begin = max(start, end - BLOCK_BYTES)
                hay = self._read(end - begin + self.extra, begin)
                at = byte_find.rfind(hay, self.key, 0, end - begin + self.extra)
                hit = begin + at if 0 <= at < end - begin else -1
                end = begin
                if self.progress is not None:
                    self.progress(size - end, size)
            if hit < 0:
                return None
            found = min(self._row_of(hit), row - 1)
            if found < 0:
                return None
            column = self.column(found)
            if column is not None:
                return found, column
            row = found
        return None

    def by_rows(self, row: int, backward: bool) -> tuple[int, int] | None:
        index, step = self.index, 1024
        count = index.row_count
        if backward:
            last = min(row, count)
            while last > 0:
                first = max(0, last - step)
                block = self._rows(first, last - first)
                for offset in range(len(block) - 1, -1, -1):
                    column = self._cell_in(block[offset])
                    if column is not None:
                        return first + offset, column
                last = first
            return None
        first = max(row, 0)
        while first < count:
            block = self._rows(first, step)
            for offset, found in enumerate(block):
                column = self._cell_in(found)
                if column is not None:
                    return first + offset, column
            first += step
            if self.progress is not None:
                self.progress(min(first, count), count)
        return None

    def _rows(self, first: int, count: int) -> list[Row]:
        if self.cancelled is not None and self.cancelled():
            raise BuildCancelledError
        return self.index.rows(first, count)

    def _cell_in(self, row: Row) -> int | None:
        for column, cell in enumerate(row.cells):
            if self.needle in (cell.lower() if self.fold else cell):
                return column
        return None


def _tsv_cell(cell: str) -> str:
    if cell.startswith(_FORMULA_STARTS):
        cell = "'" + cell
    if any(char in cell for char in '\t\n\r"'):
        cell = '"' + cell.replace('"', '""') + '"'
    return cell


def cells_to_tsv(rows: Iterable[Sequence[str]]) -> str:
    """Rows as tab-separated text for the clipboard, with formula cells defused.

    A cell starting with ``= + - @``, a tab or a CR gets a leading ``'`` as OWASP
    advises; quoting alone does not stop a spreadsheet from evaluating it.
    """
    return "\n".join("\t".join(_tsv_cell(cell) for cell in row) for row in rows)
