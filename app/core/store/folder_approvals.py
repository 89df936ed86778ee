"""Rows of the folders the user approved for an MCP client: MAC'd, plain paths only."""

from __future__ import annotations

import hmac
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

from app.core.trust.paths import folder_path_problem

# Makes the MAC of one approval: (client, folder).
ApprovalMac = Callable[[str, str], str]


def save_approval(
    conn: sqlite3.Connection, mac: ApprovalMac, client: str, folder: str
) -> None:
    """Store that ``client`` may work in ``folder``; ``ValueError`` if it cannot."""
    if not client:
        raise ValueError("An approval needs the client's name.")
    problem = folder_path_problem(folder)
    if problem is not None:
        raise ValueError(f"The folder {folder!r} {problem}; it cannot be approved.")
    conn.execute(
        "INSERT INTO folder_approvals (client, folder, approved_at, mac)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (client, folder) DO NOTHING",
        (
            client,
            folder,
            datetime.now(UTC).isoformat(timespec="microseconds"),
            mac(client, folder),
        ),
    )


def load_approvals(
    conn: sqlite3.Connection, mac: ApprovalMac, client: str
) -> list[str]:
    """The folders approved for ``client``, oldest first; forged rows left out."""
    rows = conn.execute(
        "SELECT folder, mac FROM folder_approvals WHERE client = ?"
        " ORDER BY approved_at",
        (client,),
    ).fetchall()
    approved = []
    for folder, stored in rows:
        expected = mac(client, folder).encode("ascii")
        # Bytes: an edited mac column may hold anything, compare_digest
        # refuses non-ASCII text.
        trusted = hmac.compare_digest(expected, str(stored).encode("utf-8", "replace"))
        if trusted and folder_path_problem(folder) is None:
            approved.append(folder)
    return approved
