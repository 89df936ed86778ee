"""Save copies of library items into a folder, each checked as its card is.

Every copy is made from the descriptor the card's check opened, never from
the path again; an item that is refused is reported with its reason and
nothing of it is written. Names are kept, and a name already taken in the
folder gets " (2)", " (3)"… before its extension, as file managers do.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from app.core.changes.index import change_ref_for, check_change
from app.core.imported.verify import check_imported
from app.core.store import Store
from app.core.store.deliverables import DeliverableRef, check_deliverable
from app.core.store.imported_files import ImportedFileRef
from app.core.store.library import LibraryItem
from app.core.trust.copying import copy_verified
from app.core.trust.display_names import plain_file_name
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.revalidate import Check
from app.core.trust.safeio import VerifiedFile

# The policy a conversation's files are checked under, from its workspace.
PolicyFor = Callable[[str], Policy]


@dataclass(frozen=True)
class Kept:
    """What became of one item: where its copy is, or why there is none."""

    item: LibraryItem
    target: str | None
    reason: str = ""


def free_name(folder: str, name: str, taken: set[str]) -> str:
    """``name``, or the first "name (n).ext" free in ``folder`` and ``taken``."""
    # A name is one path component, whatever an agent or a transcript said.
    base = plain_file_name(name).replace("/", "_").replace("\\", "_")
    base = base.replace("\0", "")
    if base in ("", ".", ".."):
        base = "file"
    stem, dot, suffix = base.rpartition(".")
    if not stem:  # no extension, or a name like ".env"
        stem, dot, suffix = base, "", ""
    candidate, number = base, 1
    while candidate in taken or os.path.lexists(os.path.join(folder, candidate)):
        number += 1
        candidate = f"{stem} ({number}){dot}{suffix}"
    taken.add(candidate)
    return candidate


def _check(
    store: Store, item: LibraryItem, policy_for: PolicyFor, mode: PermissionMode | None
) -> tuple[Check, VerifiedFile | None]:
    key = item.key
    try:
        workspace = store.conversation(key.conversation_id).workspace
    except KeyError:
        workspace = ""
    policy = policy_for(workspace)
    if item.changed:
        change = change_ref_for(store, key.conversation_id, item.position, item.item)
        check, _found, opened = check_change(
            store, change, policy, mode=mode, keep_open=True
        )
    elif item.imported:
        ref = ImportedFileRef(key.conversation_id, key.ref)
        check, _entry, opened = check_imported(
            store, ref, policy, mode=mode, keep_open=True
        )
    else:
        deliverable = DeliverableRef(key.conversation_id, key.ref, key.entry)
        check, _entry, opened = check_deliverable(
            store, deliverable, policy, mode=mode, keep_open=True
        )
    return check, opened


def save_copies(
    store: Store,
    items: Iterable[LibraryItem],
    folder: str,
    policy_for: PolicyFor,
    *,
    mode: PermissionMode | None = None,
    cancelled: threading.Event | None = None,
) -> list[Kept]:
    """Copy each item into ``folder`` under a free name; say what became of each."""
    taken: set[str] = set()
    kept: list[Kept] = []
    for item in items:
        if cancelled is not None and cancelled.is_set():
            kept.append(Kept(item, None, "cancelled"))
            continue
        check, opened = _check(store, item, policy_for, mode)
        if opened is None or not check.allowed:
            kept.append(Kept(item, None, check.reason or "it cannot be read"))
            if opened is not None:
                opened.close()
            continue
        target = os.path.join(folder, free_name(folder, item.name, taken))
        with opened:
            result = copy_verified(
                opened,
                target,
                is_cancelled=lambda: cancelled is not None and cancelled.is_set(),
            )
        if result.ok:
            kept.append(Kept(item, target))
        else:
            kept.append(Kept(item, None, result.reason))
    return kept
