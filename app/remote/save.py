"""Stream a remote file to a local path: resumable, checked around, all or nothing."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Final

import asyncssh

from app.core.trust.copying import (
    PRIVATE_MODE,
    CopyResult,
    copy_mode,
    create_part,
    current_umask,
)
from app.core.trust.safeio import SafeOpenError
from app.remote.files import RemoteIdentity, lookup_error
from app.remote.snapshot import changed, fstat, regular_identity
from app.ssh.errors import Failure, RemoteError
from app.ssh.link import LOST_ERRORS, Link

Progress = Callable[[int, int], None]
"""Called on the SSH loop thread with (bytes saved in order, total bytes)."""

MAX_RESUMES: Final = 5
# Requests of one block each kept outstanding: enough to fill a long fat pipe
# (64 x 255 KiB with OpenSSH's limits, about 16 MiB in flight).
REQUESTS_IN_FLIGHT: Final = 64
# A read that brings nothing for this long means a dead connection, even if
# TCP has not noticed yet: reconnect and resume.
STALL_TIMEOUT_S: Final = 30.0


class _CancelledError(Exception):
    pass


@dataclass(frozen=True)
class RemoteCopyResult(CopyResult):
    """A local copy's outcome, and how many times it resumed after a drop."""

    resumes: int = 0


class _Progress:
    """The prefix of the file already in the temporary file, from parallel reads."""

    def __init__(self, start: int) -> None:
        self.done = start
        self._ahead: dict[int, int] = {}

    def add(self, offset: int, length: int) -> None:
        self._ahead[offset] = length
        while self.done in self._ahead:
            self.done += self._ahead.pop(self.done)


async def _read(file: asyncssh.SFTPClientFile, size: int, offset: int) -> bytes:
    data: bytes = await file.read(size, offset)
    return data


async def _chunks(
    file: asyncssh.SFTPClientFile, start: int, size: int, block: int
) -> AsyncGenerator[tuple[int, bytes], None]:
    """Blocks of ``file`` from ``start`` to ``size``, many requests in flight.

    Every request still out is cancelled and awaited when the caller stops
    early (close the generator with ``aclosing``), so nothing is left running
    against a connection that is gone.
    """
    pending: dict[asyncio.Task[bytes], tuple[int, int]] = {}
    offset = start
    try:
        while pending or offset < size:
            while len(pending) < REQUESTS_IN_FLIGHT and offset < size:
                length = min(block, size - offset)
                task = asyncio.ensure_future(_read(file, length, offset))
                pending[task] = (offset, length)
                offset += length
            done, _ = await asyncio.wait(
                pending, timeout=STALL_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED
            )
            if not done:
                raise asyncssh.ConnectionLost("no data for too long")
            for task in done:
                at, length = pending.pop(task)
                data = task.result()[:length]
                if not data:
                    return  # the file ended early: the caller sees it shrank
                if len(data) < length:
                    rest = asyncio.ensure_future(
                        _read(file, length - len(data), at + len(data))
                    )
                    pending[rest] = (at + len(data), length - len(data))
                yield at, data
    finally:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


async def _stream(
    link: Link,
    path: str,
    expected: RemoteIdentity,
    fd: int,
    progress: _Progress,
    report: Progress | None,
    is_cancelled: Callable[[], bool],
) -> None:
    """Copy from ``progress.done`` to the end, checking the version around it."""
    sftp = await link.sftp()
    if await regular_identity(sftp, path) != expected:
        raise changed(path)
    try:
        # block_size=0: each read is one request, which _chunks pipelines
        # and can cancel itself.
        file = await sftp.open(path, "rb", block_size=0)
    except asyncssh.SFTPError as error:
        raise lookup_error(error) from error
    block = max(sftp.limits.max_read_len, 32 * 1024)
    try:
        if await fstat(file) != expected:
            raise changed(path)
        chunks = _chunks(file, progress.done, expected.size, block)
        async with contextlib.aclosing(chunks) as blocks:
            async for offset, data in blocks:
                # A reply outside what was asked is a broken or hostile server.
                if offset < progress.done or offset + len(data) > expected.size:
                    raise RemoteError(
                        Failure.PROTOCOL, "the server sent bytes not asked for"
                    )
                os.pwrite(fd, data, offset)
                progress.add(offset, len(data))
                if report is not None:
                    report(progress.done, expected.size)
                if is_cancelled():
                    raise _CancelledError
        if progress.done != expected.size or await fstat(file) != expected:
            raise changed(path)
    finally:
        with contextlib.suppress(Exception):
            await file.close()
    if await regular_identity(sftp, path) != expected:
        raise changed(path)


