"""Imported file entries: what another agent's session says it made, untrusted."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields
from typing import Any, Final

IMPORTED_VERSION: Final = 1
MAX_EVIDENCE_LINES: Final = 32  # transcript line numbers kept per entry


def entry_id_for(resolved: str) -> str:
    """The stable id of an imported file entry: the same path, the same id."""
    return hashlib.sha256(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True)
class ImportedFileRef:
    """Where an imported card points: one entry of one imported conversation.

    Holds no file facts: every action reads the entry and its verification
    again from the store.
    """

    conversation_id: str
    entry_id: str


@dataclass(frozen=True)
class ImportedFile:
    """A file an imported session created or edited, as its transcript says.

    Nothing here is trusted: ``path`` is exactly what the transcript named
    (it may be hostile), ``resolved`` only joins it to the session's folder
    without looking at the disk, and ``sha256`` is the content the transcript
    holds for the session's last edit (``None`` when it holds none).
    """

    entry_id: str
    path: str
    resolved: str
    workspace: str  # the session's folder
    operation: str  # "created" or "modified", over the whole session
    sha256: str | None
    size: int | None
    source: str  # "claude-code" or "codex"
    session_id: str
    transcript: str
    transcript_lines: tuple[int, ...]
    turn_position: int  # the first message of the turn that last changed it
    version: int = IMPORTED_VERSION

    def to_json(self) -> str:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["transcript_lines"] = list(self.transcript_lines)
        return json.dumps(data, ensure_ascii=False, sort_keys=True)


_TEXT: Final = (
    "entry_id",
    "path",
    "resolved",
    "workspace",
    "operation",
    "source",
    "session_id",
    "transcript",
)


def parse_imported(raw: str) -> ImportedFile | None:
    """Read a stored entry; ``None`` when it is not a valid version 1."""
    try:
        data: Any = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("version") != IMPORTED_VERSION:
        return None
    if not all(isinstance(data.get(name), str) for name in _TEXT):
        return None
    sha256, size, turn = data.get("sha256"), data.get("size"), data.get("turn_position")
    lines = data.get("transcript_lines")
    if sha256 is not None and not isinstance(sha256, str):
        return None
    if size is not None and (not isinstance(size, int) or isinstance(size, bool)):
        return None
    if not isinstance(turn, int) or isinstance(turn, bool) or turn < 0:
        return None
    if not isinstance(lines, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in lines
    ):
        return None
    values = {name: data[name] for name in _TEXT}
    return ImportedFile(
        **values,
        sha256=sha256,
        size=size,
        transcript_lines=tuple(lines[:MAX_EVIDENCE_LINES]),
        turn_position=turn,
    )
