"""Import one transcript: recognise its format, stream it into the store, sum it up."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Protocol

from app.core.store import Store
from app.core.store.import_store import ImportStore
from app.core.trust.import_workspace import chosen_workspace
from app.core.trust.safeio import SafeOpenError, VerifiedFile, open_verified
from app.importers.claude import ClaudeParser
from app.importers.codex import CodexParser
from app.importers.evidence import Item
from app.importers.lines import LineStats, Progress, json_lines
from app.importers.writer import Provenance, SessionWriter

SNIFF_LINES: Final = 200
MAX_TITLE: Final = 80
_UUID: Final = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)
_CODEX_TYPES: Final = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context"}
)
_CLAUDE_TYPES: Final = frozenset(
    {"user", "assistant", "summary", "file-history-snapshot"}
)


class NotImportableError(Exception):
    """A transcript that cannot be imported; the message says why.

    ``stats`` holds what reading it found, when it was read.
    """

    def __init__(self, message: str, stats: LineStats | None = None) -> None:
        super().__init__(message)
        self.stats = stats


class Parser(Protocol):
    source: str
    session_id: str | None
    cwd: str | None
    started_at: str | None

    def feed(self, number: int, line: dict[str, Any]) -> Iterator[Item]: ...

    def finish(self) -> Iterator[Item]: ...


@dataclass(frozen=True)
class ImportSummary:
    conversation_id: str
    title: str
    source: str
    session_id: str
    transcript: str
    turns: int  # the user's prompts
    files: int  # distinct paths in the session's change index
    messages: int
    skipped_lines: int
    malformed_lines: int
    oversized_lines: int
    sidechain_lines: int
    # What the transcript says the session worked in, and the workspace the
    # user confirmed ("" when none is: then no file can be verified).
    claimed_workspace: str = ""
    workspace: str = ""


def _sniff(opened: VerifiedFile) -> tuple[str, str | None]:
    """The transcript's format and, if its head says, its session id."""
    found: str | None = None
    lines = json_lines(opened, LineStats())
    try:
        for count, (_number, line) in enumerate(lines):
            kind, payload = line.get("type"), line.get("payload")
            if kind in _CODEX_TYPES and isinstance(payload, dict):
                found = found or "codex"
                if kind == "session_meta" and isinstance(payload.get("id"), str):
                    return "codex", payload["id"]
            elif "id" in line and "instructions" in line and "type" not in line:
                identifier = line.get("id")
                return "codex", identifier if isinstance(identifier, str) else None
            elif kind in _CLAUDE_TYPES or "sessionId" in line:
                found = found or "claude-code"
                if isinstance(line.get("sessionId"), str) and found == "claude-code":
                    return found, line["sessionId"]
            if count >= SNIFF_LINES:
                break
    finally:
        lines.close()
    if found is None:
        raise NotImportableError("it is not a Claude Code session or a Codex rollout")
    return found, None


def _title(first_prompt: str | None, cwd: str, fallback: str) -> str:
    for line in (first_prompt or "").splitlines():
        text = " ".join(line.split())
        if text:
            if len(text) <= MAX_TITLE:
                return text
            return text[: MAX_TITLE - 1].rsplit(" ", 1)[0] + "…"
    return os.path.basename(cwd.rstrip("/")) or fallback


def _open(path: str) -> VerifiedFile:
    try:
        # The user named this file: their links are followed, but it is then
        # opened like any file here (regular files only; a FIFO cannot block).
        return open_verified(os.path.realpath(path))
    except SafeOpenError as error:
        raise NotImportableError(f"it cannot be read: {error}") from error


def _read_subagents(
    transcript: str, parser: ClaudeParser, writer: SessionWriter
) -> None:
    """Newer Claude Code writes each subagent's run to ``<session>/subagents/``.

    Its lines are the session's sidechain: only their edits are kept, beside
    the tool result that reported the run (or the latest message).
    """
    folder = Path(os.path.splitext(transcript)[0]) / "subagents"
    if folder.is_symlink() or not folder.is_dir():
        return
    parser.subagent = True
    for path in sorted(folder.glob("agent-*.jsonl")):
        if path.is_symlink():
            continue
        agent = path.name[len("agent-") : -len(".jsonl")]
        writer.anchor = writer.agents.get(agent, writer.messages - 1)
        try:
            opened = open_verified(str(path))
        except SafeOpenError:
            continue
        with opened:
            for number, line in json_lines(opened, parser.stats):
                for item in parser.feed(number, line):
                    writer.add(item)
        for item in parser.finish():
            writer.add(item)
    writer.anchor = None


def import_transcript(
    store: Store,
    path: str,
    *,
    workspace: str | None = None,
    on_progress: Progress | None = None,
) -> ImportSummary:
    """Import the session in ``path``; importing it again updates it in place.

    The transcript is only read, line by line; nothing it names is opened.
    ``workspace`` is the folder the user confirmed for it: the folder the
    transcript claims is recorded beside it and never used in its place.
    Without one, a workspace confirmed at an earlier import stays; if there
    is none, no file of the session can be verified until the user chooses.
    Raises ``WorkspaceChoiceError`` for a ``workspace`` that is no local folder.
    """
    confirmed = None if workspace is None else chosen_workspace(workspace)
    transcript = os.path.realpath(path)
    with _open(path) as opened:
        source, session_id = _sniff(opened)
        stem = os.path.splitext(os.path.basename(transcript))[0]
        if session_id is None:
            match = _UUID.search(stem)
            session_id = match.group(0) if match else stem
        stats = LineStats()
        parser: Parser = (CodexParser if source == "codex" else ClaudeParser)(stats)
        imports = ImportStore(store)
        writer = SessionWriter(
            imports,
            lambda: imports.begin(source, str(session_id), transcript, stem),
        )
        for number, line in json_lines(opened, stats, on_progress):
            for item in parser.feed(number, line):
                writer.add(item)
        for item in parser.finish():
            writer.add(item)
    if isinstance(parser, ClaudeParser) and writer.conversation_id is not None:
        _read_subagents(transcript, parser, writer)
    writer.flush()
    if writer.conversation_id is None:
        raise NotImportableError(
            "it holds no messages of a main session to import", stats
        )
    claim = parser.cwd or ""
    title = _title(writer.first_prompt, claim, stem)
    summary = ImportSummary(
        conversation_id=writer.conversation_id,
        title=title,
        source=source,
        session_id=session_id,
        transcript=transcript,
        turns=writer.prompts,
        files=len(writer.files),
        messages=writer.messages,
        skipped_lines=stats.skipped,
        malformed_lines=stats.malformed,
        oversized_lines=stats.oversized,
        sidechain_lines=stats.sidechain,
        claimed_workspace=claim,
    )
    provenance = Provenance(source, session_id, transcript)
    in_force = imports.finish(
        writer.conversation_id,
        title=title,
        workspace=confirmed,
        claimed_workspace=claim,
        message_count=writer.messages,
        # What the import found; the workspace in force lives in the store.
        summary={
            **{k: v for k, v in summary.__dict__.items() if k != "workspace"},
            "started_at": parser.started_at,
        },
        files=writer.entries(provenance, claim),
    )
    return replace(summary, workspace=in_force)
