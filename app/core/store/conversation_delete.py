"""Deleting a conversation: its rows go, and each fork keeps its whole history.

A fork stores only its own messages and reads the shared part from its parent.
Before a parent goes, the part a fork reads from it is copied into the fork,
which then forks the grandparent (or stands alone): the fork shows exactly
what it showed before. Records and file changes are MAC'd for the fork again,
but only those whose MAC held where they were: an untrusted record stays
untrusted.
"""

from __future__ import annotations

import hmac
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from app.core.store.library_rows import index_changes, index_record

# (conversation, tool call, raw) -> MAC, and whether a stored MAC holds.
RecordMac = Callable[[str, str, str], str]
RecordTrusted = Callable[[str, str, str, str], bool]
# (conversation, tool call, seq, raw, digest) -> MAC.
ChangeMac = Callable[[str, str, int, str, str | None], str]

# Rows of a conversation, children before the rows they refer to.
_OWN_TABLES = (
    "verifications",
    "imported_files",
    "imports",
    "changes",
    "records",
    "messages",
)


@dataclass(frozen=True)
class Macs:
    """How the store makes and checks MACs; the key never leaves it."""

    record: RecordMac
    record_trusted: RecordTrusted
    change: ChangeMac


@dataclass(frozen=True)
class _Row:
    id: str
    parent_id: str | None
    fork_position: int | None


def _row(conn: sqlite3.Connection, cid: str) -> _Row:
    found = conn.execute(
        "SELECT id, parent_id, fork_position FROM conversations WHERE id = ?", (cid,)
    ).fetchone()
    if found is None:
        raise KeyError(cid)
    return _Row(*found)


def delete_rows(conn: sqlite3.Connection, cid: str, macs: Macs) -> None:
    """Delete conversation ``cid`` inside the caller's write transaction."""
    gone = _row(conn, cid)
    forks = conn.execute(
        "SELECT id FROM conversations WHERE parent_id = ? ORDER BY rowid", (cid,)
    ).fetchall()
    for (fork_id,) in forks:
        _hand_down(conn, gone, _row(conn, fork_id), macs)
    for table in _OWN_TABLES:
        conn.execute(
            f"DELETE FROM {table} WHERE conversation_id = ?",  # noqa: S608
            (cid,),
        )
    conn.execute("DELETE FROM conversations WHERE id = ?", (cid,))


def _hand_down(conn: sqlite3.Connection, gone: _Row, fork: _Row, macs: Macs) -> None:
    """Copy into ``fork`` what it reads from ``gone``, and re-point it."""
    assert fork.fork_position is not None
    low = gone.fork_position or 0
    high = fork.fork_position
    if low < high:
        _copy_messages(conn, gone.id, fork.id, low, high, macs)
    if gone.parent_id is None:
        parent, position = None, None
    else:
        parent, position = gone.parent_id, min(low, high)
    conn.execute(
        "UPDATE conversations SET parent_id = ?, fork_position = ? WHERE id = ?",
        (parent, position, fork.id),
    )


def _copy_messages(
    conn: sqlite3.Connection, source: str, target: str, low: int, high: int, macs: Macs
) -> None:
    window = (source, low, high)
    conn.execute(
        "INSERT INTO messages (conversation_id, position, message, created_at)"
        " SELECT ?, position, message, created_at FROM messages"
        " WHERE conversation_id = ? AND position >= ? AND position < ?",
        (target, *window),
    )
    records = conn.execute(
        "SELECT r.position, r.tool_call_id, r.raw, r.mac, m.created_at"
        " FROM records AS r JOIN messages AS m"
        " ON m.conversation_id = r.conversation_id AND m.position = r.position"
        " WHERE r.conversation_id = ? AND r.position >= ? AND r.position < ?",
        window,
    ).fetchall()
    for position, call, raw, mac, created_at in records:
        trusted = macs.record_trusted(source, call, raw, mac)
        # A MAC that did not hold is kept as it was: it holds nowhere.
        new_mac = macs.record(target, call, raw) if trusted else mac
        conn.execute(
            "INSERT INTO records (conversation_id, position, tool_call_id, raw, mac)"
            " VALUES (?, ?, ?, ?, ?)",
            (target, position, call, raw, new_mac),
        )
        index_record(conn, target, position, call, raw, created_at)
    changes = conn.execute(
        "SELECT position, seq, tool_call_id, origin, raw, before, before_sha256, mac"
        " FROM changes WHERE conversation_id = ? AND position >= ? AND position < ?",
        window,
    ).fetchall()
    for position, seq, call, origin, raw, before, digest, mac in changes:
        new_mac = mac
        if origin == "host" and mac is not None:
            expected = macs.change(source, call, seq, raw, digest).encode("ascii")
            if hmac.compare_digest(expected, mac.encode("utf-8", "replace")):
                new_mac = macs.change(target, call, seq, raw, digest)
        conn.execute(
            "INSERT INTO changes (conversation_id, position, seq, tool_call_id,"
            " origin, raw, before, before_sha256, mac)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (target, position, seq, call, origin, raw, before, digest, new_mac),
        )
        if origin == "host":
            index_changes(conn, target, position, call, [(seq, raw)])
