"""Finding sessions: both agents' folders, head only, subagents and links left out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.trust.safeio import VerifiedFile
from app.importers.discover import HEAD_BYTES, find_sessions

from .transcripts import (
    CLAUDE_SESSION,
    CODEX_SESSION,
    ClaudeSession,
    CodexRollout,
    text,
)


def fake_home(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-home-me-repo"
    s = ClaudeSession("/home/me/repo")
    s.add({"type": "summary", "summary": "A summary", "leafUuid": "x"})
    s.user("Caveat: the messages below", isMeta=True)
    s.user("Fix the   failing\ntests please")
    s.assistant(text("On it."))
    claude = s.write(project / f"{CLAUDE_SESSION}.jsonl", tail="x" * (2 * HEAD_BYTES))
    ClaudeSession("/home/me/repo").write(project / "agent-1a2b3c4d.jsonl")
    os.symlink(claude, project / "linked.jsonl")
    r = CodexRollout("/home/me/other")
    r.environment()
    r.user("Add a changelog")
    day = home / ".codex" / "sessions" / "2026" / "03" / "02"
    codex = r.write(day / f"rollout-2026-03-02T09-00-00-{CODEX_SESSION}.jsonl")
    os.utime(codex, ns=(1, 1))
    (day / "notes.txt").write_text("not a rollout")
    return home, claude, codex


def test_sessions_of_both_agents_are_listed_with_folder_date_and_prompt(
    tmp_path: Path,
) -> None:
    home, claude, codex = fake_home(tmp_path)

    found = find_sessions(home, env={})

    assert [(s.source, s.path) for s in found] == [
        ("claude-code", str(claude)),
        ("codex", str(codex)),
    ]
    first, second = found
    assert (first.session_id, first.project) == (CLAUDE_SESSION, "/home/me/repo")
    assert first.first_prompt == "Fix the failing tests please"
    assert first.started_at is not None and first.started_at.startswith("2026-03-01")
    assert (second.session_id, second.project) == (CODEX_SESSION, "/home/me/other")
    assert second.first_prompt == "Add a changelog"
    assert second.started_at == "2026-03-02T09:00:00.000Z"


def test_listing_reads_only_the_head_of_each_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, _, _ = fake_home(tmp_path)
    read: list[int] = []
    original = VerifiedFile.read

    def counting(self: VerifiedFile, size: int = -1, offset: int = 0) -> bytes:
        data = original(self, size, offset)
        read.append(len(data))
        return data

    monkeypatch.setattr(VerifiedFile, "read", counting)
    find_sessions(home, env={})
    assert read and max(read) <= HEAD_BYTES and len(read) == 2


def test_the_agents_configured_folders_are_used(tmp_path: Path) -> None:
    home, _, _ = fake_home(tmp_path)
    moved = tmp_path / "elsewhere"
    (home / ".claude").rename(moved)
    found = find_sessions(tmp_path / "nobody", env={"CLAUDE_CONFIG_DIR": str(moved)})
    assert [s.source for s in found] == ["claude-code"]
