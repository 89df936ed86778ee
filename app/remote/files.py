"""Remote file facts over SFTP: identity, lstat, POSIX paths, bounded listings."""

from __future__ import annotations

import contextlib
import posixpath
import stat
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Final, cast

import asyncssh

from app.core.trust.beneath import OutsideRootError
from app.core.trust.paths import is_within
from app.core.trust.policy import Policy
from app.core.trust.safeio import SafeOpenError
from app.ssh.errors import Failure, RemoteError

# A tree node shows at most this many entries; the rest is counted as cut.
LISTING_LIMIT: Final = 20_000

_TYPE_BITS: Final = {
    asyncssh.FILEXFER_TYPE_REGULAR: stat.S_IFREG,
    asyncssh.FILEXFER_TYPE_DIRECTORY: stat.S_IFDIR,
    asyncssh.FILEXFER_TYPE_SYMLINK: stat.S_IFLNK,
    asyncssh.FILEXFER_TYPE_SOCKET: stat.S_IFSOCK,
    asyncssh.FILEXFER_TYPE_CHAR_DEVICE: stat.S_IFCHR,
    asyncssh.FILEXFER_TYPE_BLOCK_DEVICE: stat.S_IFBLK,
    asyncssh.FILEXFER_TYPE_FIFO: stat.S_IFIFO,
}


@dataclass(frozen=True)
class RemoteIdentity:
    """What makes a remote file the same version: size, mtime (ns) and mode.

    SFTP (version 3, what OpenSSH speaks) reports neither device nor inode
    and gives mtime in whole seconds, so this is weaker than a local
    identity: a same-size rewrite within one second goes unseen.
    """

    size: int
    mtime_ns: int
    mode: int  # file type bits and permissions, as st_mode

    @property
    def is_regular(self) -> bool:
        return stat.S_ISREG(self.mode)

    @property
    def is_symlink(self) -> bool:
        return stat.S_ISLNK(self.mode)

    @property
    def is_folder(self) -> bool:
        return stat.S_ISDIR(self.mode)


def identity_of(attrs: asyncssh.SFTPAttrs) -> RemoteIdentity:
    """The identity in an SFTP attribute record; unknown fields become -1."""
    kind = _TYPE_BITS.get(attrs.type, 0)
    permissions = (attrs.permissions or 0) & 0o7777
    mtime_ns = -1
    if attrs.mtime is not None:
        mtime_ns = attrs.mtime * 1_000_000_000 + (attrs.mtime_ns or 0)
    size = attrs.size if attrs.size is not None else -1
    return RemoteIdentity(size, mtime_ns, kind | permissions)


def lexical_path(root: str, given: str) -> str:
    """The absolute path ``given`` names below ``root``, ``..`` applied lexically.

    The same rules as the local tools' ``Beneath.parts_of``: an absolute path
    must lie inside the root, and ``..`` may not climb above it.
    """
    if not given or "\0" in given:
        raise SafeOpenError("invalid", "the path is empty or contains a NUL byte")
    if given.startswith("/"):
        absolute = posixpath.normpath(given)
        if not is_within(absolute, root, sep="/"):
            raise OutsideRootError
        given = posixpath.relpath(absolute, root)
    parts: list[str] = []
    for part in given.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise OutsideRootError
            parts.pop()
        else:
            parts.append(part)
    return posixpath.join(root, *parts) if parts else root


# SFTP errors that are the connection failing, not the server refusing a file.
LOST_SFTP: Final = (asyncssh.SFTPConnectionLost, asyncssh.SFTPNoConnection)


def lookup_error(error: asyncssh.SFTPError) -> SafeOpenError:
    """An SFTP refusal in the local safe-open's words, so answers read alike.

    A lost connection is not a refusal: it is raised again as it is, so
    callers reconnect (or say the host is gone) instead of calling a file
    missing.
    """
    if isinstance(error, LOST_SFTP):
        raise error
    if isinstance(error, (asyncssh.SFTPNoSuchFile, asyncssh.SFTPNoSuchPath)):
        return SafeOpenError("missing", "the file no longer exists")
    if isinstance(error, asyncssh.SFTPPermissionDenied):
        return SafeOpenError("unreadable", "permission to read it is denied")
    return SafeOpenError("unreadable", f"the server refused it: {error.reason}")


async def lstat(sftp: asyncssh.SFTPClient, path: str) -> RemoteIdentity:
    """``lstat`` on the server; ``SafeOpenError`` (missing, unreadable) if refused."""
    try:
        return identity_of(await sftp.lstat(path))
    except asyncssh.SFTPError as error:
        raise lookup_error(error) from error


