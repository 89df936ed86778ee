"""Copy a verified file's bytes to a new file, all or nothing, from its descriptor."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

from app.core.safeio import VerifiedFile

CHUNK_SIZE = 1 << 20


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
    mode: int = 0o644,
    chunk_size: int = CHUNK_SIZE,
) -> CopyResult:
    """Copy the checked file behind ``source`` to ``target``, all or nothing.

    Bytes come from the descriptor only: the path may lead elsewhere by now.
    The copy goes to a temporary file beside ``target`` and replaces it only
    when complete and only if the source kept its identity throughout, so a
    cancelled, failed or torn copy leaves nothing behind.
    """
    folder = os.path.dirname(os.path.abspath(target))
    prefix = "." + os.path.basename(target) + "."
    written = 0
    try:
        handle, temp = tempfile.mkstemp(prefix=prefix, suffix=".part", dir=folder)
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
        os.chmod(temp, mode)
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
