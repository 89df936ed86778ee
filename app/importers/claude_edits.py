"""The file edits of Claude Code's Write, Edit, MultiEdit and NotebookEdit results."""

from __future__ import annotations

from typing import Any

from app.core.changes.change import FileChange, Operation
from app.importers.evidence import Where, count_patch_lines, imported_change


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _replaced(text: str, old: str, new: str, replace_all: bool) -> str | None:
    """The text after one edit, when the transcript makes it certain."""
    if old == "":
        return new if text == "" else None
    if old not in text:
        return None
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def _patch_counts(result: dict[str, Any]) -> tuple[int | None, int | None]:
    hunks = result.get("structuredPatch")
    if not isinstance(hunks, list):
        return None, None
    lines = [
        line
        for hunk in hunks
        if isinstance(hunk, dict) and isinstance(hunk.get("lines"), list)
        for line in hunk["lines"]
        if isinstance(line, str)
    ]
    return count_patch_lines(lines)


def _tool_of(name: str, result: dict[str, Any]) -> str:
    """The tool behind a result: its call's name, or the result's own shape."""
    if name in ("Write", "Edit", "MultiEdit", "NotebookEdit"):
        return name
    if result.get("type") in ("create", "update") and "content" in result:
        return "Write"
    if "oldString" in result:
        return "Edit"
    if "edits" in result and "filePath" in result:
        return "MultiEdit"
    if "new_source" in result or "notebook_path" in result:
        return "NotebookEdit"
    return name


def _multi_edit(original: str | None, edits: object) -> str | None:
    if original is None or not isinstance(edits, list):
        return None
    text: str | None = original
    for edit in edits:
        if text is None or not isinstance(edit, dict):
            return None
        old, new = _text(edit.get("old_string")), _text(edit.get("new_string"))
        if old is None or new is None:
            return None
        text = _replaced(text, old, new, edit.get("replace_all") is True)
    return text


def edit_evidence(
    name: str,
    args: dict[str, Any],
    result: object,
    *,
    cwd: str,
    line: int,
    at: str,
) -> list[FileChange]:
    """The change one tool result records, or none for other tools and errors.

    ``args`` are the call's input, used only when an older transcript has no
    structured result. Nothing named here is opened.
    """
    if not isinstance(result, dict):
        return _from_input(name, args, result, cwd=cwd, line=line, at=at)
    tool = _tool_of(name, result)
    where = Where(cwd, tool, line, at)
    added, removed = _patch_counts(result)
    if tool == "Write":
        path = _text(result.get("filePath")) or _text(args.get("file_path"))
        if path is None:
            return []
        created = result.get("type") == "create"
        return [
            imported_change(
                where,
                path=path,
                operation=Operation.CREATED if created else Operation.MODIFIED,
                before_text=None if created else _text(result.get("originalFile")),
                after_text=_text(result.get("content")),
                added=None if created else added,
                removed=None if created else removed,
            )
        ]
    if tool == "Edit":
        path = _text(result.get("filePath")) or _text(args.get("file_path"))
        old, new = _text(result.get("oldString")), _text(result.get("newString"))
        if path is None or old is None or new is None:
            return []
        original = _text(result.get("originalFile"))
        created = old == "" and not original
        after = _replaced(original or "", old, new, result.get("replaceAll") is True)
        return [
            imported_change(
                where,
                path=path,
                operation=Operation.CREATED if created else Operation.MODIFIED,
                before_text=None if created else original,
                after_text=after if (original is not None or created) else None,
                added=added,
                removed=removed,
            )
        ]
    if tool == "MultiEdit":
        path = _text(result.get("filePath")) or _text(args.get("file_path"))
        if path is None:
            return []
        original = _text(result.get("originalFileContents"))
        return [
            imported_change(
                where,
                path=path,
                operation=Operation.MODIFIED,
                before_text=original,
                after_text=_multi_edit(original, result.get("edits")),
                added=added,
                removed=removed,
            )
        ]
    if tool == "NotebookEdit":
        path = _text(result.get("notebook_path")) or _text(args.get("notebook_path"))
        if path is None or _text(result.get("error")):
            return []
        return [
            imported_change(
                where,
                path=path,
                operation=Operation.MODIFIED,
                before_text=_text(result.get("original_file")),
                after_text=_text(result.get("updated_file")),
            )
        ]
    return []


def _from_input(
    name: str, args: dict[str, Any], result: object, *, cwd: str, line: int, at: str
) -> list[FileChange]:
    """Older transcripts: no structured result, only the call and its text."""
    if result is not None and not isinstance(result, str | list):
        return []
    if isinstance(result, str) and result.lower().startswith("error"):
        return []
    path = _text(args.get("file_path")) or _text(args.get("notebook_path"))
    if path is None or name not in ("Write", "Edit", "MultiEdit", "NotebookEdit"):
        return []
    return [
        imported_change(
            Where(cwd, name, line, at), path=path, operation=Operation.MODIFIED
        )
    ]
