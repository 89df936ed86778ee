"""Open declared files through descriptors so a swap between check and use is caught."""

from __future__ import annotations

import ctypes
import errno
import functools
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


# Linux file system magic numbers (statfs f_type) of pseudo file systems: their
# "regular files" are live views of processes and the kernel, not documents
# (/proc/self/environ holds the app's environment and its API keys).
PSEUDO_FILESYSTEMS: dict[int, str] = {
    0x9FA0: "proc",
    0x62656572: "sysfs",
    0x1CD1: "devpts",
    0x64626720: "debugfs",
    0x74726163: "tracefs",
    0x73636673: "securityfs",
    0x27E0EB: "cgroup",
    0x63677270: "cgroup2",
    0xCAFE4A11: "bpf",
    0x62656570: "configfs",
    0x6165676C: "pstore",
    0xDE5E81E4: "efivarfs",
    0x65735543: "fusectl",
    0x19800202: "mqueue",
    0x42494E4D: "binfmt_misc",
    0x6E736673: "nsfs",
    0xF97CFF8C: "selinuxfs",
    0x43415D53: "smackfs",
    0x67596969: "rpc_pipefs",
    0x0187: "autofs",
}
_STATFS_BUFFER = 512  # larger than struct statfs on every Linux ABI


@functools.cache
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _filesystem_magic(call: str, target: int | bytes) -> int | None:
    libc = _libc()
    if libc is None:
        return None
    buffer = ctypes.create_string_buffer(_STATFS_BUFFER)
    if getattr(libc, call)(target, buffer) != 0:
        return None
    # f_type is the first field of struct statfs, a native long; the magic
    # numbers fit in its low 32 bits.
    return ctypes.c_ulong.from_buffer(buffer).value & 0xFFFFFFFF


def pseudo_filesystem(fd: int) -> str | None:
    """The name of the pseudo file system ``fd`` lives on, or ``None``.

    Decided by the mount's type, not the path, so /proc mounted elsewhere (or
    reached through a link) is caught too. Other systems than Linux answer
    ``None``; their device folders are denied by path.
    """
    magic = _filesystem_magic("fstatfs", fd)
    return None if magic is None else PSEUDO_FILESYSTEMS.get(magic)


def pseudo_filesystem_at(path: str) -> str | None:
    """Like ``pseudo_filesystem``, for a path, without opening it (metadata only)."""
    magic = _filesystem_magic("statfs", os.fsencode(path))
    return None if magic is None else PSEUDO_FILESYSTEMS.get(magic)


class VerifiedFile:
    """A regular file opened without following a final symlink.

    Holds the descriptor, the identity taken from it with ``fstat`` and the
    real path the kernel reports; reads go through the descriptor, never the path.
    """

    def __init__(self, fd: int, identity: Identity, real_path: str | None) -> None:
        self.fd = fd
        self.identity = identity
        self.real_path = real_path

    @classmethod
    def from_bytes(
        cls, data: bytes, identity: Identity, name: str = "snapshot"
    ) -> Self:
        """A verified file holding ``data``: a sealed in-memory file, no path.

        For bytes verified elsewhere (a snapshot fetched from a remote host):
        the memory file is sealed against writes, growth and shrinking, so it
        stays the version ``identity`` names, and previews read it through a
        real descriptor as any opened file. ``real_path`` is ``None``: nothing
        on the local disk stands for it.
        """
        if len(data) != identity.size:
            raise ValueError("the bytes are not as long as their identity says")
        fd = _sealed_memory_file(data, name)
        return cls(fd, identity, None)

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
        if self.real_path is None and _is_sealed(self.fd):
            # A sealed memory file cannot change: it is the version it was made.
            return self.identity
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


_SEALS = ("F_SEAL_WRITE", "F_SEAL_GROW", "F_SEAL_SHRINK", "F_SEAL_SEAL")


def _sealed_memory_file(data: bytes, name: str) -> int:
    import fcntl

    create = getattr(os, "memfd_create", None)
    if create is None or not all(hasattr(fcntl, seal) for seal in _SEALS):
        raise SafeOpenError("unreadable", "this system cannot hold a sealed copy")
    flags = os.MFD_CLOEXEC | getattr(os, "MFD_ALLOW_SEALING", 2)
    fd: int = create(name.replace("/", "_")[:200] or "snapshot", flags)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        seals = 0
        for seal in _SEALS:
            seals |= getattr(fcntl, seal)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_sealed(fd: int) -> bool:
    """Whether ``fd`` is a memory file sealed against every change."""
    import fcntl

    get_seals = getattr(fcntl, "F_GET_SEALS", None)
    if get_seals is None:
        return False
    try:
        seals = fcntl.fcntl(fd, get_seals)
    except OSError:
        return False
    wanted = 0
    for seal in _SEALS:
        wanted |= getattr(fcntl, seal)
    return seals & wanted == wanted


def open_verified(path: str) -> VerifiedFile:
    """Open ``path`` read-only, refusing a final symlink and anything not regular.

    ``O_NONBLOCK`` makes a FIFO come back at once instead of waiting for a writer;
    ``fstat`` on the descriptor, not ``stat`` on the path, says what was opened.
    """
    return _open_checked(path, None)


def open_verified_at(folder_fd: int, name: str) -> VerifiedFile:
    """Like ``open_verified``, for ``name`` in the folder open as ``folder_fd``."""
    return _open_checked(name, folder_fd)


def _open_checked(path: str, folder_fd: int | None) -> VerifiedFile:
    if "\0" in path:
        raise SafeOpenError("missing", "the path contains a NUL byte")
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=folder_fd)
    except FileNotFoundError as error:
        raise SafeOpenError("missing", "the file no longer exists") from error
    except NotADirectoryError as error:
        raise SafeOpenError("missing", "a folder on the path is gone") from error
    except PermissionError as error:
        raise SafeOpenError("unreadable", "permission to read it is denied") from error
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EMLINK):
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
        pseudo = pseudo_filesystem(fd)
        if pseudo is not None:
            raise SafeOpenError(
                "not_regular",
                f"it is a live system file ({pseudo} file system), not a document",
            )
        if hasattr(os, "set_blocking"):
            # Regular files never block; clear the flag so reads behave normally.
            os.set_blocking(fd, True)
        return VerifiedFile(fd, Identity.of(status), fd_path(fd))
    except BaseException:
        os.close(fd)
        raise
