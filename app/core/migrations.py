"""Numbered schema migrations for the session store, tracked by PRAGMA user_version."""

from __future__ import annotations

import sqlite3
from typing import Final

# Append only: a released migration is never edited, because user_version says it
# already ran on people's disks. Migration N (1-based) is MIGRATIONS[N - 1].
MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE conversations (
        id            TEXT PRIMARY KEY,
        title         TEXT NOT NULL,
        workspace     TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        parent_id     TEXT REFERENCES conversations (id),
        fork_position INTEGER,
        CHECK ((parent_id IS NULL) = (fork_position IS NULL)),
        CHECK (fork_position IS NULL OR fork_position > 0)
    ) STRICT;

    -- position is the index in the full history, so a fork's own messages start
    -- at its fork_position; replaying a fork is then a plain range scan per level.
    CREATE TABLE messages (
        conversation_id TEXT NOT NULL REFERENCES conversations (id),
        position        INTEGER NOT NULL CHECK (position >= 0),
        message         TEXT NOT NULL,
        created_at      TEXT NOT NULL,
        PRIMARY KEY (conversation_id, position)
    ) STRICT, WITHOUT ROWID;

    -- The foreign key to the message row makes "a record without its tool
    -- message" unrepresentable, not merely unlikely.
    CREATE TABLE records (
        conversation_id TEXT NOT NULL,
        position        INTEGER NOT NULL,
        tool_call_id    TEXT NOT NULL,
        raw             TEXT NOT NULL,
        mac             TEXT NOT NULL,
        UNIQUE (conversation_id, tool_call_id),
        UNIQUE (conversation_id, position),
        FOREIGN KEY (conversation_id, position)
            REFERENCES messages (conversation_id, position)
    ) STRICT;

    CREATE INDEX conversations_by_parent ON conversations (parent_id);
    """,
)


class SchemaTooNewError(RuntimeError):
    """The database was written by a newer version of the app."""


def schema_version(conn: sqlite3.Connection) -> int:
    """Return the number of migrations applied to the database."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    assert isinstance(version, int)
    return version


def migrate(conn: sqlite3.Connection) -> None:
    """Apply every pending migration, each in its own transaction.

    The connection must be in autocommit mode (``isolation_level=None``).
    """
    while True:
        # BEGIN IMMEDIATE takes the write lock before reading the version, so two
        # processes opening a fresh store cannot both run the same migration.
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = schema_version(conn)
            if current > len(MIGRATIONS):
                raise SchemaTooNewError(
                    f"The data file has schema version {current}, but this version "
                    f"of Deliverables knows only up to {len(MIGRATIONS)}. "
                    "Update Deliverables to open it."
                )
            if current == len(MIGRATIONS):
                conn.execute("COMMIT")
                return
            for statement in _statements(MIGRATIONS[current]):
                conn.execute(statement)
            # user_version lives in the database header, which is written as part
            # of this transaction: a script and its number commit together.
            conn.execute(f"PRAGMA user_version = {current + 1:d}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


def _statements(script: str) -> list[str]:
    """Split a migration into statements, as executescript would commit first."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip() and not _only_comments(pending):
        raise ValueError(f"Incomplete SQL statement in migration: {pending!r}")
    return statements


def _only_comments(text: str) -> bool:
    return all(
        not line.strip() or line.strip().startswith("--") for line in text.splitlines()
    )
