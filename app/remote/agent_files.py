"""The agent's file access on a remote workspace: list, read, write, public images."""

from __future__ import annotations

import contextlib
import posixpath
import secrets
from dataclasses import dataclass
from pathlib import PurePosixPath
from stat import S_IMODE
from typing import Final

import asyncssh

from app.core.filetype.sizes import counted
from app.core.trust.beneath import OutsideRootError
from app.core.trust.paths import is_within
from app.core.trust.policy import Policy, Rule
from app.core.trust.public_files import PUBLIC_FOLDER, PublicFile, image_mime
from app.core.trust.safeio import SafeOpenError
from app.remote.files import (
    LOST_SFTP,
    RemoteIdentity,
    identity_of,
    lookup_error,
    lstat,
    real_path,
    scan,
    stat_following,
)
from app.remote.place import Place
from app.remote.snapshot import changed, fstat, read_exactly

# A remote tree can be endless (or a server can pretend so): the walk stops
# after looking at this many names even if few of them are files.
MAX_SCANNED: Final = 100_000


class DeniedPathError(Exception):
    """A path the read-deny policy forbids; ``rule`` says which rule."""

    def __init__(self, rule: Rule) -> None:
        super().__init__(rule.describe())
        self.rule = rule


def refuse_denied(policy: Policy, *paths: str) -> None:
    for path in dict.fromkeys(paths):
        rule = policy.denying_rule(path)
        if rule is not None:
            raise DeniedPathError(rule)


async def inside(sftp: asyncssh.SFTPClient, place: Place, path: str) -> str:
    """``path`` with every link resolved by the server; it must stay in the root."""
    real = await real_path(sftp, path)
    if not is_within(real, place.root, sep="/"):
        raise OutsideRootError("a symbolic link on the path leads outside")
    return real


# -- list_files --------------------------------------------------------------------


@dataclass
class _Walk:
    root: str
    policy: Policy
    limit: int
    lines: list[str]
    scanned: int = 0
    stopped: bool = False


async def _names(
    sftp: asyncssh.SFTPClient, folder: str, walk: _Walk
) -> list[tuple[str, RemoteIdentity]]:
    try:
        names, cut = await scan(sftp, folder, MAX_SCANNED - walk.scanned)
    except SafeOpenError:
        return []  # gone or unreadable since its parent was read: skip it
    walk.scanned += len(names)
    walk.stopped = walk.stopped or cut
    return names


async def _list_one(sftp: asyncssh.SFTPClient, folder: str, walk: _Walk) -> list[str]:
    """List the files of one folder into ``walk``; its subfolders to enter, sorted."""
    folders: list[str] = []
    for name, identity in await _names(sftp, folder, walk):
        path = posixpath.join(folder, name)
        if identity.is_folder:
            if walk.policy.denying_rule(path) is None:
                folders.append(path)
            continue
        if identity.is_symlink:
            try:
                # As locally: a link to a folder is neither listed nor entered.
                if identity_of(await sftp.stat(path)).is_folder:
                    continue
            except LOST_SFTP:
                raise
            except asyncssh.SFTPError:
                pass  # a dangling link is listed as a link
        if walk.policy.denying_rule(path) is not None:
            continue
        what = (
            "symbolic link" if identity.is_symlink else counted(identity.size, "byte")
        )
        walk.lines.append(f"{posixpath.relpath(path, walk.root)} ({what})")
        if len(walk.lines) >= walk.limit:
            walk.stopped = True
            break
    return folders


async def _walk(sftp: asyncssh.SFTPClient, top: str, walk: _Walk) -> None:
    # Depth first, a folder's files before its subfolders, as os.fwalk goes;
    # with a stack, so no nesting depth can exhaust Python's recursion.
    stack = [top]
    while stack and not walk.stopped:
        folders = await _list_one(sftp, stack.pop(), walk)
        stack.extend(reversed(folders))


async def listing(
    sftp: asyncssh.SFTPClient, place: Place, real: str, policy: Policy, limit: int
) -> tuple[list[str], bool]:
    """Files under ``real``, depth first and sorted as the local walk lists them.

    Lines read ``relative/path (N bytes)`` or ``(symbolic link)``; denied
    files and folders are left out. Returns whether the walk stopped early.
    """
    walk = _Walk(place.root, policy, limit, [])
    await _walk(sftp, real, walk)
    return walk.lines[:limit], walk.stopped


async def open_folder(
    sftp: asyncssh.SFTPClient, place: Place, lexical: str, policy: Policy
) -> str:
    """The real path of a workspace folder, allowed by ``policy`` as resolved."""
    real = await inside(sftp, place, lexical)
    if not (await stat_following(sftp, real)).is_folder:
        raise SafeOpenError("not_regular", "it is not a folder")
    refuse_denied(policy, real)
    return real


# -- read_file ---------------------------------------------------------------------


