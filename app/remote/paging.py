"""The local text pager and line index, reading a large remote file through a fence."""

from __future__ import annotations

from concurrent.futures import Future

from app.core.trust.safeio import Identity
from app.formats.encoding import detect_encoding
from app.formats.text_pages import PAGE_SIZE, FenceBrokenError, FencedReader, PagedText
from app.remote.files import RemoteIdentity
from app.remote.snapshot import FencedFile
from app.ssh.link import Link
from app.ssh.loop import LoopThread

# A longest byte order mark (UTF-32) decides the encoding, as for local text.
_HEAD = 4


class RemoteFencedReader(FencedReader):
    """``FencedReader``'s interface over SFTP: what the pager and line index call.

    Its methods block until the remote answer arrives, so they run on a worker
    thread, never the GUI thread (nor the SSH loop thread, which refuses).
    The local reader's descriptor and path fields do not exist here: reads go
    through the open remote handle. A broken fence raises the same
    ``FenceBrokenError`` as locally.
    """

    def __init__(self, loop: LoopThread, link: Link, file: FencedFile) -> None:
        # The local reader's __init__ wants a descriptor; none exists here.
        self._loop = loop
        self._link = link
        self._file = file
        self.path = file.path
        self._timeout = link.settings.operation_timeout
        # The local fence's shape: SFTP has no device or inode.
        self.fence = Identity(0, 0, file.fence.size, file.fence.mtime_ns)

    @property
    def size(self) -> int:
        return self._file.fence.size

    @property
    def identity(self) -> RemoteIdentity:
        """The remote version the reader is fenced at (size, mtime, mode)."""
        return self._file.fence

    def check(self) -> None:
        reason = self._loop.call(
            self._link.run(self._file.check, "checking a remote file"),
            timeout=self._timeout,
            what="Checking the remote file",
        )
        if reason is not None:
            raise FenceBrokenError(reason)

    def read(self, size: int, offset: int) -> bytes:
        """Bytes at ``offset``, the fence checked before and after on the host."""
        file = self._file

        async def fenced(sftp: object) -> tuple[str | None, bytes]:
            link_sftp = await self._link.sftp()
            reason = await file.check(link_sftp)
            if reason is not None:
                return reason, b""
            data = await file.read(link_sftp, size, offset)
            return await file.check(link_sftp), data

        reason, data = self._loop.call(
            self._link.run(fenced, "reading a remote file"),
            timeout=self._timeout,
            what="Reading the remote file",
        )
        if reason is not None:
            raise FenceBrokenError(reason)
        return data

    def close_soon(self) -> Future[None]:
        """Close the remote handle without waiting (from the GUI thread too)."""
        return self._loop.submit(
            self._link.run(lambda _sftp: self._file.close(), "closing a remote file"),
            timeout=self._timeout,
            what="Closing the remote file",
        )

    def close(self) -> None:
        self._loop.call(
            self._link.run(lambda _sftp: self._file.close(), "closing a remote file"),
            timeout=self._timeout,
            what="Closing the remote file",
        )


class RemotePagedText(PagedText):
    """``PagedText`` over a remote file: same pages, cuts and fence as locally."""

    def __init__(
        self, reader: RemoteFencedReader, *, page_size: int = PAGE_SIZE
    ) -> None:
        # PagedText reads only through these three attributes; its own
        # __init__ would open a local descriptor.
        self.reader = reader
        self.page_size = max(page_size, 16)
        self.encoding = detect_encoding(self.reader.read(_HEAD, 0))
