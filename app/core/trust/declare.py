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

MAX_FILES = 8
MAX_DESCRIPTION = 500

# Failure reasons, one per failing entry, and the call-level ones.
MISSING = "missing"
FORBIDDEN = "forbidden"
DIRECTORY = "directory"
SYMLINK = "symlink"
NOT_REGULAR = "not_regular"
UNREADABLE = "unreadable"
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
    scope = "workspace" if is_within(resolved, root) else "external"
    # Policy first: a denied path is refused as forbidden whatever else it is,
    # so the error never confirms what kind of thing a secret path holds.
    for candidate in dict.fromkeys(
        (resolved, os.path.abspath(os.path.join(root, path)))
    ):
        rule = policy.denying_rule(candidate)
        if rule is not None:
            raise _RefusedError(
                FORBIDDEN, f"denied by read-deny rule {rule.describe()}"
            )
    if scope == "external" and mode is PermissionMode.WORKSPACE_ONLY:
        raise _RefusedError(
            FORBIDDEN,
            "outside the workspace, and the permission mode is workspace-only",
        )
    try:
        status = os.lstat(resolved)
    except (FileNotFoundError, NotADirectoryError) as error:
        raise _RefusedError(MISSING, "no such file") from error
    except PermissionError as error:
        raise _RefusedError(
            UNREADABLE, "permission denied while looking it up"
        ) from error
    except OSError as error:
        raise _RefusedError(
            MISSING, f"cannot be looked up: {error.strerror}"
        ) from error
    if stat.S_ISLNK(status.st_mode):
        raise _RefusedError(SYMLINK, "the final path component is a symbolic link")
    if stat.S_ISDIR(status.st_mode):
        raise _RefusedError(DIRECTORY, "it is a folder, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise _RefusedError(NOT_REGULAR, "not a regular file (FIFO, socket or device)")
    pseudo = pseudo_filesystem_at(resolved)
    if pseudo is not None:
        raise _RefusedError(
            NOT_REGULAR, f"a live system file ({pseudo} file system), not a document"
        )
    if not os.access(resolved, os.R_OK, follow_symlinks=False):
        raise _RefusedError(UNREADABLE, "the session cannot read it")
    return resolved, status, scope


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
