"""A file of an SSH workspace held open for a preview, read over SFTP.

The version is fenced on the host (``app.remote.snapshot.FencedFile``): the
head is read through it, a large text is paged through it, and a file within
its previewer's limit is fetched whole as that very version into a sealed
memory file. Nothing names the remote path on this computer.
"""

from __future__ import annotations

import contextlib
import posixpath
import threading
from collections.abc import Iterator
from concurrent.futures import Future

from app.core.trust.safeio import Identity, SafeOpenError, VerifiedFile
from app.formats.text_pages import FenceBrokenError, FencedReader, ReaderFile
from app.remote.paging import RemoteFencedReader
from app.remote.snapshot import Snapshot
from app.remote.workspace import RemoteWorkspace
from app.ssh.errors import Failure, RemoteError
from app.workspace.memory_file import SnapshotFile
from app.workspace.protocol import too_large


class HostReader(FencedReader):
    """The remote fenced reader as the pager sees it: a lost host stops paging.

    A host that stops answering (a timeout, a dropped connection) ends the
    paging with ``FenceBrokenError("unreachable")``, as a change does, so the
    view freezes with a reason and a reload instead of failing mid-paint.
    """

    def __init__(self, remote: RemoteFencedReader) -> None:
        # FencedReader's own __init__ wants a local descriptor.
        self.remote = remote
        self.path = remote.path
        self.fence = remote.fence
        self._closing = threading.Lock()
        self._closed = False

    @property
    def size(self) -> int:
        return self.remote.size

    def check(self) -> None:
        with _host_lost():
            self.remote.check()

    def read(self, size: int, offset: int) -> bytes:
        with _host_lost():
            return self.remote.read(size, offset)
        raise AssertionError("unreachable")  # pragma: no cover - re-raised above

    def close_soon(self) -> None:
        """Close the remote handle once, without waiting."""
        with self._closing:
            if self._closed:
                return
            self._closed = True
        self.remote.close_soon()


@contextlib.contextmanager
def _host_lost() -> Iterator[None]:
    try:
        yield
    except RemoteError as error:
        raise FenceBrokenError("unreachable") from error


class SshPreviewFile:
    """A remote file open at one version for a preview (``PreviewFile``)."""

    def __init__(self, remote: RemoteWorkspace, reader: RemoteFencedReader) -> None:
        self._remote = remote
        self._reader = HostReader(reader)
        self._taken = False

    @property
    def path(self) -> str:
        return self._reader.path or ""

    @property
    def fence(self) -> Identity:
        return self._reader.fence

    def read(self, size: int, offset: int) -> bytes:
        return self._reader.read(size, offset)

    def _take(self) -> None:
        if self._taken:
            raise RuntimeError("this preview file was already handed over or closed")
        self._taken = True

    def whole(self, limit: int) -> Future[VerifiedFile]:
        self._take()
        self._reader.close_soon()  # the rest is one snapshot, or nothing
        outcome: Future[VerifiedFile] = Future()
        size = self._reader.size
        if size > limit:
            outcome.set_exception(too_large(self.path, size, limit))
            return outcome
        fetching = self._remote.snapshot(
            self.path, limit=limit, expected=self._reader.remote.identity
        )
        fence = self.fence
        name = posixpath.basename(self.path)

        def on_outcome(done: Future[VerifiedFile]) -> None:
            if done.cancelled():
                fetching.cancel()

        def on_fetched(done: Future[Snapshot]) -> None:
            if not outcome.set_running_or_notify_cancel():
                return
            try:
                data = done.result().data
                outcome.set_result(
                    SnapshotFile(VerifiedFile.from_bytes(data, fence, name))
                )
            except RemoteError as error:
                outcome.set_exception(_refusal(error, self.path, size, limit))
            except BaseException as error:
                outcome.set_exception(error)

        outcome.add_done_callback(on_outcome)
        fetching.add_done_callback(on_fetched)
        return outcome

    def paged(self) -> VerifiedFile:
        self._take()
        return ReaderFile(self._reader, on_close=self._reader.close_soon)

    def close(self) -> None:
        if not self._taken:
            self._taken = True
            self._reader.close_soon()


def _refusal(error: RemoteError, path: str, size: int, limit: int) -> Exception:
    """A fetch's failure as a workspace refusal where it is one, else as it is."""
    if error.failure is Failure.CHANGED:
        name = posixpath.basename(path)
        return SafeOpenError("changed", f"{name} changed since it was opened")
    if error.failure is Failure.TOO_LARGE:
        return too_large(path, size, limit)
    return error
