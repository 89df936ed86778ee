"""The ``present`` check on a remote workspace: SFTP metadata only, all or nothing."""

from __future__ import annotations

import asyncio
import posixpath
import stat
from collections.abc import Callable
from typing import Any

import asyncssh

from app.core.filetype import kind_from_name
from app.core.trust.declare import (
    DUPLICATE,
    EntryFailure,
    EntryRefusedError,
    check_shape,
    declared_items,
    entries_failed,
    shown_path,
    utc_now,
)
from app.core.trust.paths import is_within
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.records import (
    REMOTE_RECORD_VERSION,
    REMOTE_SCOPE,
    FileEntry,
    Record,
    RemoteOrigin,
)
from app.core.trust.safeio import SafeOpenError
from app.core.trust.verdicts import (
    DIRECTORY,
    MISSING,
    NOT_REGULAR,
    REGULAR,
    SYMLINK,
    UNREADABLE,
    Found,
    present_refusal,
)
from app.remote.files import LOST_SFTP, RemoteIdentity, identity_of, real_path
from app.remote.place import Place


async def _resolve(sftp: asyncssh.SFTPClient, given: str, absolute: str) -> str:
    """``absolute`` with its folders resolved by the server, the last name kept.

    A name that is a folder by its form (``docs/``, ``a/..``) is resolved
    whole, as locally.
    """
    name = posixpath.basename(absolute)
    if given.endswith("/") or name in ("", ".", ".."):
        return await real_path(sftp, absolute)
    parent = await real_path(sftp, posixpath.dirname(absolute))
    return posixpath.join(parent, name)


def unreadable(identity: RemoteIdentity, file_uid: int | None, place: Place) -> bool:
    """Whether the permission bits say we cannot read it (SFTP has no access()).

    Without opening the file only the bits can tell: nobody may read it, or
    we own it (as far as the home folder's owner says) without a read bit. A
    file readable by its group only passes; a first read then says why not.
    """
    if identity.mode & 0o444 == 0:
        return True
    mine = place.owner is not None and file_uid == place.owner
    return mine and not identity.mode & stat.S_IRUSR


async def _check_file(
    sftp: asyncssh.SFTPClient,
    path: str,
    place: Place,
    mode: PermissionMode,
    policy: Policy,
) -> tuple[str, RemoteIdentity]:
    absolute = posixpath.normpath(posixpath.join(place.root, path))
    try:
        resolved = await _resolve(sftp, path, absolute)
    except SafeOpenError as error:
        kind = MISSING if error.reason == MISSING else UNREADABLE
        refusal = present_refusal(
            policy, (absolute,), inside=None, mode=mode, found=Found(kind)
        )
        assert refusal is not None
        raise EntryRefusedError(refusal.reason, refusal.detail) from error
    identity, found = await _look_up(sftp, resolved, place)
    inside = is_within(resolved, place.root, sep="/")
    refusal = present_refusal(
        policy, (resolved, absolute), inside=inside, mode=mode, found=found
    )
    if refusal is not None:
        raise EntryRefusedError(refusal.reason, refusal.detail)
    assert identity is not None
    return resolved, identity


async def _look_up(
    sftp: asyncssh.SFTPClient, resolved: str, place: Place
) -> tuple[RemoteIdentity | None, Found]:
    """What sits at ``resolved`` on the host: ``lstat`` only, nothing is opened."""
    try:
        attrs = await sftp.lstat(resolved)
    except (asyncssh.SFTPNoSuchFile, asyncssh.SFTPNoSuchPath):
        return None, Found(MISSING)
    except asyncssh.SFTPPermissionDenied:
        return None, Found(UNREADABLE)
    except LOST_SFTP:
        raise
    except asyncssh.SFTPError as error:
        return None, Found(MISSING, error=f"{error.reason}")
    identity = identity_of(attrs)
    if identity.is_symlink:
        return identity, Found(SYMLINK)
    if identity.is_folder:
        return identity, Found(DIRECTORY)
    if not identity.is_regular or identity.size < 0 or identity.mtime_ns < 0:
        return identity, Found(NOT_REGULAR)
    readable = not unreadable(identity, attrs.uid, place)
    return identity, Found(REGULAR, readable=readable)


async def declare_remote(
    sftp: asyncssh.SFTPClient,
    place: Place,
    arguments: object,
    *,
    mode: PermissionMode,
    policy: Policy,
    clock: Callable[[], str] = utc_now,
) -> Record:
    """Check a ``present`` call against the remote workspace; its record, or raise.

    The same reasons, atomicity and error as ``app.core.trust.declare.declare``;
    only ``lstat`` and ``realpath`` reach the server, nothing is opened. The
    remote home is the ``~`` of ``policy``'s rules (the caller built it so).
    """
    items: list[Any] = declared_items(arguments)
    shapes: list[tuple[str, str] | EntryRefusedError] = []
    for item in items:
        try:
            shapes.append(check_shape(item))
        except EntryRefusedError as refused:
            shapes.append(refused)

    async def check(shape: tuple[str, str] | EntryRefusedError) -> object:
        if isinstance(shape, EntryRefusedError):
            return shape
        try:
            return await _check_file(sftp, shape[0], place, mode, policy)
        except EntryRefusedError as refused:
            return refused

    outcomes = await asyncio.gather(*(check(shape) for shape in shapes))
    entries: list[FileEntry] = []
    failures: list[EntryFailure] = []
    seen: dict[str, str] = {}
    for index, (item, shape, outcome) in enumerate(
        zip(items, shapes, outcomes, strict=True)
    ):
        if isinstance(outcome, EntryRefusedError):
            failures.append(
                EntryFailure(index, shown_path(item), outcome.reason, outcome.detail)
            )
            continue
        assert isinstance(shape, tuple) and isinstance(outcome, tuple)
        path, description = shape
        resolved, identity = outcome
        # No inode over SFTP: the resolved path is what names the file.
        if resolved in seen:
            detail = f"names the same file as {seen[resolved]!r}"
            failures.append(EntryFailure(index, path, DUPLICATE, detail))
            continue
        seen[resolved] = path
        entries.append(_entry(path, description, resolved, identity, place))
    if failures:
        raise entries_failed(failures, len(items))
    return Record(clock(), place.address, tuple(entries), REMOTE_RECORD_VERSION)


def _entry(
    path: str, description: str, resolved: str, identity: RemoteIdentity, place: Place
) -> FileEntry:
    return FileEntry(
        path=path,
        resolved=resolved,
        description=description,
        scope=REMOTE_SCOPE,
        size=identity.size,
        mtime_ns=identity.mtime_ns,
        device=0,
        inode=0,
        kind=kind_from_name(resolved),
        remote=RemoteOrigin(place.user, place.host, place.port, identity.mode),
    )
