"""Find past Claude Code and Codex sessions on this machine, cheaply, head only."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from app.core.trust.safeio import SafeOpenError, open_verified
from app.importers.claude import ClaudeParser
from app.importers.codex import CodexParser
from app.importers.evidence import MessageItem
from app.importers.lines import LineStats
from app.importers.messages import text_parts

HEAD_BYTES: Final = 256 << 10
MAX_PROMPT: Final = 200


@dataclass(frozen=True)
class SessionListing:
    """One session found on disk, described from the first bytes of its file."""

    source: str  # "claude-code" or "codex"
    path: str
    session_id: str | None
    project: str  # the folder the session worked in, as a name to show
    started_at: str | None
    first_prompt: str  # empty when the head holds none
    size: int
    mtime_ns: int
    # The folder the transcript says it worked in ("" when its head has none):
    # a claim to show, never a workspace of itself.
    cwd: str = ""


def claude_root(home: Path, env: Mapping[str, str]) -> Path:
    configured = env.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else home / ".claude"


def codex_root(home: Path, env: Mapping[str, str]) -> Path:
    configured = env.get("CODEX_HOME")
    return Path(configured) if configured else home / ".codex"


def _entries(folder: Path) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            yield from sorted(found, key=lambda entry: entry.name)
    except OSError:
        return


def _folders(folder: Path) -> Iterator[Path]:
    # Links are not followed: a listing looks only at the agents' own folders.
    for entry in _entries(folder):
        if entry.is_dir(follow_symlinks=False):
            yield Path(entry.path)


def _files(folder: Path, prefix: str) -> Iterator[os.DirEntry[str]]:
    for entry in _entries(folder):
        name = entry.name
        wanted = name.startswith(prefix) and name.endswith(".jsonl")
        if wanted and entry.is_file(follow_symlinks=False):
            yield entry


def _head(path: str) -> list[dict[str, object]]:
    try:
        opened = open_verified(path)
    except SafeOpenError:
        return []
    with opened:
        data = opened.read(HEAD_BYTES)
    lines = data.split(b"\n")
    if len(data) == HEAD_BYTES:
        lines = lines[:-1]  # the last one is cut by the head's end
    found: list[dict[str, object]] = []
    for line in lines:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def _listing(source: str, entry: os.DirEntry[str], fallback: str) -> SessionListing:
    return _described(source, entry.path, _head(entry.path), fallback)


def listing_of(path: str) -> SessionListing | None:
    """A transcript the user chose, described as a found one; ``None``: none.

    Its format is told by its head: Codex wraps every line in a ``payload``.
    """
    real = os.path.realpath(path)
    head = _head(real)
    if not head:
        return None
    codex = any(isinstance(line.get("payload"), dict) for line in head)
    return _described("codex" if codex else "claude-code", real, head, "")


def _described(
    source: str, path: str, head: list[dict[str, object]], fallback: str
) -> SessionListing:
    stats = LineStats()
    parser = CodexParser(stats) if source == "codex" else ClaudeParser(stats)
    prompt = ""
    for number, line in enumerate(head, start=1):
        for item in parser.feed(number, line):
            if isinstance(item, MessageItem) and item.prompt and not prompt:
                data = item.message["data"]
                prompt = " ".join(text_parts(data.get("content")).split())
        if prompt and parser.cwd and parser.session_id:
            break
    status = os.stat(path, follow_symlinks=False)
    return SessionListing(
        source=source,
        path=path,
        session_id=parser.session_id,
        project=parser.cwd or fallback,
        started_at=parser.started_at,
        first_prompt=prompt[:MAX_PROMPT],
        size=status.st_size,
        mtime_ns=status.st_mtime_ns,
        cwd=parser.cwd or "",
    )


def claude_sessions(home: Path, env: Mapping[str, str]) -> list[SessionListing]:
    """``<config>/projects/<folder>/<session>.jsonl``; subagents' files are not
    sessions of their own."""
    found: list[SessionListing] = []
    for project in _folders(claude_root(home, env) / "projects"):
        for entry in _files(project, ""):
            if not entry.name.startswith("agent-"):
                found.append(_listing("claude-code", entry, project.name))
    return found


def codex_sessions(home: Path, env: Mapping[str, str]) -> list[SessionListing]:
    """``<codex home>/sessions/YYYY/MM/DD/rollout-*.jsonl``."""
    found: list[SessionListing] = []
    for year in _folders(codex_root(home, env) / "sessions"):
        for month in _folders(year):
            for day in _folders(month):
                for entry in _files(day, "rollout-"):
                    found.append(_listing("codex", entry, ""))
    return found


def find_sessions(
    home: Path | None = None, env: Mapping[str, str] | None = None
) -> list[SessionListing]:
    """Every session of both agents, the most recently written first."""
    where = home if home is not None else Path.home()
    variables = os.environ if env is None else env
    found = claude_sessions(where, variables) + codex_sessions(where, variables)
    return sorted(found, key=lambda listing: listing.mtime_ns, reverse=True)


def transcripts_in(folder: Path) -> list[Path]:
    """The session files under ``folder``, for importing a whole folder.

    Subagents' files are left out (their edits are in the main session), and
    links are not followed.
    """
    found: list[Path] = []
    for entry in _entries(folder):
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "subagents":
                found.extend(transcripts_in(Path(entry.path)))
        elif (
            entry.name.endswith(".jsonl")
            and not entry.name.startswith("agent-")
            and entry.is_file(follow_symlinks=False)
        ):
            found.append(Path(entry.path))
    return found
