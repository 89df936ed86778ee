"""Which conversation an MCP client continues in a folder, and when it starts anew.

One client in one folder continues one conversation across its sessions (each
``deliverables mcp`` process is one session). The user's preferences, kept in
the store so the window writes them and the server reads them, may ask for a
new conversation at each new session, or after a gap without calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from app.core.store.database import Store

NEW_PER_SESSION: Final = "mcp.new_conversation_per_session"
"""Preference: "1" starts a new conversation whenever a client starts a session."""

GAP_HOURS: Final = "mcp.new_conversation_after_hours"
"""Preference: hours without calls after which a new conversation starts (0: never)."""


@dataclass(frozen=True)
class ConversationRule:
    """When a client's calls in a folder stop continuing its conversation."""

    new_per_session: bool = False
    gap: timedelta | None = None


def conversation_rule(store: Store) -> ConversationRule:
    """The rule the user chose; the default continues one conversation always."""
    per_session = preference(store, NEW_PER_SESSION) == "1"
    try:
        hours = int(preference(store, GAP_HOURS) or 0)
    except ValueError:
        hours = 0  # a value edited by hand: as if none were set
    gap = timedelta(hours=hours) if hours > 0 else None
    return ConversationRule(per_session, gap)


def set_conversation_rule(store: Store, rule: ConversationRule) -> None:
    hours = 0 if rule.gap is None else int(rule.gap.total_seconds() // 3600)
    set_preference(store, NEW_PER_SESSION, "1" if rule.new_per_session else "0")
    set_preference(store, GAP_HOURS, str(hours))


def continued_conversation(
    store: Store,
    client: str,
    workspace: str,
    session: str,
    now: datetime | None = None,
) -> str | None:
    """The conversation ``client`` continues in ``workspace``; ``None``: a new one."""
    with store.transaction(write=False) as conn:
        row = conn.execute(
            "SELECT c.conversation_id, c.session, c.last_call_at"
            " FROM client_conversations AS c"
            " JOIN conversations ON conversations.id = c.conversation_id"
            " WHERE c.client = ? AND c.workspace = ?",
            (client, workspace),
        ).fetchone()
    if row is None:
        return None
    conversation_id, last_session, last_call = str(row[0]), str(row[1]), str(row[2])
    rule = conversation_rule(store)
    if rule.new_per_session and last_session != session:
        return None
    if rule.gap is not None:
        try:
            since = (now or datetime.now(UTC)) - datetime.fromisoformat(last_call)
        except ValueError:
            return None
        if since > rule.gap:
            return None
    return conversation_id


def note_call(
    store: Store,
    client: str,
    workspace: str,
    conversation_id: str,
    session: str,
    now: datetime | None = None,
) -> None:
    """Record that ``client``'s call in ``workspace`` went to ``conversation_id``."""
    stamp = (now or datetime.now(UTC)).isoformat(timespec="microseconds")
    with store.transaction(write=True) as conn:
        conn.execute(
            "INSERT INTO client_conversations"
            " (client, workspace, conversation_id, session, last_call_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (client, workspace) DO UPDATE SET"
            " conversation_id = excluded.conversation_id,"
            " session = excluded.session, last_call_at = excluded.last_call_at",
            (client, workspace, conversation_id, session, stamp),
        )


def preference(store: Store, name: str) -> str | None:
    with store.transaction(write=False) as conn:
        row = conn.execute(
            "SELECT value FROM preferences WHERE name = ?", (name,)
        ).fetchone()
    return None if row is None else str(row[0])


def set_preference(store: Store, name: str, value: str) -> None:
    with store.transaction(write=True) as conn:
        conn.execute(
            "INSERT INTO preferences (name, value) VALUES (?, ?)"
            " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            (name, value),
        )
