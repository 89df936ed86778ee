"""File-change records: what one file edit did, stored beside its tool result."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Final

CHANGE_VERSION: Final = 1
# Text before an edit is kept up to this size, so a diff can be shown later.
MAX_TEXT_BEFORE: Final = 1 << 20


class Operation(StrEnum):
    CREATED = "created"
    MODIFIED = "modified"
    DELETED = "deleted"


class Before(StrEnum):
    """What is known of a file's content before the change."""

    TEXT = "text"  # kept: ``text_before`` holds it
    ABSENT = "absent"  # there was no file
    BINARY = "binary"
    TOO_LARGE = "too_large"  # over MAX_TEXT_BEFORE, not read
    UNKNOWN = "unknown"  # not recorded (an import whose transcript lacks it)


@dataclass(frozen=True)
class FileChange:
    """One file created, modified or deleted by one edit, version 1.

    ``text_before`` is not part of the JSON: it is stored in a column of its
    own, so a conversation's history loads without every file's old text.
    """

    path: str  # as the tool was given it
    resolved: str  # absolute: the real path for host edits, lexical for imports
    operation: str  # an Operation value
    tool: str
    changed_at: str
    before: str  # a Before value
    size_before: int | None = None
    size_after: int | None = None
    lines_before: int | None = None
    lines_after: int | None = None
    sha256_after: str | None = None
    # The written file's identity, so "changed after the turn" is cheap to see.
    device: int | None = None
    inode: int | None = None
    mtime_ns: int | None = None
    # Known without a diff when a transcript carries its patch.
    lines_added: int | None = None
    lines_removed: int | None = None
    moved_from: str | None = None
    moved_to: str | None = None
    transcript_line: int | None = None  # where an imported change was read
    version: int = CHANGE_VERSION
    text_before: str | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> str:
        # Every field is a plain value: a shallow dict is the whole record, and
        # much cheaper than asdict's deep copy on an import's hot path.
        data = {name: getattr(self, name) for name in _JSON_FIELDS}
        return json.dumps(data, ensure_ascii=False, sort_keys=True)

    def with_text_before(self, text: str | None) -> FileChange:
        return _replace(self, text_before=text)


_JSON_FIELDS: Final = tuple(
    f.name for f in fields(FileChange) if f.name != "text_before"
)


@dataclass(frozen=True)
class UnsupportedChange:
    """A change this app cannot read: kept byte for byte, never trusted."""

    raw: str
    version: object
    problem: str


@dataclass(frozen=True)
class ChangeArtifact:
    """What an edit tool hands the host beside its result: one change per file.

    Typed, so the runner stores every edit tool's changes without a list of
    tool names; it is an artifact and so never reaches a model request.
    """

    changes: tuple[FileChange, ...]


def _replace(change: FileChange, **values: Any) -> FileChange:
    current = {f.name: getattr(change, f.name) for f in fields(change)}
    current.update(values)
    return FileChange(**current)


_REQUIRED_TEXT: Final = ("path", "resolved", "operation", "tool", "changed_at")
_OPTIONAL_INT: Final = (
    "size_before",
    "size_after",
    "lines_before",
    "lines_after",
    "device",
    "inode",
    "mtime_ns",
    "lines_added",
    "lines_removed",
    "transcript_line",
)
_OPTIONAL_TEXT: Final = ("sha256_after", "moved_from", "moved_to")


class _InvalidError(ValueError):
    pass


def _fields_from(data: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in _REQUIRED_TEXT:
        value = data.get(name)
        if not isinstance(value, str):
            raise _InvalidError(f"field {name!r} is missing or not text")
        values[name] = value
    if values["operation"] not in set(Operation):
        raise _InvalidError(f"unknown operation {values['operation']!r}")
    before = data.get("before")
    if before not in set(Before):
        raise _InvalidError(f"unknown before state {before!r}")
    values["before"] = before
    for name in _OPTIONAL_INT:
        value = data.get(name)
        # bool is an int subclass; size=true is not a size.
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool)
        ):
            raise _InvalidError(f"field {name!r} is not an integer")
        values[name] = value
    for name in _OPTIONAL_TEXT:
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            raise _InvalidError(f"field {name!r} is not text")
        values[name] = value
    return values


def parse_change(
    raw: str, text_before: str | None = None
) -> FileChange | UnsupportedChange:
    """Read a stored change; anything but a valid version 1 stays unsupported."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:
        return UnsupportedChange(raw, None, f"not JSON: {error}")
    if not isinstance(data, dict):
        return UnsupportedChange(raw, None, "not a JSON object")
    version = data.get("version")
    if version != CHANGE_VERSION or isinstance(version, bool):
        return UnsupportedChange(raw, version, f"unknown change version {version!r}")
    try:
        values = _fields_from(data)
    except _InvalidError as error:
        return UnsupportedChange(raw, version, str(error))
    return FileChange(**values, text_before=text_before)


# -- facts about content ------------------------------------------------------------


def count_lines(data: bytes) -> int:
    """Lines as an editor counts them: a last line without a newline counts."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_of(data: bytes) -> str | None:
    """``data`` as text if it is UTF-8 without NUL bytes, else ``None`` (binary)."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@dataclass(frozen=True)
class BeforeState:
    """A file as it was just before an edit, read within MAX_TEXT_BEFORE."""

    before: Before
    size: int | None = None
    lines: int | None = None
    text: str | None = None

    @classmethod
    def absent(cls) -> BeforeState:
        return cls(Before.ABSENT)

    @classmethod
    def unknown(cls) -> BeforeState:
        return cls(Before.UNKNOWN)

    @classmethod
    def of_bytes(cls, data: bytes, size: int) -> BeforeState:
        """From the first bytes read of a file of ``size`` bytes."""
        if size > MAX_TEXT_BEFORE or len(data) > MAX_TEXT_BEFORE:
            return cls(Before.TOO_LARGE, size=size)
        text = text_of(data)
        if text is None:
            return cls(Before.BINARY, size=size)
        return cls(Before.TEXT, size=size, lines=count_lines(data), text=text)
