"""A sparse line index over a large text file, and find across the whole file.

The index stores one number per 1 MiB block of file: how many line ends come
before it (an ``array('Q')``, 8 KiB for 1 GiB). A lookup counts the block it lands
in once more, per 64 KiB slot, keeps that for the last few blocks, and scans at
most 64 KiB; nothing per line is ever kept in memory.

What ends a line is decided by the first line end in the file: ``\\n`` (so CRLF
counts once) unless the first one is a lone ``\\r``, which makes it a CR-only file
counted by ``\\r``. In a mixed file the other kind stays inside the line text.
"""

from __future__ import annotations

import bisect
import re
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Generator, Iterator
from contextlib import closing
from typing import TypeVar

from app.core.trust.safeio import VerifiedFile
from app.formats import byte_find
from app.formats.byte_count import count_byte, in_order
from app.formats.encoding import (
    TextEncoding,
    char_boundary,
    char_start,
    count_char,
    decode,
    detect_encoding,
    find_char,
    last_line_end,
)
from app.formats.text_pages import (
    BuildCancelledError,
    Cancelled,
    FencedReader,
    Progress,
    fenced_reader,
    reads_in_parallel,
)

T = TypeVar("T")

CHECKPOINT_BYTES = 64 * 1024
BLOCK_BYTES = 1024 * 1024  # a multiple of CHECKPOINT_BYTES
_READ_BLOCKS = 8
"""Blocks one read of a two-thread index build takes: at most 32 MiB in flight."""
_SEARCH_BYTES = 4 * BLOCK_BYTES
"""One read of a forward search or count: with its lower-casing, 16 MiB at most."""
_KEPT_BLOCKS = 64
"""Blocks whose 64 KiB slots stay counted: 16 numbers each."""
# ``lines`` reads a window at once up to this size, else line by line.
_WINDOW_LIMIT = 4 * 1024 * 1024
LONG_LINE_CHARS = 64 * 1024
CUT_MARK = "\u2026"
"""Ends a line that ``lines`` cut at ``max_line_chars``."""


def _line_ends_in(
    data: bytes, encoding: TextEncoding, terminator: str, start: int, end: int
) -> int:
    if encoding.unit == 1:
        return count_byte(data, ord(terminator), start, end)
    return count_char(data, encoding, terminator, start, end)


def _block_counter(
    reader: FencedReader, encoding: TextEncoding, terminator: str, size: int
) -> Callable[[int], list[int]]:
    """Counts the line ends in each block of the ``size`` bytes read at an offset.

    Safe on any thread.
    """

    def count(offset: int) -> list[int]:
        data = reader.read(size, offset)
        return [
            _line_ends_in(data, encoding, terminator, at, at + BLOCK_BYTES)
            for at in range(0, len(data), BLOCK_BYTES)
        ]

    return count


def _terminator(data: bytes, encoding: TextEncoding, lookahead: bytes) -> str | None:
    """``\\r`` if the first line end in ``data`` is a lone CR, ``\\n`` if it is LF."""
    lf = find_char(data, encoding, "\n")
    cr = find_char(data, encoding, "\r")
    if cr == -1 and lf == -1:
        return None
    if cr == -1 or (lf != -1 and lf < cr):
        return "\n"
    after = (data[cr + encoding.unit :] + lookahead)[: encoding.unit]
    return "\n" if after == encoding.char_bytes("\n") else "\r"


