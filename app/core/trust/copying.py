"""Copy a verified file's bytes to a new file, all or nothing, from its descriptor."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass

from app.core.trust.safeio import VerifiedFile

CHUNK_SIZE = 1 << 20
# A file with no owner's choice to keep (a sealed in-memory snapshot) is
# copied for its owner alone.
PRIVATE_MODE = 0o600

_umask_lock = threading.Lock()


def current_umask() -> int:
    """This process's umask: the permission bits new files do not get."""
    # Linux (4.7 and later) reports it without changing it.
    with (
        contextlib.suppress(OSError, ValueError, IndexError),
        open("/proc/self/status", encoding="latin-1") as status,
    ):
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8) & 0o777
    # Elsewhere it is read by setting it: to the strictest mask, so a file
    # another thread creates meanwhile is made tighter, never looser.
    with _umask_lock:
        mask = os.umask(0o077)
        os.umask(mask)
    return mask


def copy_mode(source_mode: int, umask: int, *, limit: int = 0o666) -> int:
    """The permissions of a copy of a file with ``source_mode``.

    Never more readable (or writable) than the source, than the umask allows
    or than ``limit``; never executable. The owner, who could read the source
    to copy it, can always read the copy.
    """
    return (source_mode & limit & ~umask & 0o666) | stat.S_IRUSR


def source_mode(source: VerifiedFile) -> int:
    """The permission bits of the file behind ``source``, read from its descriptor."""
    if source.real_path is None:
        return PRIVATE_MODE
    return stat.S_IMODE(os.fstat(source.fd).st_mode)


def create_part(target: str, mode: int) -> tuple[int, str]:
    """A new, empty temporary file beside ``target``, already at exactly ``mode``.

    Made exclusively (never an existing file or a link) and given its mode
    through the descriptor before a byte is written, so no partial copy is
    ever more readable than the finished one. Returns the descriptor and path.
    """
    folder = os.path.dirname(os.path.abspath(target))
    prefix = "." + os.path.basename(target) + "."
    handle, temp = tempfile.mkstemp(prefix=prefix, suffix=".part", dir=folder)
    try:
        fchmod = getattr(os, "fchmod", None)
        if fchmod is not None:
            fchmod(handle, mode)
        else:  # Windows before Python 3.13: only read-only is a mode there
            os.chmod(temp, mode)
    except BaseException:
        os.close(handle)
        _remove(temp)
        raise
    return handle, temp


@dataclass(frozen=True)
class CopyResult:
    """How one copy ended; ``reason`` is plain text when it did not succeed."""

    target: str
    written: int
    ok: bool
    cancelled: bool = False
    reason: str = ""


class _CancelledError(Exception):
    pass


class _ChangedError(Exception):
    pass


def copy_verified(
    source: VerifiedFile,
    target: str,
    *,
    is_cancelled: Callable[[], bool] = lambda: False,
    on_chunk: Callable[[int], None] | None = None,
    limit: int = 0o666,
    chunk_size: int = CHUNK_SIZE,
) -> CopyResult:
    """Copy the checked file behind ``source`` to ``target``, all or nothing.

    Bytes come from the descriptor only: the path may lead elsewhere by now.
    The copy goes to a temporary file beside ``target`` and replaces it only
    when complete and only if the source kept its identity throughout, so a
    cancelled, failed or torn copy leaves nothing behind. Its permissions are
    the source's, less the umask and anything ``limit`` leaves out
    (``copy_mode``), from its first byte on.
    """
    written = 0
    try:
        mode = copy_mode(source_mode(source), current_umask(), limit=limit)
        handle, temp = create_part(target, mode)
    except OSError as error:
        return CopyResult(target, 0, False, reason=f"cannot write there: {error}")
    try:
        with os.fdopen(handle, "wb") as out:
            for chunk in source.chunks(chunk_size):
                if is_cancelled():
                    raise _CancelledError
                out.write(chunk)
                written += len(chunk)
                if on_chunk is not None:
                    on_chunk(written)
            if is_cancelled():
                raise _CancelledError
            out.flush()
            os.fsync(out.fileno())
        # Writes into the open file change its size or mtime: a copy spanning
        # two versions is refused rather than saved.
        if source.current_identity() != source.identity:
            raise _ChangedError
        if written != source.identity.size:
            raise _ChangedError
        os.replace(temp, target)
    except _CancelledError:
        _remove(temp)
        return CopyResult(target, written, False, cancelled=True, reason="cancelled")
    except _ChangedError:
        _remove(temp)
        reason = "the file changed while it was being copied; nothing was saved"
        return CopyResult(target, written, False, reason=reason)
    except OSError as error:
        _remove(temp)
        return CopyResult(target, written, False, reason=f"the copy failed: {error}")
    except BaseException:
        _remove(temp)
        raise
    return CopyResult(target, written, True)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
