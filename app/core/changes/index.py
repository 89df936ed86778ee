"""The per-turn file-change index: a turn's changes by file, and opening one safely."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from app.core.changes.change import (
    Before,
    FileChange,
    Operation,
    UnsupportedChange,
    parse_change,
)
from app.core.filetype import kind_from_name
from app.core.imported.verify import check_imported
from app.core.store import Store, StoredMessage
from app.core.store.imported_files import ImportedFileRef, entry_id_for
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.records import FileEntry, Record, parse_record
from app.core.trust.revalidate import Check, Verdict, open_entry
from app.core.trust.safeio import VerifiedFile


@dataclass(frozen=True)
class ChangeRef:
    """Change ``index`` of the turn whose first message is at ``turn_position``.

    Like a deliverable's reference it holds no file facts: every open looks the
    change up in the store again.
    """

    conversation_id: str
    turn_position: int
    index: int


@dataclass(frozen=True)
class ChangedFile:
    """One file of a turn's index: its state before the turn and after it.

    Several edits of the same file in a turn are one entry: "before" is that
    of the first edit, "after" that of the last. ``first`` locates the stored
    change holding the text before, as (position, seq).
    """

    index: int
    path: str
    resolved: str
    operation: Operation
    before: Before
    size_before: int | None
    size_after: int | None
    lines_before: int | None
    lines_after: int | None
    lines_added: int | None
    lines_removed: int | None
    sha256_after: str | None
    presented: bool
    trusted: bool
    imported: bool
    edits: int
    first: tuple[int, int]
    last: FileChange


@dataclass(frozen=True)
class TurnChanges:
    """The "Changed files (N)" of one turn; unsupported rows are kept apart."""

    conversation_id: str
    turn_position: int
    files: tuple[ChangedFile, ...]
    unsupported: tuple[UnsupportedChange, ...]

    @property
    def count(self) -> int:
        return len(self.files)

    def ref(self, index: int) -> ChangeRef:
        return ChangeRef(self.conversation_id, self.turn_position, index)


class _Row(NamedTuple):
    change: FileChange
    trusted: bool
    imported: bool
    position: int
    seq: int


def _presented_paths(messages: Sequence[StoredMessage]) -> set[str]:
    paths: set[str] = set()
    for stored in messages:
        if stored.record is not None and stored.record.trusted:
            record = parse_record(stored.record.raw)
            if isinstance(record, Record):
                paths.update(entry.resolved for entry in record.files)
    return paths


def _net(first: FileChange, last: FileChange) -> Operation:
    if last.operation == Operation.DELETED:
        return Operation.DELETED
    if first.operation == Operation.CREATED:
        return Operation.CREATED
    return Operation.MODIFIED


def _sum(values: list[int | None]) -> int | None:
    """One edit's count; several edits' counts do not add up to the turn's net
    change (a line rewritten twice is one line changed), so then none."""
    return values[0] if len(values) == 1 else None


def turn_changes(
    conversation_id: str, messages: Sequence[StoredMessage]
) -> TurnChanges:
    """The change index of one turn (its stored messages, in order)."""
    presented = _presented_paths(messages)
    groups: dict[str, list[_Row]] = {}
    unsupported: list[UnsupportedChange] = []
    for stored in messages:
        for row in stored.changes:
            parsed = parse_change(row.raw)
            if isinstance(parsed, UnsupportedChange):
                unsupported.append(parsed)
                continue
            imported = row.origin == "imported"
            group = groups.setdefault(parsed.resolved, [])
            group.append(
                _Row(
                    parsed,
                    row.trusted and not imported,
                    imported,
                    row.position,
                    row.seq,
                )
            )
    files: list[ChangedFile] = []
    for index, (resolved, group) in enumerate(groups.items()):
        first, last = group[0].change, group[-1].change
        changes = [row.change for row in group]
        files.append(
            ChangedFile(
                index=index,
                path=last.path,
                resolved=resolved,
                operation=_net(first, last),
                before=Before(first.before),
                size_before=first.size_before,
                size_after=last.size_after,
                lines_before=first.lines_before,
                lines_after=last.lines_after,
                lines_added=_sum([c.lines_added for c in changes]),
                lines_removed=_sum([c.lines_removed for c in changes]),
                sha256_after=last.sha256_after,
                presented=resolved in presented,
                trusted=all(row.trusted for row in group),
                imported=any(row.imported for row in group),
                edits=len(group),
                first=(group[0].position, group[0].seq),
                last=last,
            )
        )
    turn = messages[0].position if messages else 0
    return TurnChanges(conversation_id, turn, tuple(files), tuple(unsupported))


def look_up_change(store: Store, ref: ChangeRef) -> ChangedFile | None:
    """Read the turn again and find change ``ref.index`` in it."""
    try:
        messages = store.turn_messages(ref.conversation_id, ref.turn_position)
    except KeyError:
        return None
    if not messages or messages[0].position != ref.turn_position:
        return None
    index = turn_changes(ref.conversation_id, messages)
    if not 0 <= ref.index < index.count:
        return None
    return index.files[ref.index]


def change_ref_for(
    store: Store, conversation_id: str, turn_position: int, resolved: str
) -> ChangeRef:
    """The reference a "Changed files" row of that turn holds for ``resolved``.

    Found by reading the turn again; a path the turn does not list gets an
    index no row has, which every check refuses.
    """
    try:
        messages = store.turn_messages(conversation_id, turn_position)
    except KeyError:
        return ChangeRef(conversation_id, turn_position, -1)
    index = turn_changes(conversation_id, messages)
    for found in index.files:
        if found.resolved == resolved:
            return index.ref(found.index)
    return ChangeRef(conversation_id, turn_position, -1)


def _entry_of(change: FileChange) -> FileEntry | None:
    if None in (change.device, change.inode, change.mtime_ns, change.size_after):
        return None
    assert change.device is not None and change.inode is not None
    assert change.mtime_ns is not None and change.size_after is not None
    return FileEntry(
        path=change.path,
        resolved=change.resolved,
        description="",
        scope="workspace",
        size=change.size_after,
        mtime_ns=change.mtime_ns,
        device=change.device,
        inode=change.inode,
        kind=kind_from_name(change.resolved),
    )


def _same_content(opened: VerifiedFile, found: ChangedFile) -> bool:
    """Whether the file holds what the turn wrote, for a file only touched since."""
    sha256 = found.sha256_after
    # Another size cannot be the same content: no need to read it.
    if sha256 is None or opened.identity.size != found.size_after:
        return False
    digest = hashlib.sha256()
    for chunk in opened.chunks():
        digest.update(chunk)
    return digest.hexdigest() == sha256


def check_change(
    store: Store,
    ref: ChangeRef,
    policy: Policy,
    *,
    mode: PermissionMode | None = None,
    keep_open: bool = False,
) -> tuple[Check, ChangedFile | None, VerifiedFile | None]:
    """Revalidate a change before opening it, exactly as a card action does.

    A host change must be trusted and of this conversation; the file must be
    the regular file the turn left (same identity, or the same content by
    hash) or it is reported as changed after the turn; the current policy
    applies. An imported change opens only through its verified entry.
    """
    found = look_up_change(store, ref)
    if found is None:
        return (
            Check(Verdict.UNTRUSTED, "no such change in this conversation"),
            None,
            None,
        )
    if found.imported:
        imported = ImportedFileRef(ref.conversation_id, entry_id_for(found.resolved))
        check, _, opened = check_imported(
            store, imported, policy, mode=mode, keep_open=keep_open
        )
        return check, found, opened
    if not found.trusted:
        reason = "this change was not recorded by this app"
        return Check(Verdict.UNTRUSTED, reason), found, None
    entry = _entry_of(found.last)
    if found.operation is Operation.DELETED or entry is None:
        return Check(Verdict.MISSING, "the turn left no file here"), found, None
    check, opened = open_entry(entry, policy, trusted=True, mode=mode)
    if opened is not None:
        if check.verdict is Verdict.OK or _same_content(opened, found):
            check = Check(Verdict.OK, "unchanged since the turn", opened.identity)
        else:
            check = Check(Verdict.CHANGED, "it changed after the turn", opened.identity)
        if not keep_open:
            opened.close()
            opened = None
    return check, found, opened
