"""Writing an imported session as it is read: batches, positions, file entries."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from app.core.changes.change import Operation
from app.core.store.change_rows import NewChange
from app.core.store.import_store import ImportedChange, ImportStore
from app.core.store.imported_files import MAX_EVIDENCE_LINES, ImportedFile, entry_id_for
from app.core.store.messages import tool_call_id
from app.importers.evidence import ChangeItem, Item

# A batch is one transaction: small enough that the window's own writes never
# wait long for the lock, large enough that a 200 MB import is not fsync-bound.
BATCH_MESSAGES: Final = 2000
BATCH_BYTES: Final = 4 << 20


def _dumps(message: dict[str, Any]) -> str:
    """A message as stored JSON, on the import's hot path.

    orjson writes the same JSON many times faster; a message it cannot write
    (an integer past 64 bits, which only the fallback parser lets through)
    goes through ``json``, so nothing is lost.
    """
    try:
        return orjson.dumps(message).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(message, ensure_ascii=False, check_circular=False)


@dataclass
class _File:
    """What the session did to one path, gathered as its changes arrive.

    Only facts are kept, never a file's text: a long session touches
    thousands of files.
    """

    first: Operation
    path: str = ""
    last: str = ""
    sha256: str | None = None
    size: int | None = None
    turn_position: int = 0
    lines: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Provenance:
    source: str
    session_id: str
    transcript: str


class SessionWriter:
    """Assigns positions and writes batches; starts the import on the first item.

    Starting lazily means a transcript with nothing to import leaves nothing
    behind. A change goes beside the tool result it names when that result is
    in the current turn, else beside the latest message (a subagent's edit).
    """

    def __init__(self, imports: ImportStore, begin: Callable[[], str]) -> None:
        self._imports = imports
        self._begin = begin
        self.conversation_id: str | None = None
        self.messages = 0
        self.prompts = 0
        self.first_prompt: str | None = None
        self._batch: list[tuple[int, str]] = []
        self._changes: list[ImportedChange] = []
        self._early: list[ChangeItem] = []
        self._bytes = 0
        self._turn_start = 0
        self._calls: dict[str, int] = {}
        self._seq: dict[int, int] = {}
        self.files: dict[str, _File] = {}
        # Subagent runs by id: where their own transcripts' edits belong.
        self.agents: dict[str, int] = {}
        self.anchor: int | None = None

    def add(self, item: Item) -> None:
        if isinstance(item, ChangeItem):
            if self.messages == 0:
                self._early.append(item)
            else:
                self._change(item)
            return
        if self.conversation_id is None:
            self.conversation_id = self._begin()
        position = self.messages
        self.messages += 1
        data = item.message.get("data")
        if item.prompt:
            self.prompts += 1
            self._turn_start = position
            self._calls, self._seq = {}, {}
            if self.first_prompt is None and isinstance(data, dict):
                content = data.get("content")
                self.first_prompt = content if isinstance(content, str) else None
        call = tool_call_id(item.message)
        if call is not None:
            self._calls[call] = position
        if item.agent_id is not None:
            self.agents[item.agent_id] = position
        text = _dumps(item.message)
        self._batch.append((position, text))
        self._bytes += len(text)
        for early in self._early:
            self._change(early)
        self._early = []
        if len(self._batch) >= BATCH_MESSAGES or self._bytes >= BATCH_BYTES:
            self.flush()

    def _change(self, item: ChangeItem) -> None:
        last = self.messages - 1 if self.anchor is None else self.anchor
        position = self._calls.get(item.tool_call_id or "", last)
        seq = self._seq.get(position, 0)
        self._seq[position] = seq + 1
        change = item.change
        call = item.tool_call_id or ""
        new = NewChange(change.to_json(), change.text_before)
        self._changes.append(ImportedChange(position, seq, call, new))
        self._bytes += len(new.raw) + len(new.before or "")
        found = self.files.get(change.resolved)
        if found is None:
            found = self.files[change.resolved] = _File(Operation(change.operation))
        found.path, found.last = change.path, change.operation
        found.sha256, found.size = change.sha256_after, change.size_after
        found.turn_position = self._turn_start
        if change.transcript_line is not None and len(found.lines) < MAX_EVIDENCE_LINES:
            found.lines.append(change.transcript_line)
        if self._bytes >= BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.conversation_id is None or not (self._batch or self._changes):
            return
        self._imports.write(self.conversation_id, self._batch, self._changes)
        self._batch, self._changes, self._bytes = [], [], 0

    def entries(self, provenance: Provenance, workspace: str) -> list[ImportedFile]:
        """A card per file the session created or edited and did not delete."""
        found: list[ImportedFile] = []
        for resolved, gathered in self.files.items():
            if gathered.last == Operation.DELETED:
                continue
            created = gathered.first is Operation.CREATED
            found.append(
                ImportedFile(
                    entry_id=entry_id_for(resolved),
                    path=gathered.path,
                    resolved=resolved,
                    workspace=workspace,
                    operation="created" if created else "modified",
                    sha256=gathered.sha256,
                    size=gathered.size,
                    source=provenance.source,
                    session_id=provenance.session_id,
                    transcript=provenance.transcript,
                    transcript_lines=tuple(gathered.lines),
                    turn_position=gathered.turn_position,
                )
            )
        return found