async def read_file(
    sftp: asyncssh.SFTPClient, place: Place, lexical: str, policy: Policy, size: int
) -> bytes:
    """Up to ``size`` bytes of a regular workspace file, links followed inside."""
    real = await inside(sftp, place, lexical)
    identity = await lstat(sftp, real)
    if identity.is_folder:
        raise SafeOpenError("directory", "it is not a regular file")
    if not identity.is_regular:
        # Never opened: a FIFO would hold the server's SFTP session.
        raise SafeOpenError("not_regular", "it is not a regular file")
    refuse_denied(policy, real)
    try:
        file = await sftp.open(real, "rb")
    except asyncssh.SFTPError as error:
        raise lookup_error(error) from error
    try:
        if await fstat(file) != identity:
            raise changed(real)
        return await read_exactly(file, size, 0)
    finally:
        await file.close()


# -- write_file --------------------------------------------------------------------


async def _existing_folder(
    sftp: asyncssh.SFTPClient, place: Place, parts: list[str]
) -> tuple[str, list[str]]:
    """The deepest existing folder of ``parts`` (real) and the names still missing."""
    for depth in range(len(parts), -1, -1):
        try:
            real = await inside(sftp, place, posixpath.join(place.root, *parts[:depth]))
        except SafeOpenError as error:
            if error.reason == "missing":
                continue
            raise
        try:
            found = await stat_following(sftp, real)
        except SafeOpenError as error:
            if error.reason == "missing":
                continue  # realpath may resolve a name that is not there
            raise
        if not found.is_folder:
            name = parts[depth - 1] if depth else place.root
            raise SafeOpenError("not_regular", f"{name!r} is not a folder")
        return real, parts[depth:]
    raise SafeOpenError("missing", "the workspace folder is missing")


async def write_file(
    sftp: asyncssh.SFTPClient, place: Place, lexical: str, policy: Policy, data: bytes
) -> None:
    """Replace the workspace file ``lexical`` with ``data``, whole, never via a link.

    The bytes go to a new file (exclusive create) in the verified folder and
    are renamed over the name, as locally.
    """
    relative = posixpath.relpath(lexical, place.root).split("/")
    folder, missing = await _existing_folder(sftp, place, relative[:-1])
    name = relative[-1]
    refuse_denied(policy, posixpath.join(folder, *missing, name))
    for part in missing:
        child = posixpath.join(folder, part)
        try:
            await sftp.mkdir(child)
        except asyncssh.SFTPFailure:
            pass  # made meanwhile; inside() below checks what it is
        except asyncssh.SFTPError as error:
            raise lookup_error(error) from error
        folder = await inside(sftp, place, child)
    target = posixpath.join(folder, name)
    mode = 0o644
    try:
        existing: RemoteIdentity | None = await lstat(sftp, target)
    except SafeOpenError:
        existing = None
    if existing is not None and existing.is_symlink:
        raise SafeOpenError("symlink", "it is a symbolic link; links are not replaced")
    if existing is not None and not existing.is_regular:
        raise SafeOpenError("not_regular", "it is not a regular file")
    if existing is not None:
        mode = S_IMODE(existing.mode)
    await _replace(sftp, place, folder, name, data, mode)


async def _replace(
    sftp: asyncssh.SFTPClient,
    place: Place,
    folder: str,
    name: str,
    data: bytes,
    mode: int,
) -> None:
    temporary = posixpath.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
    attrs = asyncssh.SFTPAttrs(permissions=mode)
    try:
        file = await sftp.open(temporary, "xb", attrs)
    except asyncssh.SFTPError as error:
        raise lookup_error(error) from error
    try:
        try:
            await file.write(data, 0)
            await file.fsync()
        except asyncssh.SFTPOpUnsupported:
            pass  # a server without fsync: the rename still replaces whole
        finally:
            await file.close()
        # A folder swapped for a link after it was checked would have put the
        # file elsewhere: see where it really is before it takes the name.
        if posixpath.dirname(await real_path(sftp, temporary)) != folder:
            raise OutsideRootError
        target = posixpath.join(folder, name)
        try:
            await sftp.posix_rename(temporary, target)
        except asyncssh.SFTPOpUnsupported:
            await sftp.rename(temporary, target)
    except BaseException:
        with contextlib.suppress(asyncssh.SFTPError):
            await sftp.remove(temporary)
        raise


# -- public images -----------------------------------------------------------------


async def public_files(
    sftp: asyncssh.SFTPClient, place: Place, policy: Policy
) -> list[PublicFile]:
    """Regular, allowed files directly in ``<root>/public``; a linked folder is not."""
    folder = posixpath.join(place.root, PUBLIC_FOLDER)
    try:
        if not (await lstat(sftp, folder)).is_folder:
            return []
        names, _cut = await scan(sftp, folder, MAX_SCANNED)
    except SafeOpenError:
        return []
    found: list[PublicFile] = []
    for name, identity in names:
        path = posixpath.join(folder, name)
        if not identity.is_regular or policy.denying_rule(path) is not None:
            continue
        file = PublicFile(name, PurePosixPath(path), identity.size, image_mime(name))
        found.append(file)
    return sorted(found, key=lambda file: file.name)
