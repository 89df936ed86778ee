"""The diff of one indexed change: the text before the turn against the file now."""

from __future__ import annotations

import threading

from app.core.changes.change import (
    MAX_TEXT_BEFORE,
    Before,
    Operation,
    sha256_hex,
    text_of,
)
from app.core.changes.diffs import Diff, NoDiff, NoDiffReason, diff_texts
from app.core.changes.index import ChangedFile, ChangeRef, check_change, look_up_change
from app.core.store import Store
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.revalidate import Verdict

_LIMIT_TEXT = f"{MAX_TEXT_BEFORE // (1 << 20)} MiB"


def _text_before(store: Store, ref: ChangeRef, found: ChangedFile) -> str | NoDiff:
    if found.before is Before.ABSENT:
        return ""
    if found.before is Before.BINARY:
        return NoDiff(NoDiffReason.BINARY, "it was a binary file before the turn")
    if found.before is Before.TOO_LARGE:
        return NoDiff(
            NoDiffReason.TOO_LARGE,
            f"it was larger than {_LIMIT_TEXT} before the turn, so no copy was kept",
        )
    if found.before is not Before.TEXT:
        return NoDiff(NoDiffReason.NOT_RECORDED, "its content before was not recorded")
    position, seq = found.first
    stored = store.change(ref.conversation_id, position, seq)
    # Imported text is shown as evidence; a host copy must still be the host's.
    if (
        stored is None
        or stored.before is None
        or not (stored.trusted or found.imported)
    ):
        reason = "the copy kept before the turn is not the one this app stored"
        return NoDiff(NoDiffReason.REFUSED, reason)
    return stored.before


def change_diff(
    store: Store,
    ref: ChangeRef,
    policy: Policy,
    *,
    mode: PermissionMode | None = None,
    cancelled: threading.Event | None = None,
) -> Diff | NoDiff:
    """The diff a change made, or why none can be shown.

    The after side is the file as it is now, read through the descriptor the
    revalidation checked, and only if it is still what the turn left: a file
    changed since would show a diff the turn never made. The comparison is
    bounded in work and stops when ``cancelled`` is set (``diff_texts``).
    """
    found = look_up_change(store, ref)
    if found is None:
        return NoDiff(NoDiffReason.REFUSED, "no such change in this conversation")
    before = _text_before(store, ref, found)
    if isinstance(before, NoDiff):
        return before
    if found.operation is Operation.DELETED:
        return diff_texts(found.path, before, "", cancelled=cancelled)
    check, _, opened = check_change(store, ref, policy, mode=mode, keep_open=True)
    if opened is None:
        missing = check.verdict is Verdict.MISSING
        kind = NoDiffReason.MISSING if missing else NoDiffReason.REFUSED
        return NoDiff(kind, check.reason)
    with opened:
        if check.verdict is Verdict.CHANGED:
            return NoDiff(NoDiffReason.CHANGED_SINCE, f"{check.reason}; no diff shown")
        if opened.identity.size > MAX_TEXT_BEFORE:
            return NoDiff(NoDiffReason.TOO_LARGE, f"it is larger than {_LIMIT_TEXT}")
        data = opened.read(MAX_TEXT_BEFORE + 1)
    if len(data) > MAX_TEXT_BEFORE:
        return NoDiff(NoDiffReason.TOO_LARGE, f"it is larger than {_LIMIT_TEXT}")
    if found.imported and found.sha256_after != sha256_hex(data):
        # A verified entry may still differ from what the session left.
        if found.sha256_after is None:
            unknown = "the session did not record its content after the change"
            return NoDiff(NoDiffReason.NOT_RECORDED, unknown)
        return NoDiff(NoDiffReason.CHANGED_SINCE, "it was modified since the session")
    after = text_of(data)
    if after is None:
        return NoDiff(NoDiffReason.BINARY, "it is a binary file")
    return diff_texts(found.path, before, after, cancelled=cancelled)
