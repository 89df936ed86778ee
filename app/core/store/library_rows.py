"""The library index: one row per deliverable file, beside the rows it comes from.

The index is derived data, never trusted: a row only says where to look (a
record's entry, an imported file's entry), and every action reads that entry
again through the card's own check. It is written in the transaction that
writes its source row (``index_record``, ``index_imported``,
``index_changes``) and removed with it by triggers (migrations 6 and 7), so it
cannot drift from what the store holds.
"""

from __future__ import annotations

import json
import posixpath
import sqlite3
from collections.abc import Iterable
from typing import Any, Final

from app.core.filetype.names import kind_from_name
from app.core.store.imported_files import ImportedFile, parse_imported
from app.core.trust.records import FileEntry, Record, parse_record

PRESENTED: Final = "presented"
IMPORTED: Final = "imported"
# A file a turn changed without presenting it: one row per turn and path.
CHANGED: Final = "changed"
UNCHECKED: Final = "unchecked"

# The app's own agent; MCP clients and imported sessions name theirs.
APP_AGENT: Final = "Deliverables agent"
# An MCP turn opens with "From <client>" (``app.mcp.presenter``), and its call
# ids carry this prefix: the client's name is read back from that message.
MCP_CALL_PREFIX: Final = "mcp-"
MCP_OPENING: Final = "From "
IMPORT_SOURCES: Final = {"claude-code": "Claude Code", "codex": "Codex"}

# Each item's newest version, as the insert trigger would have marked it.
_MARK_NEWEST: Final = (
    "UPDATE library SET latest = 1 WHERE NOT EXISTS (SELECT 1 FROM library AS n"
    " WHERE n.item = library.item AND (n.created_at > library.created_at"
    " OR (n.created_at = library.created_at AND n.rowid > library.rowid)))"
)

