"""The `present` check: 1 to 8 declared files, all or nothing, metadata only."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.core.filetype import kind_from_name
from app.core.trust.paths import is_within, resolve_keep_leaf
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.records import FileEntry, Record
from app.core.trust.safeio import pseudo_filesystem_at
from app.core.trust.verdicts import DIRECTORY as DIRECTORY
from app.core.trust.verdicts import FORBIDDEN as FORBIDDEN
from app.core.trust.verdicts import MISSING as MISSING
from app.core.trust.verdicts import NOT_REGULAR as NOT_REGULAR
from app.core.trust.verdicts import REGULAR, Found, present_refusal
from app.core.trust.verdicts import SYMLINK as SYMLINK
from app.core.trust.verdicts import UNREADABLE as UNREADABLE

MAX_FILES = 8
MAX_DESCRIPTION = 500

# Failure reasons beyond what a look-up finds (those come from the verdicts
# module), one per failing entry, and the call-level ones.
DUPLICATE = "duplicate"
INVALID = "invalid"
EMPTY = "empty"
TOO_MANY = "too_many"


@dataclass(frozen=True)
class EntryFailure:
    """Why one declared entry was refused."""

    index: int
    path: str
    reason: str
    detail: str

    def to_dict(self) -> dict[str, object]:
        return {
            "index": self.index,
            "path": self.path,
            "reason": self.reason,
            "detail": self.detail,
        }


class DeclarationError(ValueError):
    """The whole declaration failed; ``failures`` names every failing entry.

    ``reason`` is a call-level reason (``empty``, ``too_many``, ``invalid``) or
    ``None`` when the failures are per entry.
    """

    def __init__(
        self,
        message: str,
        failures: tuple[EntryFailure, ...] = (),
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.failures = failures
        self.reason = reason

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "error": self.message,
            "entries": [failure.to_dict() for failure in self.failures],
        }
        if self.reason is not None:
            data["reason"] = self.reason
        return data


class EntryRefusedError(Exception):
    """One entry fails with ``reason``; the check collects these into the error."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


# The short name the checks below raise; other checks (the remote one) use
# the public one.
_RefusedError = EntryRefusedError


def check_shape(item: object) -> tuple[str, str]:
    """The entry's path and description, or ``EntryRefusedError`` (invalid)."""
    if not isinstance(item, Mapping):
        raise _RefusedError(
            INVALID, "each entry must be an object with path and description"
        )
    path, description = item.get("path"), item.get("description")
    if not isinstance(path, str) or not path.strip():
        raise _RefusedError(INVALID, "the path is empty")
    if "\0" in path:
        raise _RefusedError(INVALID, "the path contains a NUL byte")
    if not isinstance(description, str) or not description.strip():
        raise _RefusedError(INVALID, "the description must be a non-empty string")
    if len(description) > MAX_DESCRIPTION:
        raise _RefusedError(
            INVALID, f"the description is longer than {MAX_DESCRIPTION} characters"
        )
    extra = set(item) - {"path", "description"}
    if extra:
        raise _RefusedError(INVALID, f"unexpected fields: {', '.join(sorted(extra))}")
    return path, description


def _check_file(
    path: str, root: str, mode: PermissionMode, policy: Policy
) -> tuple[str, os.stat_result, str]:
    resolved = resolve_keep_leaf(path, root)
    inside = is_within(resolved, root)
    status, found = _look_up(resolved)
    names = (resolved, os.path.abspath(os.path.join(root, path)))
    refusal = present_refusal(policy, names, inside=inside, mode=mode, found=found)
    if refusal is not None:
        raise _RefusedError(refusal.reason, refusal.detail)
    assert status is not None
    return resolved, status, "workspace" if inside else "external"


def _look_up(resolved: str) -> tuple[os.stat_result | None, Found]:
    """What sits at ``resolved``: metadata only, nothing is opened."""
    try:
        status = os.lstat(resolved)
    except (FileNotFoundError, NotADirectoryError):
        return None, Found(MISSING)
    except PermissionError:
        return None, Found(UNREADABLE)
    except OSError as error:
        return None, Found(MISSING, error=f"{error.strerror}")
    if stat.S_ISLNK(status.st_mode):
        return status, Found(SYMLINK)
    if stat.S_ISDIR(status.st_mode):
        return status, Found(DIRECTORY)
    if not stat.S_ISREG(status.st_mode):
        return status, Found(NOT_REGULAR)
    pseudo = pseudo_filesystem_at(resolved)
    readable = pseudo is None and os.access(resolved, os.R_OK, follow_symlinks=False)
    return status, Found(REGULAR, readable=readable, pseudo=pseudo)


def declared_items(arguments: object) -> list[Any]:
    """The call's entries, or the call-level ``DeclarationError`` (empty, ...)."""
    if not isinstance(arguments, Mapping) or not isinstance(
        arguments.get("files"), list
    ):
        raise DeclarationError(
            'present needs {"files": [{"path": ..., "description": ...}]}',
            reason=INVALID,
        )
    items: list[Any] = arguments["files"]
    if not items:
        raise DeclarationError("present needs at least one file", reason=EMPTY)
    if len(items) > MAX_FILES:
        raise DeclarationError(
            f"present accepts at most {MAX_FILES} files, got {len(items)}",
            reason=TOO_MANY,
        )
    return items


def shown_path(item: object) -> str:
    """How an entry's path is named in a failure, whatever its type."""
    given = item.get("path") if isinstance(item, Mapping) else None
    return given if isinstance(given, str) else repr(given)


def entries_failed(failures: list[EntryFailure], total: int) -> DeclarationError:
    """The error for a call whose entries ``failures`` failed, naming each."""
    lines = "; ".join(f"{f.path!r}: {f.reason} ({f.detail})" for f in failures)
    return DeclarationError(
        f"present failed, nothing was recorded. {len(failures)} of {total} "
        f"entries failed: {lines}",
        tuple(failures),
    )


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def declare(
    arguments: object,
    *,
    workspace: Path | str,
    mode: PermissionMode,
    policy: Policy,
    clock: Callable[[], str] = utc_now,
) -> Record:
    """Check a ``present`` call's arguments and return its record, or raise.

    Reads metadata only (``lstat``, ``access``): no declared file is opened.
    Raises ``DeclarationError`` naming every failing entry if any entry fails.
    """
    items = declared_items(arguments)
    root = os.path.realpath(os.fspath(workspace))
    entries: list[FileEntry] = []
    failures: list[EntryFailure] = []
    seen: dict[tuple[int, int], str] = {}
    for index, item in enumerate(items):
        shown = shown_path(item)
        try:
            path, description = check_shape(item)
            resolved, status, scope = _check_file(path, root, mode, policy)
            identity = (status.st_dev, status.st_ino)
            if identity in seen:
                raise _RefusedError(
                    DUPLICATE, f"names the same file as {seen[identity]!r}"
                )
            seen[identity] = path
        except _RefusedError as refused:
            failures.append(EntryFailure(index, shown, refused.reason, refused.detail))
            continue
        entries.append(
            FileEntry(
                path=path,
                resolved=resolved,
                description=description,
                scope=scope,
                size=status.st_size,
                mtime_ns=status.st_mtime_ns,
                device=status.st_dev,
                inode=status.st_ino,
                kind=kind_from_name(resolved),
            )
        )
    if failures:
        raise entries_failed(failures, len(items))
    return Record(declared_at=clock(), workspace=root, files=tuple(entries))
