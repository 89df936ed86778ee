"""Declaration records: the host's trusted metadata stored beside a tool result."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from app.core.filetype import Kind
from app.core.trust.display_names import display_name, hides_characters

RECORD_VERSION = 1
# A declaration of files on another host. Its own version, so an app that
# knows only version 1 shows it as unsupported instead of checking a remote
# path on the local disk.
REMOTE_RECORD_VERSION = 2
REMOTE_SCOPE = "remote"


class RecordError(ValueError):
    """A known-version record whose fields are missing or of the wrong type."""


@dataclass(frozen=True)
class RemoteOrigin:
    """Where a remote entry lives and the mode it had: the rest of its coordinate.

    The path is the entry's ``resolved``; SFTP knows no device or inode, so a
    remote entry's ``device`` and ``inode`` are 0 and its identity is size,
    mtime and this mode.
    """

    user: str
    host: str  # as the workspace address names it (maybe an ssh config alias)
    port: int
    mode: int  # st_mode: file type bits and permissions


@dataclass(frozen=True)
class FileEntry:
    """One declared file as the host saw it at declaration time."""

    path: str  # as the agent gave it
    resolved: str  # absolute, parent folders resolved
    description: str
    scope: str  # "workspace", "external" or "remote"
    size: int
    mtime_ns: int
    device: int
    inode: int
    kind: str
    remote: RemoteOrigin | None = None  # set exactly when scope is "remote"

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
    """A successful ``present`` call: 1 to 8 files; version 2 when they are remote."""

    declared_at: str
    workspace: str
    files: tuple[FileEntry, ...]
    version: int = RECORD_VERSION

    def to_json(self) -> str:
        data = {
            "version": self.version,
            "declared_at": self.declared_at,
            "workspace": self.workspace,
            "files": [_entry_dict(entry) for entry in self.files],
        }
        return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2)


def _entry_dict(entry: FileEntry) -> dict[str, Any]:
    data = asdict(entry)
    if entry.remote is None:
        del data["remote"]  # a local entry reads exactly as before remote files
    return data


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


_ORIGIN_FIELDS: dict[str, type] = {"user": str, "host": str, "port": int, "mode": int}


def _fields(data: Any, fields: dict[str, type], what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise RecordError(f"{what} is not an object")
    values: dict[str, Any] = {}
    for field, expected in fields.items():
        value = data.get(field)
        # bool is an int subclass; a record saying size=true is not valid.
        if not isinstance(value, expected) or isinstance(value, bool):
            raise RecordError(f"{what} field {field!r} is missing or invalid")
        values[field] = value
    return values


def _entry_from(data: Any, version: int) -> FileEntry:
    values = _fields(data, _ENTRY_FIELDS, "a file entry")
    remote = data.get("remote")
    if version == RECORD_VERSION:
        # Version 1 predates remote files: such an entry could only be
        # checked on the local disk, which is exactly what must never happen.
        if values["scope"] == REMOTE_SCOPE or remote is not None:
            raise RecordError("a version 1 entry cannot be remote")
        return FileEntry(**values)
    if values["scope"] != REMOTE_SCOPE:
        raise RecordError(f"a version {version} entry must be remote")
    origin = RemoteOrigin(**_fields(remote, _ORIGIN_FIELDS, "a remote origin"))
    return FileEntry(**values, remote=origin)


def parse_record(raw: str) -> Record | UnsupportedRecord:
    """Read a stored record; anything but a valid version 1 or 2 stays unsupported."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:
        return UnsupportedRecord(raw, None, f"not JSON: {error}")
    if not isinstance(data, dict):
        return UnsupportedRecord(raw, None, "not a JSON object")
    version = data.get("version")
    if version not in (RECORD_VERSION, REMOTE_RECORD_VERSION) or isinstance(
        version, bool
    ):
        return UnsupportedRecord(raw, version, f"unknown record version {version!r}")
    version = RECORD_VERSION if version == RECORD_VERSION else REMOTE_RECORD_VERSION
    try:
        files = data.get("files")
        if not isinstance(files, list) or not 1 <= len(files) <= 8:
            raise RecordError("files must be a list of 1 to 8 entries")
        declared_at = data.get("declared_at")
        workspace = data.get("workspace")
        if not isinstance(declared_at, str) or not isinstance(workspace, str):
            raise RecordError("declared_at and workspace must be strings")
        entries = tuple(_entry_from(f, version) for f in files)
        return Record(declared_at, workspace, entries, version)
    except RecordError as error:
        return UnsupportedRecord(raw, version, str(error))
