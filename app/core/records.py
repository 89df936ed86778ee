"""Declaration records: the host's trusted metadata stored beside a tool result."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from app.core.filetype import Kind
from app.core.names import display_name, hides_characters

RECORD_VERSION = 1


class RecordError(ValueError):
    """A version-1 record whose fields are missing or of the wrong type."""


@dataclass(frozen=True)
class FileEntry:
    """One declared file as the host saw it at declaration time."""

    path: str  # as the agent gave it
    resolved: str  # absolute, parent folders resolved
    description: str
    scope: str  # "workspace" or "external" ("remote" is reserved)
    size: int
    mtime_ns: int
    device: int
    inode: int
    kind: str

    @property
    def name(self) -> str:
        return self.resolved.replace("\\", "/").rsplit("/", 1)[-1]

    @property
    def display_name(self) -> str:
        """The name as it is shown: hidden and reordering characters visible."""
        return display_name(self.name)

    @property
    def hides_characters(self) -> bool:
        return hides_characters(self.name)

    @property
    def kind_enum(self) -> Kind:
        try:
            return Kind(self.kind)
        except ValueError:
            return Kind.OTHER


@dataclass(frozen=True)
class Record:
    """A successful ``present`` call: 1 to 8 files, version 1."""

    declared_at: str
    workspace: str
    files: tuple[FileEntry, ...]
    version: int = RECORD_VERSION

    def to_json(self) -> str:
        data = {
            "version": self.version,
            "declared_at": self.declared_at,
            "workspace": self.workspace,
            "files": [asdict(entry) for entry in self.files],
        }
        return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2)


@dataclass(frozen=True)
class UnsupportedRecord:
    """A record this app cannot read: kept byte for byte, offers no file actions."""

    raw: str
    version: object
    problem: str


_ENTRY_FIELDS: dict[str, type] = {
    "path": str,
    "resolved": str,
    "description": str,
    "scope": str,
    "size": int,
    "mtime_ns": int,
    "device": int,
    "inode": int,
    "kind": str,
}


def _entry_from(data: Any) -> FileEntry:
    if not isinstance(data, dict):
        raise RecordError("a file entry is not an object")
    values: dict[str, Any] = {}
    for field, expected in _ENTRY_FIELDS.items():
        value = data.get(field)
        # bool is an int subclass; a record saying size=true is not valid.
        if not isinstance(value, expected) or isinstance(value, bool):
            raise RecordError(f"file entry field {field!r} is missing or invalid")
        values[field] = value
    return FileEntry(**values)


def parse_record(raw: str) -> Record | UnsupportedRecord:
    """Read a stored record; anything but a valid version 1 stays unsupported."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:
        return UnsupportedRecord(raw, None, f"not JSON: {error}")
    if not isinstance(data, dict):
        return UnsupportedRecord(raw, None, "not a JSON object")
    version = data.get("version")
    if version != RECORD_VERSION or isinstance(version, bool):
        return UnsupportedRecord(raw, version, f"unknown record version {version!r}")
    try:
        files = data.get("files")
        if not isinstance(files, list) or not 1 <= len(files) <= 8:
            raise RecordError("files must be a list of 1 to 8 entries")
        declared_at = data.get("declared_at")
        workspace = data.get("workspace")
        if not isinstance(declared_at, str) or not isinstance(workspace, str):
            raise RecordError("declared_at and workspace must be strings")
        return Record(declared_at, workspace, tuple(_entry_from(f) for f in files))
    except RecordError as error:
        return UnsupportedRecord(raw, version, str(error))
