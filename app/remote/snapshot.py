"""Remote bytes to trust: small files checked around the read, and fenced pages."""

from __future__ import annotations

import asyncio
import posixpath
from dataclasses import dataclass

import asyncssh

from app.core.trust.safeio import SafeOpenError
from app.remote.files import RemoteIdentity, identity_of, lookup_error, lstat, real_path
from app.ssh.errors import Failure, RemoteError


@dataclass(frozen=True)
class Snapshot:
    """A remote file's bytes as one version: the identity held before and after."""

    path: str
    data: bytes
    identity: RemoteIdentity


def changed(path: str) -> RemoteError:
    return RemoteError(
        Failure.CHANGED,
        f"{posixpath.basename(path)} changed on the remote host while it was read; "
        "nothing of it was used. Try again.",
    )


async def regular_identity(sftp: asyncssh.SFTPClient, path: str) -> RemoteIdentity:
    """``lstat`` ``path`` and insist on a regular file, not a link, with a sound parent.

    ``path`` must have its folders resolved already (a record's path is): a
    folder on it that now resolves elsewhere was swapped for a link.
    """
    parent = posixpath.dirname(path)
    found, identity = await asyncio.gather(
        real_path(sftp, parent), lstat(sftp, path), return_exceptions=True
    )
    for outcome in (found, identity):
        if isinstance(outcome, BaseException):
            raise outcome
    assert isinstance(identity, RemoteIdentity)
    if found != parent:
        raise SafeOpenError("symlink", "a folder on its path now leads somewhere else")
    if identity.is_symlink:
        raise SafeOpenError("symlink", "the file is now a symbolic link")
    if identity.is_folder:
        raise SafeOpenError("directory", "it is a folder, not a file")
    if not identity.is_regular or identity.size < 0:
        raise SafeOpenError("not_regular", "it is not a regular file")
    return identity


async def _open(sftp: asyncssh.SFTPClient, path: str) -> asyncssh.SFTPClientFile:
    try:
        return await sftp.open(path, "rb")
    except asyncssh.SFTPError as error:
        raise lookup_error(error) from error


async def fstat(file: asyncssh.SFTPClientFile) -> RemoteIdentity:
    return identity_of(await file.stat())


async def read_exactly(file: asyncssh.SFTPClientFile, size: int, offset: int) -> bytes:
    """At most ``size`` bytes at ``offset``, even from a server that sends more."""
    if size <= 0:
        return b""
    try:
        data: bytes = await file.read(size, offset)
    except asyncssh.SFTPError as error:
        raise lookup_error(error) from error
    return data[:size]


async def take_snapshot(
    sftp: asyncssh.SFTPClient,
    path: str,
    *,
    limit: int,
    expected: RemoteIdentity | None = None,
) -> Snapshot:
    """Fetch ``path`` whole into memory if it is at most ``limit`` bytes.

    The file must be a regular non-link file whose identity, by ``lstat`` and
    by ``fstat`` of the open handle, is the same before and after the read
    (and equal to ``expected`` when given). Reads one byte more than the size
    so a file that grew is caught even if its size was read early.
    """
    before = await regular_identity(sftp, path)
    if expected is not None and before != expected:
        raise changed(path)
    if before.size > limit:
        raise RemoteError(
            Failure.TOO_LARGE,
            f"{posixpath.basename(path)} is {before.size} bytes; at most {limit} "
            "are fetched whole.",
        )
    file = await _open(sftp, path)
    try:
        if await fstat(file) != before:
            raise changed(path)
        data = await read_exactly(file, before.size + 1, 0)
        after = await fstat(file)
    finally:
        await file.close()
    if len(data) != before.size or after != before:
        raise changed(path)
    if await regular_identity(sftp, path) != before:
        raise changed(path)
    return Snapshot(path, data, before)


class FencedFile:
    """An open remote file read only while it stays the version it was opened at.

    Lives on the loop thread. Every read checks the handle's ``fstat`` and the
    path's ``lstat`` against the fence before and after, exactly as a local
    paged view does, so an appended, truncated or replaced file stops the
    paging instead of joining two versions.
    """

    def __init__(
        self, path: str, file: asyncssh.SFTPClientFile, fence: RemoteIdentity
    ) -> None:
        self.path = path
        self.fence = fence
        self._file = file

    @classmethod
    async def open(
        cls,
        sftp: asyncssh.SFTPClient,
        path: str,
        expected: RemoteIdentity | None = None,
    ) -> FencedFile:
        fence = await regular_identity(sftp, path)
        if expected is not None and fence != expected:
            raise changed(path)
        file = await _open(sftp, path)
        try:
            if await fstat(file) != fence:
                raise changed(path)
        except BaseException:
            await file.close()
            raise
        return cls(path, file, fence)

    async def check(self, sftp: asyncssh.SFTPClient) -> str | None:
        """``None`` while unchanged, else ``changed``, ``replaced`` or ``missing``."""
        at_handle, at_path = await asyncio.gather(
            fstat(self._file), lstat(sftp, self.path), return_exceptions=True
        )
        if isinstance(at_handle, BaseException):
            raise at_handle
        if isinstance(at_path, SafeOpenError) and at_path.reason == "missing":
            return "missing"
        if isinstance(at_path, BaseException):
            raise at_path
        if at_handle != self.fence:
            return "changed"
        return None if at_path == self.fence else "replaced"

    async def read(self, sftp: asyncssh.SFTPClient, size: int, offset: int) -> bytes:
        """Bytes at ``offset`` if the fence holds around the read, else a reason."""
        size = max(0, min(size, self.fence.size - offset))
        return await read_exactly(self._file, size, offset)

    async def close(self) -> None:
        await self._file.close()
