"""Imported sessions in the store: written in batches, replaced in place, no MAC."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.core.store import Store
from app.core.store.change_rows import NewChange, insert_imported_changes
from app.core.store.imported_files import ImportedFile, parse_imported
from app.core.store.library_rows import index_imported
from app.core.trust.import_workspace import chosen_workspace


class ImportConflictError(ValueError):
    """The session cannot be imported again; the message says why and what to do."""


@dataclass(frozen=True)
class ImportInfo:
    """Where an imported conversation came from, and what its import found."""

    conversation_id: str
    source: str
    session_id: str
    transcript: str
    imported_at: str
    complete: bool
    message_count: int
    summary: dict[str, Any]
    # Where the transcript says the session worked: shown, never trusted.
    claimed_workspace: str


@dataclass(frozen=True)
class ImportedChange:
    """A change to store beside the message at ``position`` of an import."""

    position: int
    seq: int
    tool_call_id: str
    change: NewChange


def conversation_id_for(source: str, session_id: str) -> str:
    """The stable conversation id of a session: importing it again finds it."""
    key = f"import\0{source}\0{session_id}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(key).hexdigest()[:32]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


_SELECT_IMPORT = (
    "SELECT conversation_id, source, session_id, transcript, imported_at,"
    " complete, message_count, summary, claimed_workspace FROM imports"
)

# The import a conversation is, or was forked from (a fork's parents, upward).
_SELECT_ORIGIN = _SELECT_IMPORT + (  # noqa: S608 (constant text only)
    " WHERE conversation_id IN (WITH RECURSIVE lineage (id, parent_id) AS ("
    " SELECT id, parent_id FROM conversations WHERE id = ?"
    " UNION SELECT c.id, c.parent_id FROM conversations AS c"
    " JOIN lineage ON c.id = lineage.parent_id) SELECT id FROM lineage)"
)


def _info(row: tuple[Any, ...] | None) -> ImportInfo | None:
    if row is None:
        return None
    cid, source, session_id, transcript, at, complete, count, summary, claim = row
    try:
        data = json.loads(summary)
    except (ValueError, RecursionError):
        data = {}
    summary_dict = data if isinstance(data, dict) else {}
    return ImportInfo(
        cid,
        source,
        session_id,
        transcript,
        at,
        bool(complete),
        count,
        summary_dict,
        claim,
    )


def _set_workspace(conn: sqlite3.Connection, conversation_id: str, folder: str) -> None:
    old = conn.execute(
        "SELECT workspace FROM conversations WHERE id = ?", (conversation_id,)
    ).fetchone()
    if old is None or old[0] == folder:
        return
    conn.execute(
        "UPDATE conversations SET workspace = ? WHERE id = ?", (folder, conversation_id)
    )
    conn.execute(
        "DELETE FROM verifications WHERE conversation_id = ?", (conversation_id,)
    )
    conn.execute(
        "UPDATE library SET workspace = ? WHERE conversation_id = ?",
        (folder, conversation_id),
    )


class ImportStore:
    """Imported sessions kept in a ``Store``: evidence with its provenance.

    An import writes in batches of its own transactions, so a long transcript
    never holds the write lock for long; ``complete`` says whether the last
    batch made it. Nothing written here carries a MAC.
    """

    def __init__(self, store: Store) -> None:
        self._store = store

    def begin(self, source: str, session_id: str, transcript: str, title: str) -> str:
        """Start (or restart) importing a session; return its conversation id.

        A session imported before is emptied and filled again under the same
        id, unless it was continued in this app since: that is refused. A new
        one has no workspace until ``finish`` is given one the user confirmed.
        """
        cid = conversation_id_for(source, session_id)
        with self._store.transaction(write=True) as conn:
            found = _info(
                conn.execute(
                    _SELECT_IMPORT + " WHERE conversation_id = ?", (cid,)
                ).fetchone()
            )
            if found is None:
                conn.execute(
                    "INSERT INTO conversations (id, title, workspace, created_at)"
                    " VALUES (?, ?, '', ?)",
                    (cid, title, _now()),
                )
                conn.execute(
                    "INSERT INTO imports (conversation_id, source, session_id,"
                    " transcript, imported_at, complete, message_count, summary)"
                    " VALUES (?, ?, ?, ?, ?, 0, 0, '{}')",
                    (cid, source, session_id, transcript, _now()),
                )
                return cid
            stored = conn.execute(
                "SELECT count(*) FROM messages WHERE conversation_id = ?", (cid,)
            ).fetchone()[0]
            if found.complete and stored > found.message_count:
                raise ImportConflictError(
                    f"The conversation imported from {transcript} was continued in "
                    "Deliverables, so importing it again would drop those turns. "
                    "Delete or rename that conversation first."
                )
            for table in ("changes", "records", "messages"):
                conn.execute(
                    f"DELETE FROM {table} WHERE conversation_id = ?",  # noqa: S608
                    (cid,),
                )
            conn.execute(
                "UPDATE imports SET complete = 0, transcript = ?, imported_at = ?"
                " WHERE conversation_id = ?",
                (transcript, _now(), cid),
            )
        return cid

    def write(
        self,
        conversation_id: str,
        messages: Sequence[tuple[int, str]],
        changes: Sequence[ImportedChange],
    ) -> None:
        """Store one batch: messages as (position, JSON text), and changes."""
        stamp = _now()
        rows = [(conversation_id, position, text, stamp) for position, text in messages]
        with self._store.transaction(write=True) as conn:
            conn.executemany(
                "INSERT INTO messages (conversation_id, position, message, created_at)"
                " VALUES (?, ?, ?, ?)",
                rows,
            )
            insert_imported_changes(
                conn,
                conversation_id,
                [(c.position, c.seq, c.tool_call_id, c.change) for c in changes],
            )

    def finish(
        self,
        conversation_id: str,
        *,
        title: str,
        workspace: str | None,
        claimed_workspace: str,
        message_count: int,
        summary: dict[str, Any],
        files: Sequence[ImportedFile],
    ) -> str:
        """Mark the import complete with its files; return its workspace.

        ``workspace`` is one the user confirmed (resolved), or ``None`` to keep
        the one confirmed before, if any; ``claimed_workspace`` is what the
        transcript says. Verifications of files whose transcript content
        changed are dropped, so they must be verified again.
        """
        new = {entry.entry_id: entry for entry in files}
        with self._store.transaction(write=True) as conn:
            conn.execute(
                "UPDATE conversations SET title = ? WHERE id = ?",
                (title, conversation_id),
            )
            if workspace is not None:
                _set_workspace(conn, conversation_id, workspace)
            kept = conn.execute(
                "SELECT workspace FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()[0]
            conn.execute(
                "UPDATE imports SET complete = 1, message_count = ?, summary = ?,"
                " claimed_workspace = ? WHERE conversation_id = ?",
                (
                    message_count,
                    json.dumps(summary),
                    claimed_workspace,
                    conversation_id,
                ),
            )
            old = conn.execute(
                "SELECT entry_id, raw FROM imported_files WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchall()
            for entry_id, raw in old:
                before, after = parse_imported(raw), new.get(entry_id)
                if after is None or before is None or before.sha256 != after.sha256:
                    conn.execute(
                        "DELETE FROM verifications"
                        " WHERE conversation_id = ? AND entry_id = ?",
                        (conversation_id, entry_id),
                    )
                if after is None:
                    conn.execute(
                        "DELETE FROM imported_files"
                        " WHERE conversation_id = ? AND entry_id = ?",
                        (conversation_id, entry_id),
                    )
            conn.executemany(
                "INSERT INTO imported_files (conversation_id, entry_id, raw)"
                " VALUES (?, ?, ?) ON CONFLICT (conversation_id, entry_id)"
                " DO UPDATE SET raw = excluded.raw",
                [(conversation_id, e.entry_id, e.to_json()) for e in new.values()],
            )
            index_imported(conn, conversation_id, new.values())
        return str(kept)

    def confirm_workspace(self, conversation_id: str, folder: str) -> str:
        """Make ``folder``, which the user chose, the workspace in force; return it.

        Raises ``WorkspaceChoiceError`` for anything but a local folder. What
        Verify found under another workspace is dropped: each file is checked
        again against this one.
        """
        workspace = chosen_workspace(folder)
        with self._store.transaction(write=True) as conn:
            _set_workspace(conn, conversation_id, workspace)
        return workspace

    def origin(self, conversation_id: str) -> ImportInfo | None:
        """The import behind a conversation: itself, or the one it was forked from.

        A fork copies its parent's workspace, so it is as untrusted as the
        import it came from.
        """
        with self._store.transaction(write=False) as conn:
            row = conn.execute(_SELECT_ORIGIN, (conversation_id,)).fetchone()
        return _info(row)

    def info(self, conversation_id: str) -> ImportInfo | None:
        """The import behind a conversation, or ``None`` for one made here."""
        with self._store.transaction(write=False) as conn:
            row = conn.execute(
                _SELECT_IMPORT + " WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
        return _info(row)

    def files(self, conversation_id: str) -> list[ImportedFile]:
        """The imported file entries of a conversation, in path order."""
        with self._store.transaction(write=False) as conn:
            rows = conn.execute(
                "SELECT raw FROM imported_files WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchall()
        parsed = (parse_imported(raw) for (raw,) in rows)
        return sorted(
            (entry for entry in parsed if entry is not None), key=lambda e: e.resolved
        )

    def file(self, conversation_id: str, entry_id: str) -> ImportedFile | None:
        with self._store.transaction(write=False) as conn:
            row = conn.execute(
                "SELECT raw FROM imported_files"
                " WHERE conversation_id = ? AND entry_id = ?",
                (conversation_id, entry_id),
            ).fetchone()
        return None if row is None else parse_imported(row[0])
