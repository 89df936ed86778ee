"""Codex patch evidence: the apply_patch text and the patch_apply_end event."""

from __future__ import annotations

from typing import Any

from app.core.changes.change import FileChange, Operation
from app.importers.evidence import Where, count_patch_lines, imported_change
from app.importers.patch import PatchOp, parse_patch

TOOL = "apply_patch"


def _normalised(spec: object) -> tuple[str, dict[str, Any]] | None:
    """(kind, fields) of one ``changes`` entry in either encoding Codex used.

    Newer builds write ``{"type": "update", "unified_diff": ...}``; older ones
    ``{"update": {"unified_diff": ...}}``.
    """
    if not isinstance(spec, dict):
        return None
    kind = spec.get("type")
    if isinstance(kind, str):
        return kind, spec
    for name in ("add", "delete", "update"):
        inner = spec.get(name)
        if isinstance(inner, dict):
            return name, inner
    return None


def _move(
    where: Where, path: str, to: str, added: int, removed: int
) -> list[FileChange]:
    return [
        imported_change(where, path=path, operation=Operation.DELETED, moved_to=to),
        imported_change(
            where,
            path=to,
            operation=Operation.CREATED,
            moved_from=path,
            added=added,
            removed=removed,
        ),
    ]


def event_changes(changes: object, *, cwd: str, line: int, at: str) -> list[FileChange]:
    """The files a ``patch_apply_end`` event says were changed."""
    found: list[FileChange] = []
    where = Where(cwd, TOOL, line, at)
    for path, spec in changes.items() if isinstance(changes, dict) else []:
        normalised = _normalised(spec)
        if not isinstance(path, str) or normalised is None:
            continue
        kind, fields = normalised
        content = fields.get("content")
        text = content if isinstance(content, str) else None
        if kind == "add":
            found.append(
                imported_change(
                    where, path=path, operation=Operation.CREATED, after_text=text
                )
            )
        elif kind == "delete":
            found.append(
                imported_change(
                    where, path=path, operation=Operation.DELETED, before_text=text
                )
            )
        elif kind == "update":
            diff = fields.get("unified_diff")
            added, removed = count_patch_lines(
                diff.split("\n") if isinstance(diff, str) else []
            )
            move = fields.get("move_path")
            if isinstance(move, str) and move:
                found.extend(_move(where, path, move, added, removed))
                continue
            found.append(
                imported_change(
                    where,
                    path=path,
                    operation=Operation.MODIFIED,
                    added=added,
                    removed=removed,
                )
            )
    return found


def _from_op(op: PatchOp, where: Where) -> list[FileChange]:
    if op.kind == "add":
        return [
            imported_change(
                where,
                path=op.path,
                operation=Operation.CREATED,
                after_text=op.content,
                added=op.added,
                removed=0,
            )
        ]
    if op.kind == "delete":
        return [imported_change(where, path=op.path, operation=Operation.DELETED)]
    if op.move_to:
        return _move(where, op.path, op.move_to, op.added, op.removed)
    return [
        imported_change(
            where,
            path=op.path,
            operation=Operation.MODIFIED,
            added=op.added,
            removed=op.removed,
        )
    ]


def patch_changes(patch: str, *, cwd: str, line: int, at: str) -> list[FileChange]:
    """The files an apply_patch call's text says it changes (it is not applied)."""
    return [
        change
        for op in parse_patch(patch)
        for change in _from_op(op, Where(cwd, TOOL, line, at))
    ]