class LineIndex:
    """Line numbers over a whole file, built once in the background.

    Every read checks the version fence first (``FenceBrokenError``).
    """

    def __init__(
        self,
        reader: FencedReader,
        encoding: TextEncoding,
        terminator: str,
        blocks: array[int],
        line_ends: int,
        total_lines: int,
        *,
        parallel: bool = False,
    ) -> None:
        self.reader = reader
        self.parallel = parallel
        """Whether two threads may read the file at once (a file on this machine)."""
        self.encoding = encoding
        self.terminator = terminator
        self._blocks = blocks
        """Line ends before each 1 MiB block."""
        self._line_ends = line_ends
        self.total_lines = total_lines
        """Line count; a last line without a line end counts, an empty file has 0."""
        self._start = min(len(encoding.bom), reader.size)
        self._slots_of: OrderedDict[int, list[int]] = OrderedDict()
        self._slots_lock = threading.Lock()

    @classmethod
    def build(
        cls,
        file: VerifiedFile,
        *,
        path: str | None = None,
        progress: Progress | None = None,
        cancelled: Cancelled | None = None,
        encoding: TextEncoding | None = None,
    ) -> LineIndex:
        """Count each 1 MiB block's line ends; ``BuildCancelledError`` if cancelled.

        ``encoding`` is the one the first page was read in (by default the one a
        byte order mark names, else UTF-8). Blocks of a local file in a one-byte
        encoding are counted on two threads (``byte_count``).
        """
        reader = fenced_reader(file, path)
        if encoding is None:
            encoding = detect_encoding(reader.read(4, 0))
        start = min(len(encoding.bom), reader.size)
        blocks = array("Q")
        terminator: str | None = None
        offset = start
        # Blocks before the first line end hold none; that line end decides the kind.
        while offset < reader.size:
            if cancelled is not None and cancelled():
                raise BuildCancelledError
            data = reader.read(BLOCK_BYTES + encoding.unit, offset)
            used = min(len(data), BLOCK_BYTES)
            terminator = _terminator(data[:used], encoding, data[used:])
            if terminator is not None:
                break
            blocks.append(0)
            offset += used
            if progress is not None:
                progress(offset, reader.size)
        total = 0
        parallel = reads_in_parallel(file)
        if terminator is not None:
            threads = 2 if parallel and encoding.unit == 1 else 1
            # On two threads a read spans several blocks: each hand-over costs
            # a wait for the interpreter lock, and an eighth as many of them
            # lets the reads (which let go of it) run on both cores beside the
            # counts. With one block per read two threads were slower than one
            # (1 GiB page-cached: 1.6x ``wc -l`` before, about 1.05x after).
            # Alone, a read is one block: progress and cancelling stay prompt.
            read_size = BLOCK_BYTES * (_READ_BLOCKS if threads > 1 else 1)
            count = _block_counter(reader, encoding, terminator, read_size)
            reads = range(offset, reader.size, read_size)
            with closing(in_order(count, reads, threads)) as counts:
                for read_offset, ends_per_block in zip(reads, counts, strict=True):
                    if cancelled is not None and cancelled():
                        raise BuildCancelledError
                    for ends in ends_per_block:
                        blocks.append(total)
                        total += ends
                    if progress is not None:
                        progress(min(read_offset + read_size, reader.size), reader.size)
        terminator = terminator or "\n"
        lines = total
        if reader.size > start:
            last = reader.read(encoding.unit, reader.size - encoding.unit)
            lines += last != encoding.char_bytes(terminator)
        return cls(
            reader, encoding, terminator, blocks, total, lines, parallel=parallel
        )

    def _slots(self, block: int, enough: Callable[[list[int]], bool]) -> list[int]:
        """Line ends before each 64 KiB slot of ``block``, counted until ``enough``.

        The build keeps one number per 1 MiB; a lookup needs one per 64 KiB, so
        the slots of the block it lands in are counted, from the first one on,
        until ``enough`` says the lookup has what it needs (all of them, about
        1 ms, at the most). What was counted is kept for the last
        ``_KEPT_BLOCKS`` blocks looked at and goes on from there.
        """
        with self._slots_lock:
            slots = list(self._slots_of.get(block, ()))
        base = self._start + block * BLOCK_BYTES
        size = min(BLOCK_BYTES, self.reader.size - base)
        count = max(-(-size // CHECKPOINT_BYTES), 1)
        if not slots:
            slots.append(int(self._blocks[block]))
        counted = len(slots)
        while len(slots) < count and not enough(slots):
            data = self.reader.read(
                CHECKPOINT_BYTES, base + (len(slots) - 1) * CHECKPOINT_BYTES
            )
            ends = _line_ends_in(data, self.encoding, self.terminator, 0, len(data))
            slots.append(slots[-1] + ends)
        if len(slots) > counted or block not in self._slots_of:
            with self._slots_lock:
                self._slots_of[block] = slots
                self._slots_of.move_to_end(block)
                if len(self._slots_of) > _KEPT_BLOCKS:
                    self._slots_of.popitem(last=False)
        return slots

    def offset_of_line(self, line: int) -> int:
        """Byte offset where ``line`` (0-based) starts; the file size past the end."""
        if line <= 0:
            return self._start
        if line > self._line_ends:
            return self.reader.size
        # The slot before the line's preceding line end; it lies within 64 KiB.
        block = bisect.bisect_left(self._blocks, line) - 1
        slots = self._slots(block, lambda counted: counted[-1] >= line)
        slot = bisect.bisect_left(slots, line) - 1
        base = self._start + block * BLOCK_BYTES + slot * CHECKPOINT_BYTES
        data = self.reader.read(CHECKPOINT_BYTES, base)
        unit = self.encoding.unit
        position = -unit
        if unit == 1:  # any match is aligned: a plain find, no per-call encoding
            find, term = data.find, self.terminator.encode(self.encoding.codec)
            for _ in range(line - slots[slot]):
                position = find(term, position + 1)
                if position < 0:
                    break
        else:
            for _ in range(line - slots[slot]):
                position = find_char(
                    data, self.encoding, self.terminator, position + unit
                )
                if position < 0:
                    break
        if position < 0:  # the fence held, so the index cannot be wrong
            raise AssertionError("line index out of step with its file")
        return base + position + unit

    def line_at_offset(self, offset: int) -> int:
        """The 0-based line that contains byte ``offset``."""
        offset = min(max(offset, self._start), self.reader.size)
        block = min((offset - self._start) // BLOCK_BYTES, len(self._blocks) - 1)
        if block < 0:
            return 0
        within = offset - self._start - block * BLOCK_BYTES
        wanted = within // CHECKPOINT_BYTES
        slots = self._slots(block, lambda counted: len(counted) > wanted)
        slot = min(wanted, len(slots) - 1)
        base = self._start + block * BLOCK_BYTES + slot * CHECKPOINT_BYTES
        data = self.reader.read(offset - base, base)
        ends = _line_ends_in(data, self.encoding, self.terminator, 0, len(data))
        return slots[slot] + ends

    def lines(
        self, first: int, count: int, *, max_line_chars: int = LONG_LINE_CHARS
    ) -> list[str]:
        """Lines ``first`` to ``first + count - 1`` without their line ends.

        Reads only their bytes. A line longer than ``max_line_chars`` is cut and
        ends with ``CUT_MARK``, so one huge line never fills the memory.
        """
        first = max(first, 0)
        last = min(first + max(count, 0), self.total_lines)
        if first >= last:
            return []
        start, end = self.offset_of_line(first), self.offset_of_line(last)
        if end - start <= _WINDOW_LIMIT:
            text, _ = decode(self.reader.read(end - start, start), self.encoding)
            found = text.split(self.terminator)
            if len(found) > last - first:
                found.pop()  # the empty text after the final line end
        else:
            found = [self._capped_line(n, max_line_chars) for n in range(first, last)]
        if self.terminator == "\n":
            found = [line.removesuffix("\r") for line in found]
        return [
            line if len(line) <= max_line_chars else line[:max_line_chars] + CUT_MARK
            for line in found
        ]

    def _capped_line(self, line: int, max_chars: int) -> str:
        start, end = self.offset_of_line(line), self.offset_of_line(line + 1)
        # Four bytes per character at most: enough bytes for ``max_chars``.
        limit = max_chars * 4 + self.encoding.unit
        data = self.reader.read(min(end - start, limit), start)
        if end - start > limit:
            data = data[: char_boundary(data, self.encoding)]
        text = decode(data, self.encoding)[0].removesuffix(self.terminator)
        return text if end - start <= limit else text[:max_chars] + CUT_MARK

    def column_at(self, offset: int) -> int:
        """Characters from the start of its line to byte ``offset``."""
        position = self.offset_of_line(self.line_at_offset(offset))
        column = 0
        while position < offset:
            data = self.reader.read(min(BLOCK_BYTES, offset - position), position)
            cut = char_boundary(data, self.encoding) or len(data)
            column += len(decode(data[:cut], self.encoding)[0])
            position += cut
        return column

    def find(
        self,
        needle: str,
        start_line: int = 0,
        *,
        start_column: int = 0,
        backward: bool = False,
        case_sensitive: bool = False,
        progress: Progress | None = None,
        cancelled: Cancelled | None = None,
    ) -> tuple[int, int] | None:
        """The first match at or after (line, column), or the last one before it.

        Returns the match's (line, column), both 0-based, or ``None``. The file is
        searched in 1 MiB blocks cut at line ends; a match that straddles a block
        cut inside a very long line is found through a carried overlap. A needle
        cannot span lines: one with a line end raises ``ValueError``.

        An ASCII needle in a UTF-8 file is searched in the raw bytes, folding
        only ASCII letters when not case sensitive, with nothing decoded; any
        other needle or encoding is matched on decoded text, which is slower.
        """
        search = self._search(needle, case_sensitive, progress, cancelled)
        if backward:
            return search.backward((start_line, start_column))
        return search.forward((start_line, start_column))

    def count(
        self,
        needle: str,
        *,
        case_sensitive: bool = False,
        progress: Progress | None = None,
        cancelled: Cancelled | None = None,
    ) -> int:
        """How many matches the whole file holds, counted as ``find`` finds them.

        Matches do not overlap and never span lines, as with ``grep -o``.
        ``BuildCancelledError`` if cancelled; ``ValueError`` like ``find``.
        """
        return self._search(needle, case_sensitive, progress, cancelled).count()

    def _search(
        self,
        needle: str,
        case_sensitive: bool,
        progress: Progress | None,
        cancelled: Cancelled | None,
    ) -> _Search | _ByteSearch:
        if not needle or "\n" in needle or "\r" in needle:
            raise ValueError("Search for text within one line.")
        if self.encoding.unit == 1 and needle.isascii():
            raw = needle.encode("ascii")
            return _ByteSearch(self, raw, case_sensitive, progress, cancelled)
        flags = 0 if case_sensitive else re.IGNORECASE
        pattern = re.compile(re.escape(needle), flags)
        return _Search(self, pattern, len(needle) - 1, progress, cancelled)


class _ByteSearch:
    """``LineIndex.find`` and ``count`` for an ASCII needle in a UTF-8 file.

    Blocks are searched as read, with ``byte_find`` (on the block's ASCII
    lower-casing to ignore case), all in vector C loops: a match starts at an
    ASCII byte, so no character is ever cut and nothing needs decoding until a
    match's column is asked for.

    Going forward, blocks lie at fixed offsets, so a local file's blocks are
    read and searched on two threads (``_scan``); going backward, one at a
    time, folded into one buffer that the next read overwrites.
    """

    def __init__(
        self,
        index: LineIndex,
        needle: bytes,
        case_sensitive: bool,
        progress: Progress | None,
        cancelled: Cancelled | None,
    ) -> None:
        self.index = index
        self.fold = not case_sensitive
        self.needle = needle.lower() if self.fold else needle
        self.extra = len(needle) - 1
        self.term = index.encoding.char_bytes(index.terminator)
        self.progress = progress
        self.cancelled = cancelled
        self._folder = byte_find.Folder()
        # Only a needle whose head is also its tail can match twice at once.
        self._overlaps = any(needle[:k] == needle[-k:] for k in range(1, len(needle)))

    def _check(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise BuildCancelledError

    def _read(self, start: int, size: int) -> tuple[bytes, byte_find.Buffer]:
        self._check()
        data = self.index.reader.read(size, start)
        return data, self._folder.fold(data) if self.fold else data

    def _scan(
        self,
        work: Callable[[bytes, byte_find.Buffer, int], T],
        start: int,
        *,
        alone: bool = False,
    ) -> Iterator[tuple[int, T]]:
        """(offset, ``work(data, hay, used)``) of each block from ``start`` on.

        A match that starts in a block's ``used`` bytes is that block's; the
        ``extra`` bytes read past them let it end in the next one. A local
        file's blocks are read and worked on on two threads unless ``alone``:
        the reads let go of the interpreter lock, and each block's bytes are
        let go of on the thread that read them, which keeps the allocator
        reusing its memory (handed to another thread, every block cost fresh
        pages and two threads were slower than one).
        """
        reader = self.index.reader
        offsets = range(start, reader.size, _SEARCH_BYTES)
        threads = 1 if alone or not self.index.parallel else 2

        def job(offset: int) -> T:
            data = reader.read(_SEARCH_BYTES + self.extra, offset)
            hay = byte_find.lowered(data) if self.fold else data
            return work(data, hay, min(len(data), _SEARCH_BYTES))

        def results() -> Generator[T, None, None]:
            # The first block alone: the next match is most often in it, and
            # reading ahead would only delay the answer.
            yield from map(job, offsets[:1])
            yield from in_order(job, offsets[1:], threads)

        with closing(results()) as done:
            for offset, result in zip(offsets, done, strict=True):
                self._check()
                yield offset, result
                if self.progress is not None:
                    self.progress(min(offset + _SEARCH_BYTES, reader.size), reader.size)

    def _position(
        self, data: bytes, at: int, base: int, line: int | None
    ) -> tuple[int, int]:
        """(line, column) of ``data[at]``; ``data`` starts at ``base``.

        ``line`` is the line ``base`` lies on, or ``None`` to look it up.
        """
        begin = data.rfind(self.term, 0, at) + len(self.term)
        if begin > 0:  # the line starts inside the block
            if line is None:
                line = self.index.line_at_offset(base + begin)
            else:
                line += data.count(self.term, 0, at)
            return line, len(decode(data[begin:at], self.index.encoding)[0])
        # The line began before the block, which may begin inside a character.
        if line is None:
            line = self.index.line_at_offset(base)
        return line, self.index.column_at(base + at)

    def forward(self, after: tuple[int, int]) -> tuple[int, int] | None:
        def first(data: bytes, hay: byte_find.Buffer, used: int) -> int:
            return byte_find.find(hay, self.needle, 0, used + self.extra)

        for offset, at in self._scan(first, self.index.offset_of_line(after[0])):
            if at == -1:
                continue
            # A block with a match is read once more, here: the fence holds.
            data, hay = self._read(offset, _SEARCH_BYTES + self.extra)
            end = min(len(data), _SEARCH_BYTES) + self.extra
            while at != -1:
                # Lines are counted only at a match, through the index's checkpoints.
                found = self._position(data, at, offset, None)
                if found >= after:
                    return found
                at = byte_find.find(hay, self.needle, at + 1, end)
        return None

    def backward(self, before: tuple[int, int]) -> tuple[int, int] | None:
        index = self.index
        end = index.offset_of_line(before[0] + 1)
        while end > index._start:
            start = max(index._start, end - BLOCK_BYTES)
            data, hay = self._read(start, end - start + self.extra)
            skip = char_start(data, index.encoding) if start > index._start else 0
            start += skip
            data, hay = data[skip:], hay[skip:]
            line = index.line_at_offset(start)
            at = byte_find.rfind(hay, self.needle, 0, end - start + self.extra)
            while at != -1:
                found = self._position(data, at, start, line)
                if found < before:
                    return found
                at = byte_find.rfind(hay, self.needle, 0, at + self.extra)
            end = start
            if self.progress is not None:
                self.progress(index.reader.size - end, index.reader.size)
        return None

    def count(self) -> int:
        skip = 0

        def number(data: bytes, hay: byte_find.Buffer, used: int) -> int:
            # A needle that overlaps itself carries where its last match ended
            # into the next block, so those blocks are counted in turn.
            nonlocal skip
            end = used + self.extra
            found = byte_find.count(hay, self.needle, skip, end)
            skip = self._reach(hay, skip, used, end) if self._overlaps else 0
            return found

        counts = self._scan(number, self.index._start, alone=self._overlaps)
        return sum(found for _, found in counts)

    def _reach(self, hay: byte_find.Buffer, skip: int, used: int, end: int) -> int:
        """How far into the next block the last match counted here reaches.

        Matches are counted left to right without overlapping, so where the
        last one ends is found by taking them again, from the last line end
        before the block's end (no match spans one) or from ``skip``.
        """
        at = max(skip, byte_find.rfind(hay, self.term, skip, used) + len(self.term))
        reach = 0
        while (at := byte_find.find(hay, self.needle, at, end)) != -1 and at < used:
            at += len(self.needle)
            reach = at
        return max(0, reach - used)


class _Search:
    """One run of ``LineIndex.find``: blocks of decoded text and their positions."""

    def __init__(
        self,
        index: LineIndex,
        pattern: re.Pattern[str],
        overlap: int,
        progress: Progress | None,
        cancelled: Cancelled | None,
    ) -> None:
        self.index = index
        self.pattern = pattern
        self.overlap = overlap
        self.progress = progress
        self.cancelled = cancelled

    def _block(self, start: int, limit: int, *, cut: bool = True) -> tuple[int, str]:
        """Decode from ``start`` up to ``limit`` bytes, cut at a line end if any."""
        index, encoding = self.index, self.index.encoding
        if self.cancelled is not None and self.cancelled():
            raise BuildCancelledError
        window = index.reader.read(limit + encoding.unit, start)
        lookahead, window = window[limit:], window[:limit]
        if cut and start + len(window) < index.reader.size:
            at = last_line_end(window, encoding, index.terminator, lookahead)
            window = window[: at if at > 0 else char_boundary(window, encoding)]
        return len(window), decode(window, encoding)[0]

    def _position(
        self, text: str, at: int, lead: int, base: int, line: int
    ) -> tuple[int, int]:
        """(line, column) of text index ``at``; the block's bytes begin at ``base``.

        ``lead`` characters of carried text precede the block's own text.
        """
        term = self.index.terminator
        ends = text.count(term, lead, at) if at > lead else 0
        if ends:
            return line + ends, at - text.rfind(term, 0, at) - 1
        return line, self.index.column_at(base) + at - lead

    def forward(self, after: tuple[int, int]) -> tuple[int, int] | None:
        index = self.index
        position = index.offset_of_line(after[0])
        line, carry = after[0], ""
        while position < index.reader.size:
            used, own = self._block(position, BLOCK_BYTES)
            if used == 0:
                break
            text = carry + own
            for match in self.pattern.finditer(text):
                found = self._position(text, match.start(), len(carry), position, line)
                if found >= after:
                    return found
            line += own.count(index.terminator)
            tail = text[max(0, len(text) - self.overlap) :] if self.overlap else ""
            carry = tail[tail.rfind(index.terminator) + 1 :]
            position += used
            if self.progress is not None:
                self.progress(position, index.reader.size)
        return None

    def count(self) -> int:
        index = self.index
        position, carry, total = index._start, "", 0
        while position < index.reader.size:
            used, own = self._block(position, BLOCK_BYTES)
            if used == 0:
                break
            text = carry + own
            total += sum(1 for _ in self.pattern.finditer(text))
            # Shorter than the needle: no match lies wholly in it, none counts twice.
            tail = text[max(0, len(text) - self.overlap) :] if self.overlap else ""
            carry = tail[tail.rfind(index.terminator) + 1 :]
            position += used
            if self.progress is not None:
                self.progress(position, index.reader.size)
        return total

    def backward(self, before: tuple[int, int]) -> tuple[int, int] | None:
        index, encoding = self.index, self.index.encoding
        end = index.offset_of_line(before[0] + 1)
        carry = ""
        while end > index._start:
            start = max(index._start, end - BLOCK_BYTES)
            start -= (start - index._start) % encoding.unit
            if start > index._start:
                # Begin the block at a line start, or a character start if none.
                head = index.reader.read(end - start, start)
                # Not the final character: that line end is the one before ``end``.
                last = len(head) - encoding.unit
                cut = find_char(head, encoding, index.terminator, 0, last)
                start += (
                    cut + encoding.unit if cut != -1 else char_start(head, encoding)
                )
            _, own = self._block(start, end - start, cut=False)
            text = own + carry
            line = index.line_at_offset(start)
            best = None
            for match in self.pattern.finditer(text):
                if match.start() >= len(own):
                    break
                found = self._position(text, match.start(), 0, start, line)
                if found < before:
                    best = found
            if best is not None:
                return best
            head_text = own[: self.overlap]
            cut_at = head_text.find(index.terminator)
            carry = head_text if cut_at == -1 else head_text[:cut_at]
            end = start
            if self.progress is not None:
                self.progress(index.reader.size - end, index.reader.size)
        return None
