"""Rows of the file-change index in the store: written, read back, trust decided."""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from app.core.store.messages import tool_call_id

# Makes the MAC of one change row: (conversation, call, seq, raw, digest).
ChangeMac = Callable[[str, str, int, str, str | None], str]


class NewChange(NamedTuple):
    """A file change to store beside a tool message: its JSON and the old text."""

    raw: str
    before: str | None = None


@dataclass(frozen=True, slots=True)
class StoredChange:
    """One row of the file-change index, exactly as it was stored.

    Trusted only when the host wrote it (its MAC holds) beside the tool message
    answering ``tool_call_id``; imported rows never are. ``before`` is loaded
    only by ``Store.change``; a history carries ``has_before`` instead.
    """

    position: int
    seq: int
    tool_call_id: str
    origin: str  # "host" or "imported"
    raw: str
    trusted: bool
    has_before: bool
    before: str | None = None


def text_digest(text: str | None) -> str | None:
    if text is None:
        return None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def insert_host_changes(
    conn: sqlite3.Connection,
    mac: ChangeMac,
    conversation_id: str,
    position: int,
    tool_call_id: str,
    changes: Sequence[NewChange],
) -> None:
    for seq, change in enumerate(changes):
        digest = text_digest(change.before)
        conn.execute(
            "INSERT INTO changes (conversation_id, position, seq, tool_call_id,"
            " origin, raw, before, before_sha256, mac)"
            " VALUES (?, ?, ?, ?, 'host', ?, ?, ?, ?)",
            (
                *(conversation_id, position, seq, tool_call_id, change.raw),
                *(change.before, digest),
                mac(conversation_id, tool_call_id, seq, change.raw, digest),
            ),
        )


def insert_imported_changes(
    conn: sqlite3.Connection,
    conversation_id: str,
    changes: Sequence[tuple[int, int, str, NewChange]],
) -> None:
    """Imported changes as (position, seq, call id, change): evidence with no MAC,
    so never trusted."""
    conn.executemany(
        "INSERT INTO changes (conversation_id, position, seq, tool_call_id,"
        " origin, raw, before, before_sha256, mac)"
        " VALUES (?, ?, ?, ?, 'imported', ?, ?, ?, NULL)",
        [
            (
                *(conversation_id, position, seq, call, change.raw),
                *(change.before, text_digest(change.before)),
            )
            for position, seq, call, change in changes
        ],
    )


def _judged(
    mac: ChangeMac,
    cid: str,
    row: tuple[int, int, str, str, str, str | None, str | None],
    message_call: str | None,
) -> StoredChange:
    position, seq, call, origin, raw, digest, stored_mac = row
    trusted = False
    # The MAC binds a change to its call id, not to its row: a change moved
    # under another message in the database loses its trust here.
    if origin == "host" and stored_mac is not None and call == message_call:
        expected = mac(cid, call, seq, raw, digest).encode("ascii")
        trusted = hmac.compare_digest(expected, stored_mac.encode("utf-8", "replace"))
    return StoredChange(position, seq, call, origin, raw, trusted, digest is not None)


def changes_in(
    conn: sqlite3.Connection,
    mac: ChangeMac,
    cid: str,
    start: int,
    stop: int,
    calls: dict[int, str | None],
) -> dict[int, tuple[StoredChange, ...]]:
    """The changes stored at positions ``[start, stop)`` of ``cid``, by position.

    ``calls`` gives the call id each message at a position answers.
    """
    rows = conn.execute(
        "SELECT position, seq, tool_call_id, origin, raw, before_sha256, mac"
        " FROM changes WHERE conversation_id = ? AND position >= ?"
        " AND position < ? ORDER BY position, seq",
        (cid, start, stop),
    ).fetchall()
    found: dict[int, list[StoredChange]] = {}
    for row in rows:
        judged = _judged(mac, cid, row, calls.get(row[0]))
        found.setdefault(judged.position, []).append(judged)
    return {position: tuple(items) for position, items in found.items()}


def change_with_text(
    conn: sqlite3.Connection, mac: ChangeMac, cid: str, position: int, seq: int
) -> StoredChange | None:
    """One change with the text before it; untrusted if that text was altered."""
    row = conn.execute(
        "SELECT c.position, c.seq, c.tool_call_id, c.origin, c.raw,"
        " c.before_sha256, c.mac, c.before, m.message FROM changes AS c"
        " JOIN messages AS m ON m.conversation_id = c.conversation_id"
        " AND m.position = c.position"
        " WHERE c.conversation_id = ? AND c.position = ? AND c.seq = ?",
        (cid, position, seq),
    ).fetchone()
    if row is None:
        return None
    before, text = row[7], row[8]
    judged = _judged(mac, cid, row[:7], tool_call_id(json.loads(text)))
    intact = text_digest(before) == row[5]
    return replace(judged, trusted=judged.trusted and intact, before=before)