async def save_to_local(
    link: Link,
    path: str,
    target: str,
    *,
    expected: RemoteIdentity,
    progress: Progress | None = None,
    is_cancelled: Callable[[], bool] = lambda: False,
    limit: int = 0o666,
) -> RemoteCopyResult:
    """Save the remote ``path`` as ``target``, only if it is the ``expected`` version.

    Bytes go to a temporary file beside ``target``. A dropped connection is
    reconnected and the copy resumes where the bytes in order end, after the
    remote identity is checked again; a file that changed meanwhile (before,
    during, after, or while the connection was down) is refused. The result
    is fsynced and renamed over ``target``; on any failure or cancel the
    temporary file is removed and ``target`` is left as it was.

    Two ways to stop it: ``is_cancelled`` (polled after every block) returns
    a cancelled result once the temporary file is gone; cancelling the task
    stops it at once and cleans up behind.

    The copy is never more readable than the remote file: its permissions are
    the ones the SFTP stat gave (``expected.mode``, checked again before each
    byte is read), less the local umask and anything ``limit`` leaves out,
    set on the temporary file before it holds a byte.
    """
    folder = os.path.dirname(os.path.abspath(target))
    try:
        # A server that hides the permissions gets an owner-only copy.
        remote = expected.mode & 0o777 or PRIVATE_MODE
        mode = copy_mode(remote, current_umask(), limit=limit)
        fd, temp = create_part(target, mode)
    except OSError as error:
        return RemoteCopyResult(target, 0, False, reason=f"cannot write there: {error}")
    done = _Progress(0)
    resumes = 0
    try:
        while True:
            try:
                await _stream(link, path, expected, fd, done, progress, is_cancelled)
                break
            except RemoteError as error:
                lost = error.failure in (Failure.CONNECTION_LOST, Failure.TIMEOUT)
                if not lost or resumes >= MAX_RESUMES:
                    raise
            except LOST_ERRORS as error:
                if resumes >= MAX_RESUMES:
                    raise link.lost("saving a file") from error
            link.drop()
            resumes += 1
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(temp, target)
        _sync_folder(folder)
    except _CancelledError:
        _discard(fd, temp)
        return RemoteCopyResult(
            target,
            done.done,
            False,
            cancelled=True,
            reason="cancelled",
            resumes=resumes,
        )
    except RemoteError as error:
        _discard(fd, temp)
        if error.failure is Failure.CHANGED:
            reason = (
                "the remote file changed while it was being saved; nothing was saved"
            )
        else:
            reason = str(error)
        return RemoteCopyResult(
            target, done.done, False, reason=reason, resumes=resumes
        )
    except SafeOpenError as error:
        _discard(fd, temp)
        return RemoteCopyResult(
            target, done.done, False, reason=str(error), resumes=resumes
        )
    except OSError as error:
        _discard(fd, temp)
        reason = f"the copy failed: {error}"
        return RemoteCopyResult(
            target, done.done, False, reason=reason, resumes=resumes
        )
    except BaseException:
        _discard(fd, temp)
        raise
    return RemoteCopyResult(target, expected.size, True, resumes=resumes)


def _discard(fd: int, temp: str) -> None:
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)


def _sync_folder(folder: str) -> None:
    # The rename is durable only once the folder's entry is on disk too.
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
