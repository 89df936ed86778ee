"""A card's deliverable: its record read again from the store, then checked now.

A card points at its file through a ``DeliverableRef``; ``check_deliverable``
reads the record again (only if it belongs to this conversation) and runs the
trust kernel's whole check on its entry, so nothing learnt at display time is
trusted later.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.store.database import Store
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.records import FileEntry, Record, UnsupportedRecord, parse_record
from app.core.trust.revalidate import Check, Verdict, open_entry
from app.core.trust.safeio import VerifiedFile


@dataclass(frozen=True)
class DeliverableRef:
    """Where a deliverable's card points: one file of one declaration.

    Holds no file facts on purpose: every action reads the record again from the
    store, so nothing learnt at display time is trusted later.
    """

    conversation_id: str
    tool_call_id: str
    index: int


@dataclass(frozen=True)
class Lookup:
    """The record entry behind a reference, or why there is none."""

    entry: FileEntry | None
    record: Record | UnsupportedRecord | None
    trusted: bool


def look_up(store: Store, ref: DeliverableRef) -> Lookup:
    """Read the record for ``ref`` now, only if it belongs to this conversation."""
    try:
        stored = store.record(ref.conversation_id, ref.tool_call_id)
    except KeyError:
        stored = None
    if stored is None:
        return Lookup(None, None, trusted=False)
    record = parse_record(stored.raw)
    if isinstance(record, UnsupportedRecord):
        return Lookup(None, record, trusted=False)
    if not 0 <= ref.index < len(record.files):
        return Lookup(None, record, trusted=False)
    return Lookup(record.files[ref.index], record, trusted=stored.trusted)


def check_deliverable(
    store: Store,
    ref: DeliverableRef,
    policy: Policy,
    *,
    mode: PermissionMode | None = None,
    keep_open: bool = False,
) -> tuple[Check, FileEntry | None, VerifiedFile | None]:
    """Revalidate ``ref``: trusted record of this conversation, same file, allowed.

    With ``keep_open`` the verified file is returned open for the action to read
    through (the caller closes it); otherwise it is closed before returning.
    """
    lookup = look_up(store, ref)
    if lookup.entry is None:
        if isinstance(lookup.record, UnsupportedRecord):
            reason = "this record's version is not supported; it has no file actions"
        else:
            reason = "no trusted record of this file exists in this conversation"
        return Check(Verdict.UNTRUSTED, reason), None, None
    check, opened = open_entry(lookup.entry, policy, trusted=lookup.trusted, mode=mode)
    if opened is not None and not keep_open:
        opened.close()
        opened = None
    return check, lookup.entry, opened
