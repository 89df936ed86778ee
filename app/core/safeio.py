"""Open declared files through descriptors so a swap between check and use is caught."""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Self

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
)


@dataclass(frozen=True)
class Identity:
    """What makes a file the same file: device, inode, size and mtime (ns)."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, status: os.stat_result) -> Identity:
        return cls(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)

    def same_file(self, other: Identity) -> bool:
        return (self.device, self.inode) == (other.device, other.inode)


class SafeOpenError(OSError):
    """The file could not be opened safely; ``reason`` is a verdict-style word."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def fd_path(fd: int) -> str | None:
    """The path the kernel holds for an open descriptor, or ``None`` if unknown."""
    if sys.platform.startswith("linux"):
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return None
    if sys.platform == "darwin":
        import fcntl

        f_getpath = getattr(fcntl, "F_GETPATH", 50)
        try:
            raw = fcntl.fcntl(fd, f_getpath, b"\0" * 1024)
        except OSError:
            return None
        return raw.split(b"\0", 1)[0].decode(sys.getfilesystemencoding(), "replace")
    return None


class VerifiedFile:
    """A regular file opened without following a final symlink.

    Holds the descriptor, the identity taken from it with ``fstat`` and the
    real path the kernel reports; reads go through the descriptor, never the path.
    """

    def __init__(self, fd: int, identity: Identity, real_path: str | None) -> None:
        self.fd = fd
        self.identity = identity
        self.real_path = real_path

    def read(self, size: int = -1, offset: int = 0) -> bytes:
        """Read up to ``size`` bytes (to the end when negative) from ``offset``."""
        if size >= 0:
            return os.pread(self.fd, size, offset)
        return b"".join(self.chunks(start=offset))

    def chunks(self, chunk_size: int = 1 << 20, start: int = 0) -> Iterator[bytes]:
        position = start
        while chunk := os.pread(self.fd, chunk_size, position):
            position += len(chunk)
            yield chunk

    def current_identity(self) -> Identity:
        return Identity.of(os.fstat(self.fd))

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def open_verified(path: str) -> VerifiedFile:
    """Open ``path`` read-only, refusing a final symlink and anything not regular.

    ``O_NONBLOCK`` makes a FIFO come back at once instead of waiting for a writer;
    ``fstat`` on the descriptor, not ``stat`` on the path, says what was opened.
    """
    if "\0" in path:
        raise SafeOpenError("missing", "the path contains a NUL byte")
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError as error:
        raise SafeOpenError("missing", "the file no longer exists") from error
    except NotADirectoryError as error:
        raise SafeOpenError("missing", "a folder on the path is gone") from error
    except PermissionError as error:
        raise SafeOpenError("unreadable", "permission to read it is denied") from error
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise SafeOpenError("symlink", "the file is now a symbolic link") from error
        if error.errno in (errno.ENXIO, errno.EOPNOTSUPP):
            # A socket or a FIFO without a reader answers these on some systems.
            raise SafeOpenError("not_regular", "it is not a regular file") from error
        raise SafeOpenError("unreadable", f"it cannot be opened: {error}") from error
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            reason = "directory" if stat.S_ISDIR(status.st_mode) else "not_regular"
            raise SafeOpenError(reason, "it is not a regular file")
        if hasattr(os, "set_blocking"):
            # Regular files never block; clear the flag so reads behave normally.
            os.set_blocking(fd, True)
        return VerifiedFile(fd, Identity.of(status), fd_path(fd))
    except BaseException:
        os.close(fd)
        raise
