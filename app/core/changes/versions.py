"""Two versions of one deliverable compared: their texts, or why there is none.

A record keeps a file's metadata, never its bytes, so a version's text comes
from one of two places only: the copy the change index kept just before a
later turn edited that path (if its size is the version's), or the file as
it is now, read through the card's own check, if it is still that version.
Anything else says why no diff is possible instead of guessing.
"""

from __future__ import annotations

import threading

from app.core.changes.change import MAX_TEXT_BEFORE, Before, FileChange, text_of
from app.core.changes.change import parse_change as parse_file_change
from app.core.changes.diffs import Diff, NoDiff, NoDiffReason, diff_texts
from app.core.changes.index import change_ref_for, check_change
from app.core.store import Store
from app.core.store.deliverables import DeliverableRef, check_deliverable, look_up
from app.core.store.library import LibraryItem
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.revalidate import Check, Verdict
from app.core.trust.safeio import VerifiedFile

_LIMIT_TEXT = f"{MAX_TEXT_BEFORE // (1 << 20)} MiB"


def version_text(
    store: Store,
    item: LibraryItem,
    policy: Policy,
    *,
    mode: PermissionMode | None = None,
) -> str | NoDiff:
    """The text ``item``'s version had, from a kept copy or the unchanged file."""
    if item.imported:
        return NoDiff(
            NoDiffReason.NOT_RECORDED,
            "no copy of an imported session's version is kept",
        )
    if item.changed:
        return _changed_text(store, item, policy, mode)
    key = item.key
    ref = DeliverableRef(key.conversation_id, key.ref, key.entry)
    lookup = look_up(store, ref)
    if lookup.entry is None or not lookup.trusted:
        return NoDiff(NoDiffReason.REFUSED, "no trusted record of this version exists")
    cid, resolved, size = key.conversation_id, lookup.entry.resolved, lookup.entry.size
    kept = _kept_copy(store, cid, item.position + 1, resolved, size)
    if kept is not None:
        return kept
    check, _entry, opened = check_deliverable(
        store, ref, policy, mode=mode, keep_open=True
    )
    return _text_now(check, opened)


def _changed_text(
    store: Store, item: LibraryItem, policy: Policy, mode: PermissionMode | None
) -> str | NoDiff:
    """What a turn left in a file it changed: kept by a later turn, or as now.

    Read through the check a "Changed files" row uses, so an untrusted change
    gives no text.
    """
    cid = item.key.conversation_id
    ref = change_ref_for(store, cid, item.position, item.item)
    check, found, opened = check_change(store, ref, policy, mode=mode, keep_open=True)
    if found is None or not found.trusted:
        if opened is not None:
            opened.close()
        return NoDiff(NoDiffReason.REFUSED, "no trusted change of this version exists")
    turn = store.turn_messages(cid, item.position)
    after = turn[-1].position + 1 if turn else item.position + 1
    size = found.size_after
    kept = None if size is None else _kept_copy(store, cid, after, found.resolved, size)
    if kept is not None:
        if opened is not None:
            opened.close()
        return kept
    return _text_now(check, opened)


def _text_now(check: Check, opened: VerifiedFile | None) -> str | NoDiff:
    """The file's text as it is now, if the check says it is still this version."""
    if opened is None:
        if check.verdict is Verdict.MISSING:
            return NoDiff(
                NoDiffReason.MISSING,
                "its file is gone and no copy of this version was kept",
            )
        return NoDiff(NoDiffReason.REFUSED, check.reason)
    with opened:
        if check.verdict is not Verdict.OK:
            return NoDiff(
                NoDiffReason.CHANGED_SINCE,
                "the file changed since this version and no copy of it was kept",
            )
        if opened.identity.size > MAX_TEXT_BEFORE:
            return NoDiff(NoDiffReason.TOO_LARGE, f"it is larger than {_LIMIT_TEXT}")
        data = opened.read(MAX_TEXT_BEFORE + 1)
    text = text_of(data)
    if text is None:
        return NoDiff(NoDiffReason.BINARY, "it is a binary file")
    return text


def _kept_copy(
    store: Store, cid: str, start: int, resolved: str, size: int
) -> str | None:
    """The text kept before the first edit of this path from ``start`` on, if it
    is this version's."""
    for message in store.messages(cid, start=start):
        for stored in message.changes:
            change = parse_file_change(stored.raw)
            if not isinstance(change, FileChange) or change.resolved != resolved:
                continue
            if change.before != Before.TEXT or not stored.trusted:
                return None
            found = store.change(message.conversation_id, stored.position, stored.seq)
            before = None if found is None or not found.trusted else found.before
            # Changed by hand between the two turns: not this version's text.
            if before is None or len(before.encode("utf-8")) != size:
                return None
            return before
    return None


def compare_versions(
    store: Store,
    older: LibraryItem,
    newer: LibraryItem,
    policy: Policy,
    *,
    mode: PermissionMode | None = None,
    cancelled: threading.Event | None = None,
) -> Diff | NoDiff:
    """The diff from ``older`` to ``newer``, or why none can be shown."""
    texts: list[str] = []
    for which, version in (("older", older), ("newer", newer)):
        text = version_text(store, version, policy, mode=mode)
        if isinstance(text, NoDiff):
            return NoDiff(text.reason, f"the {which} version: {text.message}")
        texts.append(text)
    return diff_texts(newer.name, texts[0], texts[1], cancelled=cancelled)
