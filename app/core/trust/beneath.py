"""Reach files under a root folder through descriptors, so a swap cannot lead out.

The agent's tools take paths relative to the workspace. Checking a path with
``realpath()`` and then opening it by name loses a race: another process can
turn a folder of the path into a symlink between the two. Here every step is
an ``openat`` of one name relative to the folder opened before it, with
``O_NOFOLLOW``, so what is opened is always a real child of the last real
folder. Symlinks are still followed, by this code and not the kernel, and only
while they stay inside the root. Writes go to a new file made with
``O_EXCL`` in the verified folder, then renamed over the target.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from dataclasses import dataclass

from app.core.trust.paths import is_within
from app.core.trust.safeio import (
    Identity,
    SafeOpenError,
    VerifiedFile,
    fd_path,
    open_verified_at,
)

MAX_LINK_HOPS = 40
_DIR_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_DIRECTORY", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_NEW_FILE_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


class OutsideRootError(SafeOpenError):
    """The path leads outside the root folder."""

    def __init__(self, message: str = "it leads outside the workspace") -> None:
        super().__init__("outside", message)


@dataclass(frozen=True)
class WriteTarget:
    """Where a write will land: an open verified folder and a name in it.

    ``missing`` are folders still to create below ``folder_fd`` before the file;
    ``real_path`` is the file's final real path, for the policy to judge.
    """

    folder_fd: int
    missing: tuple[str, ...]
    name: str
    real_path: str


class Beneath:
    """Files under one root folder, reached only through descriptors."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)

    # -- paths -------------------------------------------------------------------

    def parts_of(self, given: str) -> list[str]:
        """``given`` as components below the root, ``..`` applied lexically."""
        if not given or "\0" in given:
            raise SafeOpenError("invalid", "the path is empty or contains a NUL byte")
        if os.path.isabs(given):
            absolute = os.path.normpath(given)
            if not is_within(absolute, self.root):
                raise OutsideRootError
            given = os.path.relpath(absolute, self.root)
        return _normalised(given.replace(os.sep, "/").split("/"))

    def lexical_path(self, given: str) -> str:
        """The absolute path ``given`` names before any link is followed."""
        return self._join(self.parts_of(given))

    def _join(self, parts: list[str] | tuple[str, ...]) -> str:
        return os.path.join(self.root, *parts) if parts else self.root

    # -- walking -----------------------------------------------------------------

    def _walk(
        self, parts: list[str], *, stop_at_missing: bool
    ) -> tuple[int, list[str], list[str]]:
        """Open the folder ``parts`` names, following links that stay inside.

        Returns its fd, its real components below the root, and the names of
        missing folders (only with ``stop_at_missing``; otherwise a missing
        folder is an error) for the caller to create.
        """
        hops = 0
        while True:
            fd = os.open(self.root, _DIR_FLAGS)
            done: list[str] = []
            try:
                for index, name in enumerate(parts):
                    try:
                        child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                    except FileNotFoundError:
                        if stop_at_missing:
                            return fd, done, parts[index:]
                        raise SafeOpenError(
                            "missing", "a folder on the path is missing"
                        ) from None
                    except OSError as error:
                        target = self._link_target(fd, name, done, error)
                        hops += 1
                        if hops > MAX_LINK_HOPS:
                            raise SafeOpenError(
                                "symlink", "too many symbolic links"
                            ) from error
                        parts = _normalised([*target, *parts[index + 1 :]])
                        break
                    os.close(fd)
                    fd = child
                    done.append(name)
                else:
                    return fd, done, []
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)

    def _link_target(
        self, fd: int, name: str, done: list[str], error: OSError
    ) -> list[str]:
        """The components, from the root, that symlink ``name`` in ``fd`` means."""
        if error.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            if isinstance(error, PermissionError):
                raise SafeOpenError("unreadable", "permission denied") from error
            raise SafeOpenError("unreadable", f"cannot be opened: {error}") from error
        try:
            status = os.lstat(name, dir_fd=fd)
            target = (
                os.readlink(name, dir_fd=fd) if stat.S_ISLNK(status.st_mode) else ""
            )
        except OSError:
            return [*done, name]  # changed under us: walk it again
        if not stat.S_ISLNK(status.st_mode):
            regular_leaf = stat.S_ISREG(status.st_mode) and error.errno == errno.ELOOP
            if stat.S_ISDIR(status.st_mode) or regular_leaf:
                # It was a link a moment ago; walk it again as it is now.
                return [*done, name]
            raise SafeOpenError("not_regular", f"{name!r} is not a folder") from error
        if os.path.isabs(target):
            absolute = os.path.normpath(target)
            if not is_within(absolute, self.root):
                raise OutsideRootError("a symbolic link on the path leads outside")
            return os.path.relpath(absolute, self.root).split(os.sep)
        return [*done, *target.split("/")]

    # -- reading -----------------------------------------------------------------

    def open_file(self, given: str) -> VerifiedFile:
        """Open a regular file under the root for reading, links followed inside."""
        parts = self.parts_of(given)
        for _hop in range(MAX_LINK_HOPS):
            if not parts:
                raise SafeOpenError("directory", "it is the workspace folder")
            fd, done, _missing = self._walk(parts[:-1], stop_at_missing=False)
            try:
                opened = open_verified_at(fd, parts[-1])
            except SafeOpenError as error:
                if error.reason != "symlink":
                    raise
                link_error = OSError(errno.ELOOP, "symbolic link")
                parts = _normalised(self._link_target(fd, parts[-1], done, link_error))
                continue
            finally:
                os.close(fd)
            return self._inside_or_close(opened)
        raise SafeOpenError("symlink", "too many symbolic links")

    def open_folder(self, given: str) -> tuple[int, str]:
        """Open a folder under the root; its fd (caller closes it) and real path."""
        fd, _done, _missing = self._walk(self.parts_of(given), stop_at_missing=False)
        real = fd_path(fd)
        if real is not None and not is_within(real, self.root):
            os.close(fd)
            raise OutsideRootError
        return fd, real if real is not None else self.root

    def _inside_or_close(self, opened: VerifiedFile) -> VerifiedFile:
        real = opened.real_path
        if real is not None and not is_within(real, self.root):
            # A folder already opened was moved out of the root meanwhile.
            opened.close()
            raise OutsideRootError
        return opened

    # -- writing -----------------------------------------------------------------

    def locate_for_write(self, given: str) -> WriteTarget:
        """Where writing ``given`` would land; the caller closes ``folder_fd``."""
        parts = self.parts_of(given)
        if not parts or parts[-1] in (".", ".."):
            raise SafeOpenError("invalid", "the path does not name a file")
        fd, done, missing = self._walk(parts[:-1], stop_at_missing=True)
        real_folder = fd_path(fd)
        if real_folder is None:
            real_folder = self._join(done)
        if not is_within(real_folder, self.root):
            os.close(fd)
            raise OutsideRootError
        return WriteTarget(
            fd,
            tuple(missing),
            parts[-1],
            os.path.join(real_folder, *missing, parts[-1]),
        )

    def write(self, target: WriteTarget, data: bytes) -> Identity:
        """Create the missing folders and replace the file with ``data``, whole.

        The bytes go to a new file created with ``O_EXCL`` in the verified
        folder and are renamed over the name, so nothing outside the root is
        ever opened, truncated or written through a link. Returns the new
        file's identity, taken from its own descriptor.
        """
        fd = os.dup(target.folder_fd)
        try:
            for name in target.missing:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o755, dir_fd=fd)
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = child
            return _replace_file(fd, target.name, data)
        finally:
            os.close(fd)


def _replace_file(folder_fd: int, name: str, data: bytes) -> Identity:
    try:
        status: os.stat_result | None = os.lstat(name, dir_fd=folder_fd)
    except FileNotFoundError:
        status = None
    if status is not None and stat.S_ISLNK(status.st_mode):
        raise SafeOpenError("symlink", "it is a symbolic link; links are not replaced")
    if status is not None and not stat.S_ISREG(status.st_mode):
        raise SafeOpenError("not_regular", "it is not a regular file")
    mode = stat.S_IMODE(status.st_mode) if status is not None else 0o644
    temporary = f".{name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(temporary, _NEW_FILE_FLAGS, mode, dir_fd=folder_fd)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            # A rename keeps the inode and mtime, so this is the file's identity.
            identity = Identity.of(os.fstat(handle.fileno()))
        os.rename(temporary, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=folder_fd)
        raise
    return identity


def _normalised(parts: list[str]) -> list[str]:
    """Drop ``.`` and empty parts and apply ``..``; refuse climbing above the root."""
    out: list[str] = []
    for part in parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not out:
                raise OutsideRootError
            out.pop()
        else:
            out.append(part)
    return out
