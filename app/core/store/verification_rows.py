"""Rows of the records Verify makes for imported entries: MAC'd, bound to the entry."""

from __future__ import annotations

import hmac
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

# Makes the MAC of one verification: (conversation, entry, raw record, verdict).
VerifiedMac = Callable[[str, str, str, str], str]


@dataclass(frozen=True, slots=True)
class StoredVerification:
    """What Verify stored for an imported entry: a host record and its verdict."""

    entry_id: str
    raw: str
    verdict: str
    trusted: bool


def save_verification(
    conn: sqlite3.Connection,
    mac: VerifiedMac,
    conversation_id: str,
    entry_id: str,
    raw: str,
    verdict: str,
) -> None:
    conn.execute(
        "INSERT INTO verifications (conversation_id, entry_id, raw, verdict, mac)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (conversation_id, entry_id)"
        " DO UPDATE SET raw = excluded.raw, verdict = excluded.verdict,"
        " mac = excluded.mac",
        (
            *(conversation_id, entry_id, raw, verdict),
            mac(conversation_id, entry_id, raw, verdict),
        ),
    )


def load_verification(
    conn: sqlite3.Connection, mac: VerifiedMac, conversation_id: str, entry_id: str
) -> StoredVerification | None:
    row = conn.execute(
        "SELECT raw, verdict, mac FROM verifications"
        " WHERE conversation_id = ? AND entry_id = ?",
        (conversation_id, entry_id),
    ).fetchone()
    if row is None:
        return None
    raw, verdict, stored = row
    expected = mac(conversation_id, entry_id, raw, verdict).encode("ascii")
    # Bytes: an edited mac column may hold anything, compare_digest refuses
    # non-ASCII text.
    trusted = hmac.compare_digest(expected, stored.encode("utf-8", "replace"))
    return StoredVerification(entry_id, raw, verdict, trusted)
