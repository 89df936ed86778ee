"""Read a text file in pages of at most 2 MiB, each read behind a version fence.

The fence is the identity (device, inode, size, mtime ns) the file had when it was
opened. Reads go through the descriptor the caller opened and keeps open for the
view's life. The descriptor's ``fstat`` is compared with the fence before and after
every read, so an appended, truncated or rewritten file stops the paging instead of
joining two revisions. A file *replaced* by a rename over its path leaves the
descriptor on the old, unchanged inode; when the caller passes the path, its
``lstat`` is compared too, so a replacement is reported as well.

Everything here is Qt-free and safe to call from a worker thread; results are
immutable.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from app.core.trust.safeio import Identity, VerifiedFile
from app.formats.encoding import (
    TextEncoding,
    char_boundary,
    chosen_encoding,
    decode,
    guess_encoding,
    last_line_end,
)

PAGE_SIZE = 2 * 1024 * 1024
# A byte order mark, else the first bytes' reading, decides the encoding.
_HEAD = 16 * 1024

Progress = Callable[[int, int], None]
"""Called with (bytes done, bytes in total) while a background pass runs."""
Cancelled = Callable[[], bool]
"""Polled between blocks; returning True stops the pass with ``BuildCancelledError``."""


class FenceBrokenError(Exception):
    """The file is no longer the revision the view was opened on; reload it.

    ``reason`` is ``changed`` (appended, truncated or rewritten in place),
    ``replaced`` (another file now sits at the path), ``missing``, or
    ``unreachable`` (the remote host holding it stopped answering).
    """

    _MESSAGES: ClassVar[dict[str, str]] = {
        "changed": "The file changed on disk since it was opened. Reload to see it.",
        "replaced": "The file was replaced by another one. Reload to see it.",
        "missing": "The file was removed or moved since it was opened.",
        "unreachable": "The remote host stopped answering while the file was "
        "read. Reload to try again.",
    }

    def __init__(self, reason: str) -> None:
        super().__init__(self._MESSAGES[reason])
        self.reason = reason


class BuildCancelledError(Exception):
    """A background pass stopped because the caller cancelled it."""

    def __init__(self) -> None:
        super().__init__("The pass over the file was cancelled.")


class FencedReader:
    """Reads from an open file only while it is still the revision it was opened at."""

    def __init__(self, file: VerifiedFile, path: str | None = None) -> None:
        self.file = file
        self.path = path
        self.fence: Identity = file.identity

    @property
    def size(self) -> int:
        return self.fence.size

    def check(self) -> None:
        """Raise ``FenceBrokenError`` if the descriptor or the path moved on."""
        if self.file.current_identity() != self.fence:
            raise FenceBrokenError("changed")
        if self.path is not None:
            try:
                at_path = Identity.of(os.lstat(self.path))
            except FileNotFoundError as error:
                raise FenceBrokenError("missing") from error
            if at_path != self.fence:
                raise FenceBrokenError("replaced")

    def read(self, size: int, offset: int) -> bytes:
        """Up to ``size`` bytes at ``offset``, fenced before and after the read.

        Checking after the read as well means a write that lands while the bytes
        are copied is caught, not returned as if it were the old revision.
        """
        self.check()
        data = self.file.read(max(0, min(size, self.size - offset)), offset)
        self.check()
        return data


class ReaderFile(VerifiedFile):
    """A ``VerifiedFile`` that stands for a ``FencedReader`` with no descriptor.

    For text read from somewhere else than the local disk (a remote host):
    the pager and the line index take the reader as it is
    (``fenced_reader``), so every read keeps its own fence; no local path is
    ever looked at. ``on_close`` runs once, when the preview lets go.
    """

    def __init__(
        self, reader: FencedReader, on_close: Callable[[], None] | None = None
    ) -> None:
        super().__init__(-1, reader.fence, None)
        self.reader = reader
        self._on_close = on_close

    def read(self, size: int = -1, offset: int = 0) -> bytes:
        return self.reader.read(self.reader.size if size < 0 else size, offset)

    def current_identity(self) -> Identity:
        self.reader.check()
        return self.reader.fence

    def close(self) -> None:
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()


def reads_in_parallel(file: VerifiedFile) -> bool:
    """Whether two threads may read ``file`` at once: a descriptor on this machine.

    A ``ReaderFile`` reads through a remote connection, one request at a time.
    """
    return not isinstance(file, ReaderFile)


def fenced_reader(file: VerifiedFile, path: str | None = None) -> FencedReader:
    """The fenced reader over ``file``: its own when it is a ``ReaderFile``."""
    if isinstance(file, ReaderFile):
        return file.reader
    return FencedReader(file, path)


@dataclass(frozen=True)
class Page:
    """One page of decoded text and where it lies in the file (byte offsets)."""

    start: int
    end: int
    text: str
    had_invalid_bytes: bool
    is_last: bool
    # True when no line end fitted and the cut fell inside a long line.
    ends_mid_line: bool


class PagedText:
    """A text file read page by page: the whole file up to 2 MiB, else 2 MiB pages.

    Opening reads only the first 16 KiB (a byte order mark, else whether they
    are UTF-8 or a legacy encoding; ``codec`` is a person's own choice); the
    first page reads at most one page, so the first screen never waits on the
    file's size.
    """

    def __init__(
        self,
        file: VerifiedFile,
        *,
        path: str | None = None,
        page_size: int = PAGE_SIZE,
        codec: str | None = None,
    ) -> None:
        self.reader = fenced_reader(file, path)
        self.page_size = max(page_size, 16)
        head = self.reader.read(_HEAD, 0)
        # A file no longer than its head is read whole, never cut into pages:
        # only then may it be in a multi-byte legacy encoding.
        whole = self.reader.size <= len(head)
        self.encoding: TextEncoding = (
            guess_encoding(head, whole=whole)
            if codec is None
            else chosen_encoding(codec, head)
        )

    @property
    def size(self) -> int:
        return self.reader.size

    @property
    def data_start(self) -> int:
        """Where the text begins: just after the byte order mark."""
        return min(len(self.encoding.bom), self.size)

    @property
    def is_single_page(self) -> bool:
        return self.size - self.data_start <= self.page_size

    def read_page(self, start: int = 0) -> Page:
        """The page that begins at byte ``start`` (use a previous page's ``end``).

        Raises ``FenceBrokenError`` if the file is no longer the opened revision.
        """
        unit = self.encoding.unit
        start = max(start, self.data_start)
        start -= (start - self.data_start) % unit
        # One unit past the window tells whether a final CR begins a CRLF.
        window = self.reader.read(self.page_size + unit, start)
        lookahead = window[self.page_size :]
        window = window[: self.page_size]
        is_last = start + len(window) >= self.size
        ends_mid_line = False
        if is_last:
            cut = len(window)
        else:
            cut = last_line_end(window, self.encoding, "\n\r", lookahead)
            if cut <= 0:
                cut = char_boundary(window, self.encoding)
                ends_mid_line = True
                crlf = self.encoding.char_bytes("\r\n")
                if cut == len(window) and (window[-unit:] + lookahead) == crlf:
                    cut -= unit  # keep the CR with its LF on the next page
            if cut <= 0:  # not even one character fits; take the window whole
                cut = len(window)
        text, invalid = decode(window[:cut], self.encoding)
        return Page(start, start + cut, text, invalid, is_last, ends_mid_line)

    def first_page(self) -> Page:
        return self.read_page(self.data_start)