_INSERT: Final = (
    "INSERT INTO library (conversation_id, origin, ref, entry, position, item, name,"
    " folder, description, kind, agent, workspace, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def complete_library(conn: sqlite3.Connection) -> None:
    """Fill the index from every record and imported file, if a migration asked.

    Migration 6 creates the index empty and leaves a row in ``library_pending``:
    its rows need the record parser, so the store fills it when it opens, in one
    transaction that also removes the request. Nothing to do otherwise.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT 1 FROM library_pending").fetchone() is not None:
            conn.execute("DELETE FROM library")
            # Rows go in faster without the indexes, which are then built
            # once, as the migration defined them.
            indexes = conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index'"
                " AND tbl_name = 'library' AND sql IS NOT NULL"
            ).fetchall()
            for name, _sql in indexes:
                conn.execute(f'DROP INDEX "{name}"')
            _fill(conn)
            for _name, sql in indexes:
                conn.execute(sql)
            conn.execute(_MARK_NEWEST)
            conn.execute("DELETE FROM library_pending")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def complete_library_if_empty(conn: sqlite3.Connection) -> None:
    """Fill the index at once where there is nothing to fill it with.

    A new store's migrations ask for a fill too; answering it at open keeps
    the index written as things are stored from the start, and the library
    from ever saying it is being prepared for nothing.
    """
    for table in ("records", "changes", "imported_files"):
        query = f"SELECT 1 FROM {table} LIMIT 1"  # noqa: S608 (constant names)
        if conn.execute(query).fetchone() is not None:
            return
    complete_library(conn)


def _fill(conn: sqlite3.Connection) -> None:
    records = conn.execute(
        "SELECT r.conversation_id, r.position, r.tool_call_id, r.raw, m.created_at"
        " FROM records AS r JOIN messages AS m"
        " ON m.conversation_id = r.conversation_id AND m.position = r.position"
    ).fetchall()
    for cid, position, call, raw, created_at in records:
        index_record(conn, cid, position, call, raw, created_at)
    for (cid,) in conn.execute("SELECT conversation_id FROM imports").fetchall():
        rows = conn.execute(
            "SELECT raw FROM imported_files WHERE conversation_id = ?", (cid,)
        ).fetchall()
        parsed = (parse_imported(raw) for (raw,) in rows)
        index_imported(conn, cid, [e for e in parsed if e is not None])
    # After the records: a path a turn presented is listed as presented.
    changes = conn.execute(
        "SELECT c.conversation_id, c.position, c.seq, c.tool_call_id, c.raw,"
        " m.created_at FROM changes AS c JOIN messages AS m"
        " ON m.conversation_id = c.conversation_id AND m.position = c.position"
        " WHERE c.origin = 'host' ORDER BY c.conversation_id, c.position, c.seq"
    ).fetchall()
    for cid, position, seq, call, raw, created_at in changes:
        index_changes(conn, cid, position, call, [(seq, raw)], created_at)


def index_record(
    conn: sqlite3.Connection,
    conversation_id: str,
    position: int,
    tool_call_id: str,
    raw: str,
    created_at: str,
) -> None:
    """Index each file of the record just stored at ``position``.

    A record this app cannot read is not listed: it offers no file actions.
    """
    record = parse_record(raw)
    if not isinstance(record, Record):
        return
    agent = _agent(conn, conversation_id, position, tool_call_id)
    conn.executemany(
        _INSERT,
        [
            (
                conversation_id,
                PRESENTED,
                tool_call_id,
                index,
                position,
                item_key(entry),
                entry.name,
                _folder(entry.resolved),
                entry.description,
                entry.kind,
                agent,
                record.workspace,
                created_at,
            )
            for index, entry in enumerate(record.files)
        ],
    )
    # The turn's presented version stands for it: no changed-only row beside.
    start, stop = _turn_of(conn, conversation_id, position)
    conn.executemany(
        "DELETE FROM library WHERE conversation_id = ? AND origin = 'changed'"
        " AND item = ? AND position >= ? AND position < ?",
        [(conversation_id, item_key(e), start, stop) for e in record.files],
    )


def index_changes(
    conn: sqlite3.Connection,
    conversation_id: str,
    position: int,
    tool_call_id: str,
    changes: Iterable[tuple[int, str]],
    created_at: str | None = None,
) -> None:
    """Index the files the host changes (seq, raw) at ``position`` touched.

    One row per turn and path: the first change of a path in its turn, unless
    the turn presented that path. The row only says where to look; opening it
    reads the turn's change index again (``app.core.changes.index``).
    """
    start, stop = _turn_of(conn, conversation_id, position)
    stamp = created_at or _created_at(conn, conversation_id, position) or ""
    for seq, raw in changes:
        resolved = _changed_path(raw)
        if resolved is None:
            continue
        listed = conn.execute(
            "SELECT 1 FROM library WHERE item = ? AND conversation_id = ?"
            " AND position >= ? AND position < ? LIMIT 1",
            (resolved, conversation_id, start, stop),
        ).fetchone()
        if listed is not None:
            continue
        name = posixpath.basename(resolved.replace("\\", "/"))
        conn.execute(
            _INSERT,
            (
                conversation_id,
                CHANGED,
                tool_call_id,
                seq,
                start,
                resolved,
                name,
                _folder(resolved),
                "changed in a turn, not presented",
                kind_from_name(name).value,
                _agent(conn, conversation_id, position, tool_call_id),
                _workspace(conn, conversation_id),
                stamp,
            ),
        )


def _changed_path(raw: str) -> str | None:
    """The path a stored change names; the change parser lives above the store,
    and only this one field is needed to list it."""
    try:
        resolved = json.loads(raw).get("resolved")
    except (ValueError, AttributeError):
        return None
    return resolved if isinstance(resolved, str) and resolved else None


def _turn_of(conn: sqlite3.Connection, cid: str, position: int) -> tuple[int, int]:
    """The positions [start, stop) of the turn holding ``position``.

    A turn starts at a user message; a fork whose own rows hold none before
    ``position`` starts its turn at its first row.
    """
    row = conn.execute(
        "SELECT position FROM messages WHERE conversation_id = ? AND position <= ?"
        " AND json_extract(message, '$.type') = 'human'"
        " ORDER BY position DESC LIMIT 1",
        (cid, position),
    ).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT min(position) FROM messages WHERE conversation_id = ?", (cid,)
        ).fetchone()
    after = conn.execute(
        "SELECT position FROM messages WHERE conversation_id = ? AND position > ?"
        " AND json_extract(message, '$.type') = 'human' ORDER BY position LIMIT 1",
        (cid, position),
    ).fetchone()
    start = position if row is None or row[0] is None else int(row[0])
    return start, (1 << 62) if after is None else int(after[0])


def _workspace(conn: sqlite3.Connection, cid: str) -> str:
    row = conn.execute(
        "SELECT workspace FROM conversations WHERE id = ?", (cid,)
    ).fetchone()
    return "" if row is None else str(row[0])


def index_imported(
    conn: sqlite3.Connection, conversation_id: str, entries: Iterable[ImportedFile]
) -> None:
    """Index (again) an imported conversation's file entries, replacing the old."""
    conn.execute(
        "DELETE FROM library WHERE conversation_id = ? AND origin = 'imported'",
        (conversation_id,),
    )
    workspace, imported_at = conn.execute(
        "SELECT c.workspace, i.imported_at FROM conversations AS c"
        " JOIN imports AS i ON i.conversation_id = c.id WHERE c.id = ?",
        (conversation_id,),
    ).fetchone()
    rows: list[tuple[Any, ...]] = []
    for entry in entries:
        name = posixpath.basename(entry.resolved.replace("\\", "/"))
        stamp = _created_at(conn, conversation_id, entry.turn_position) or imported_at
        rows.append(
            (
                conversation_id,
                IMPORTED,
                entry.entry_id,
                0,
                entry.turn_position,
                entry.resolved,
                name,
                _folder(entry.resolved),
                f"{entry.operation} in an imported session",
                kind_from_name(name).value,
                IMPORT_SOURCES.get(entry.source, entry.source),
                workspace or entry.workspace,
                stamp,
            )
        )
    conn.executemany(_INSERT, rows)


def item_key(entry: FileEntry) -> str:
    """What makes two entries versions of one file: the same path on one host."""
    if entry.remote is None:
        return entry.resolved
    origin = entry.remote
    return f"ssh://{origin.user}@{origin.host}:{origin.port}{entry.resolved}"


def _folder(resolved: str) -> str:
    return posixpath.dirname(resolved.replace("\\", "/"))


def _created_at(conn: sqlite3.Connection, cid: str, position: int) -> str | None:
    row = conn.execute(
        "SELECT created_at FROM messages WHERE conversation_id = ? AND position = ?",
        (cid, position),
    ).fetchone()
    return None if row is None else str(row[0])


def _agent(conn: sqlite3.Connection, cid: str, position: int, call: str) -> str:
    """Who presented: the app's agent, or the MCP client its turn names."""
    if not call.startswith(MCP_CALL_PREFIX):
        return APP_AGENT
    # An MCP turn is (opening, call, result): the opening is two messages back.
    row = conn.execute(
        "SELECT message FROM messages WHERE conversation_id = ? AND position = ?",
        (cid, position - 2),
    ).fetchone()
    if row is not None:
        try:
            content = json.loads(row[0]).get("data", {}).get("content")
        except (ValueError, AttributeError):
            content = None
        if isinstance(content, str) and content.startswith(MCP_OPENING):
            return content[len(MCP_OPENING) :].strip() or "MCP client"
    return "MCP client"