async def stat_following(sftp: asyncssh.SFTPClient, path: str) -> RemoteIdentity:
    """``stat`` (links followed) on the server; ``SafeOpenError`` if refused."""
    try:
        return identity_of(await sftp.stat(path))
    except asyncssh.SFTPError as error:
        raise lookup_error(error) from error


async def real_path(sftp: asyncssh.SFTPClient, path: str) -> str:
    """The server's ``realpath``; ``SafeOpenError`` if a part of it is missing."""
    try:
        resolved = await sftp.realpath(path)
    except asyncssh.SFTPError as error:
        raise lookup_error(error) from error
    if not isinstance(resolved, str) or not resolved.startswith("/"):
        raise RemoteError(Failure.PROTOCOL, "the server answered a path with nonsense")
    return posixpath.normpath(resolved)


def is_safe_name(name: str) -> bool:
    """A name a listing may contain: a server sending "../x" or "a/b" is ignored."""
    return name not in ("", ".", "..") and "/" not in name and "\0" not in name


@dataclass(frozen=True)
class RemoteEntry:
    """One name in a remote folder, with what the tree needs to draw it."""

    name: str
    path: str
    identity: RemoteIdentity
    denied_by: str | None  # the rule that locks it, described; None if readable


@dataclass(frozen=True)
class Listing:
    """A folder's entries, sorted by name; ``truncated`` when over the limit."""

    path: str
    entries: tuple[RemoteEntry, ...]
    truncated: bool


async def scan(
    sftp: asyncssh.SFTPClient,
    path: str,
    limit: int,
    each: Callable[[str, RemoteIdentity], None] | None = None,
) -> tuple[list[tuple[str, RemoteIdentity]], bool]:
    """Up to ``limit`` (name, lstat identity) pairs of a folder, and whether cut.

    Reading stops at the limit, so a huge folder or a server that never ends
    its listing cannot exhaust memory; names a server should never send
    (``..``, with a slash or NUL) are dropped.
    """
    found: list[tuple[str, RemoteIdentity]] = []
    cut = False
    try:
        # Asked in bytes: asyncssh then skips decoding each entry's long "ls"
        # line, a third of a big listing's time; only the name is decoded.
        raw = path.encode("utf-8", "surrogateescape")
        scan = cast(AsyncGenerator[asyncssh.SFTPName, None], sftp.scandir(raw))
        # aclosing: leaving the loop early must close the server's handle now.
        async with contextlib.aclosing(scan) as items:
            async for item in items:
                filename = item.filename
                if not isinstance(filename, bytes):
                    continue
                name = filename.decode("utf-8", "surrogateescape")
                if not is_safe_name(name):
                    continue
                if len(found) >= limit:
                    cut = True
                    break
                identity = identity_of(item.attrs)
                found.append((name, identity))
                if each is not None:
                    each(name, identity)
    except asyncssh.SFTPError as error:
        raise lookup_error(error) from error
    found.sort(key=lambda pair: pair[0])
    return found, cut


# How many entries a listing hands over at a time while it is still reading.
BATCH: Final = 256


async def list_folder(
    sftp: asyncssh.SFTPClient,
    path: str,
    policy: Policy,
    limit: int = LISTING_LIMIT,
    on_batch: Callable[[tuple[RemoteEntry, ...]], None] | None = None,
) -> Listing:
    """The entries of the folder ``path`` (no links followed), denied ones flagged.

    ``on_batch`` (called on the loop thread) receives entries as they
    arrive, in the server's order, so a tree can fill in before a large
    folder has been read; the returned listing has them all, sorted.
    """
    entries: list[RemoteEntry] = []
    sent = 0
    denying_rule = policy.in_folder(path)

    def flag(name: str, identity: RemoteIdentity) -> None:
        nonlocal sent
        child = posixpath.join(path, name)
        rule = denying_rule(name)
        described = None if rule is None else rule.describe()
        entries.append(RemoteEntry(name, child, identity, described))
        if on_batch is not None and len(entries) - sent >= BATCH:
            on_batch(tuple(entries[sent:]))
            sent = len(entries)

    _names, cut = await scan(sftp, path, limit, flag)
    if on_batch is not None and len(entries) > sent:
        on_batch(tuple(entries[sent:]))
    entries.sort(key=lambda entry: entry.name)
    return Listing(path, tuple(entries), cut)
