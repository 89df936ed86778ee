"""File evidence from a transcript, as untrusted change records (nothing is opened)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.core.changes.change import (
    MAX_TEXT_BEFORE,
    Before,
    FileChange,
    Operation,
    count_lines,
    sha256_hex,
)


@dataclass(frozen=True)
class MessageItem:
    """A message for the conversation; ``prompt`` marks a user's prompt.

    ``agent_id`` names the subagent whose run a tool result reports, so the
    edits in that subagent's own transcript can be put beside it.
    """

    message: dict[str, Any]
    prompt: bool = False
    agent_id: str | None = None


@dataclass(frozen=True)
class ChangeItem:
    """A file change, beside the tool result of ``tool_call_id`` when known."""

    change: FileChange
    tool_call_id: str | None


Item = MessageItem | ChangeItem


def lexical_path(path: str, cwd: str) -> str:
    """``path`` joined to the session's folder on paper: no link is looked at.

    A hostile path stays what it says (``../../etc/passwd`` leaves the folder);
    only the present check at Verify time decides what it may reach.
    """
    return os.path.normpath(os.path.join(cwd or os.sep, path))


def count_patch_lines(lines: Iterable[str]) -> tuple[int, int]:
    """Added and removed lines of a diff body (its file headers excluded)."""
    added = removed = 0
    for line in lines:
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


@dataclass(frozen=True)
class Where:
    """Where a change was read: the session's folder then, the tool, the line."""

    cwd: str
    tool: str
    line: int
    at: str


def imported_change(
    where: Where,
    *,
    path: str,
    operation: Operation,
    before_text: str | None = None,
    after_text: str | None = None,
    added: int | None = None,
    removed: int | None = None,
    moved_from: str | None = None,
    moved_to: str | None = None,
) -> FileChange:
    """A change as a transcript tells it; hashes only what the transcript holds."""
    before = Before.ABSENT if operation is Operation.CREATED else Before.UNKNOWN
    size_before = lines_before = None
    kept: str | None = None
    if before_text is not None:
        data = before_text.encode("utf-8", "surrogatepass")
        size_before, lines_before = len(data), count_lines(data)
        if len(data) > MAX_TEXT_BEFORE:
            before = Before.TOO_LARGE
        else:
            before, kept = Before.TEXT, before_text
    size_after = lines_after = None
    sha256_after = None
    if after_text is not None and operation is not Operation.DELETED:
        data = after_text.encode("utf-8", "surrogatepass")
        size_after, lines_after, sha256_after = (
            len(data),
            count_lines(data),
            sha256_hex(data),
        )
    return FileChange(
        path=path,
        resolved=lexical_path(path, where.cwd),
        operation=operation,
        tool=where.tool,
        changed_at=where.at,
        before=before,
        size_before=size_before,
        size_after=0 if operation is Operation.DELETED else size_after,
        lines_before=0 if operation is Operation.CREATED else lines_before,
        lines_after=0 if operation is Operation.DELETED else lines_after,
        sha256_after=sha256_after,
        lines_added=added,
        lines_removed=removed,
        moved_from=moved_from,
        moved_to=moved_to,
        transcript_line=where.line,
        text_before=kept,
    )
