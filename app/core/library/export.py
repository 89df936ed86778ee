"""Export a conversation's deliverables into a new folder with a Markdown index.

Each file is saved as "Save a copy…" saves it (checked as its card is); the
index says what each file is, which agent made it and when, and which were
not exported and why. Everything it quotes is untrusted text, escaped so
that it reads as written and links nowhere but to the exported file.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final
from urllib.parse import quote

from app.core.library.keeping import Kept, PolicyFor, free_name, save_copies
from app.core.store import Store
from app.core.store.library import Library, LibraryItem
from app.core.trust.policy import PermissionMode

INDEX_NAME: Final = "index.md"
_SPECIAL: Final = re.compile(r"([\\`*_{}\[\]<>()#+!|~-])")


@dataclass(frozen=True)
class Export:
    """Where a conversation's deliverables went, and what became of each."""

    folder: str
    index: str
    kept: tuple[Kept, ...]


def markdown_text(text: str) -> str:
    """Untrusted text as literal Markdown on one line: no markup, no links."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def export_conversation(
    store: Store,
    conversation_id: str,
    parent: str,
    policy_for: PolicyFor,
    *,
    mode: PermissionMode | None = None,
    cancelled: threading.Event | None = None,
) -> Export:
    """Save every deliverable of the conversation (its newest versions) under
    ``parent`` in a new folder named after it, with an index.

    Raises ``OSError`` when the folder or the index cannot be written.
    """
    title = store.conversation(conversation_id).title
    newest: dict[str, LibraryItem] = {}
    for item in history_items(store, conversation_id):
        newest[item.item] = item  # oldest first: the last one stays
    folder = os.path.join(parent, free_name(parent, f"{title} - deliverables", set()))
    os.mkdir(folder, 0o700)
    kept = save_copies(
        store,
        newest.values(),
        folder,
        policy_for,
        mode=mode,
        cancelled=cancelled,
    )
    index = os.path.join(folder, free_name(folder, INDEX_NAME, set()))
    with open(index, "x", encoding="utf-8") as out:
        out.write(index_text(title, kept))
    return Export(folder, index, tuple(kept))


def history_items(store: Store, conversation_id: str) -> list[LibraryItem]:
    """Every deliverable the conversation shows, a fork's inherited ones too.

    The store's history says which records a conversation shows (a fork reads
    its parent's up to where it was forked); the index gives their rows.
    """
    shown = {
        (message.conversation_id, message.record.tool_call_id)
        for message in store.messages(conversation_id)
        if message.record is not None
    }
    library = Library(store)
    found: list[LibraryItem] = []
    for stored_in in sorted({cid for cid, _call in shown} | {conversation_id}):
        for item in library.conversation_items(stored_in):
            key = item.key
            if (key.conversation_id, key.ref) in shown or (
                item.imported and stored_in == conversation_id
            ):
                found.append(item)
    found.sort(key=lambda item: (item.created_at, item.key.entry))
    return found


def index_text(title: str, kept: list[Kept]) -> str:
    """The Markdown index of an export."""
    saved = [k for k in kept if k.target is not None]
    missed = [k for k in kept if k.target is None]
    now = datetime.now(UTC).astimezone().strftime("%Y-%m-%d %H:%M")
    lines = [
        f"# Deliverables of {markdown_text(title)}",
        "",
        f"Exported from Deliverables on {now}: {len(saved)} of {len(kept)} files.",
        "",
    ]
    if saved:
        lines += ["| File | What it is | Made by | When |", "|---|---|---|---|"]
        for k in saved:
            assert k.target is not None
            name = os.path.basename(k.target)
            when = k.item.created_at.astimezone().strftime("%Y-%m-%d %H:%M")
            lines.append(
                f"| [{markdown_text(name)}](<{quote(name)}>)"
                f" | {markdown_text(k.item.description)}"
                f" | {markdown_text(k.item.agent)} | {when} |"
            )
        lines.append("")
    if missed:
        lines += ["## Not exported", ""]
        lines += [
            f"- {markdown_text(k.item.name)}: {markdown_text(k.reason)}" for k in missed
        ]
        lines.append("")
    return "\n".join(lines)
