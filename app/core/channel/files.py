"""The notification channel's files: a private folder, the socket path, the token.

The channel is a door into the running window, so nothing here is used
unless it is provably the user's own: the folder must be a real folder owned
by the user with no access for anyone else (0700), and the token a regular
file of the user's with mode 0600. Anything else is refused with the reason.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from app.core.trust.app_files import runtime_dir

TOKEN_BYTES: Final = 32
TOKEN_LENGTH: Final = 2 * TOKEN_BYTES  # written as hexadecimal text
# sun_path holds 108 bytes on Linux and 104 on macOS, its final NUL included.
MAX_SOCKET_PATH: Final = 103
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)


class ChannelError(RuntimeError):
    """The channel's folder or token cannot be trusted or used; says why."""


@dataclass(frozen=True)
class ChannelPaths:
    """Where the window of one store listens, keeps its token and its lock."""

    folder: Path
    socket: Path
    token: Path
    lock: Path


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def verify_private_folder(folder: Path) -> None:
    """Raise ``ChannelError`` unless ``folder`` is the user's own 0700 folder."""
    try:
        status = os.lstat(folder)
    except OSError as error:
        raise ChannelError(
            f"The channel folder {folder} cannot be used: {error.strerror}."
        ) from error
    if stat.S_ISLNK(status.st_mode):
        raise ChannelError(
            f"The channel folder {folder} is a symbolic link; it must be a folder."
        )
    if not stat.S_ISDIR(status.st_mode):
        raise ChannelError(f"The channel folder {folder} is not a folder.")
    uid = _uid()
    if uid is not None and status.st_uid != uid:
        raise ChannelError(
            f"The channel folder {folder} belongs to another user (uid "
            f"{status.st_uid}); remove it so the app can make its own."
        )
    mode = stat.S_IMODE(status.st_mode)
    if uid is not None and mode & 0o077:
        raise ChannelError(
            f"The channel folder {folder} can be used by other users (mode "
            f"{mode:04o}); it must be 0700: run chmod 700 on it."
        )


def channel_folder() -> Path:
    """The user's runtime folder for the channel, made 0700 and verified."""
    folder = runtime_dir()
    # The cache fallback may not exist yet; its parents are ordinary folders.
    folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as error:
        raise ChannelError(
            f"The channel folder {folder} cannot be made: {error.strerror}."
        ) from error
    verify_private_folder(folder)
    return folder


def channel_paths(data_dir: Path | str) -> ChannelPaths:
    """The channel of the window showing the store in ``data_dir``.

    Each store has its own channel, so a window started on another
    ``--data-dir`` is never handed requests or notices meant for this one.
    """
    real = os.path.realpath(os.fspath(data_dir))
    key = hashlib.sha256(os.fsencode(real)).hexdigest()[:16]
    folder = channel_folder()
    socket = folder / f"{key}.sock"
    if len(os.fsencode(socket)) > MAX_SOCKET_PATH:
        raise ChannelError(
            f"The channel socket path {socket} is too long for a local socket; "
            "set XDG_RUNTIME_DIR to a shorter private folder."
        )
    return ChannelPaths(folder, socket, folder / f"{key}.token", folder / f"{key}.lock")


def write_token(path: Path) -> str:
    """Make a fresh random token in ``path`` (mode 0600) and return it."""
    token = secrets.token_bytes(TOKEN_BYTES).hex()
    # Written under a private temporary name, then renamed into place, so a
    # reader never sees half a token and a planted file is replaced, not used.
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    fd = os.open(
        temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600
    )
    try:
        os.write(fd, token.encode("ascii"))
    finally:
        os.close(fd)
    try:
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    return token


def read_token(path: Path) -> str:
    """The token in ``path``; ``FileNotFoundError`` if there is none.

    Raises ``ChannelError`` unless it is a regular file of the user's, 0600,
    holding exactly one token.
    """
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise ChannelError(
            f"The channel token {path} cannot be read ({error.strerror}); "
            "it must be a regular file, not a link."
        ) from error
    try:
        status = os.fstat(fd)
        uid = _uid()
        if not stat.S_ISREG(status.st_mode):
            raise ChannelError(f"The channel token {path} is not a regular file.")
        if uid is not None and status.st_uid != uid:
            raise ChannelError(f"The channel token {path} belongs to another user.")
        if uid is not None and stat.S_IMODE(status.st_mode) & 0o077:
            raise ChannelError(
                f"The channel token {path} can be read by other users; it must be 0600."
            )
        data = os.read(fd, TOKEN_LENGTH + 1)
    finally:
        os.close(fd)
    text = data.decode("ascii", "replace")
    if len(data) != TOKEN_LENGTH or any(c not in "0123456789abcdef" for c in text):
        raise ChannelError(f"The channel token {path} is damaged.")
    return text
