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
    """
    -- The per-turn file-change index: one row per file an edit touched, beside
    -- the message that made it. Host rows carry a MAC; imported rows never do,
    -- and the CHECK keeps the two from being confused. The text before the edit
    -- has a column (and a digest the MAC covers) of its own, so replaying a
    -- history does not load every file's old text.
    CREATE TABLE changes (
        conversation_id TEXT NOT NULL,
        position        INTEGER NOT NULL,
        seq             INTEGER NOT NULL CHECK (seq >= 0),
        tool_call_id    TEXT NOT NULL,
        origin          TEXT NOT NULL CHECK (origin IN ('host', 'imported')),
        raw             TEXT NOT NULL,
        before          TEXT,
        before_sha256   TEXT,
        mac             TEXT,
        CHECK ((origin = 'host') = (mac IS NOT NULL)),
        CHECK ((before IS NULL) = (before_sha256 IS NULL)),
        PRIMARY KEY (conversation_id, position, seq),
        FOREIGN KEY (conversation_id, position)
            REFERENCES messages (conversation_id, position)
    ) STRICT;

    -- A conversation imported from another agent's transcript, with where it
    -- came from. complete stays 0 until the last batch of an import commits.
    CREATE TABLE imports (
        conversation_id TEXT PRIMARY KEY REFERENCES conversations (id),
        source          TEXT NOT NULL,
        session_id      TEXT NOT NULL,
        transcript      TEXT NOT NULL,
        imported_at     TEXT NOT NULL,
        complete        INTEGER NOT NULL CHECK (complete IN (0, 1)),
        message_count   INTEGER NOT NULL CHECK (message_count >= 0),
        summary         TEXT NOT NULL,
        UNIQUE (source, session_id)
    ) STRICT;

    -- One entry per file an imported session created or edited: untrusted
    -- evidence, never MAC'd.
    CREATE TABLE imported_files (
        conversation_id TEXT NOT NULL REFERENCES imports (conversation_id),
        entry_id        TEXT NOT NULL,
        raw             TEXT NOT NULL,
        PRIMARY KEY (conversation_id, entry_id)
    ) STRICT;

    -- What Verify found: a host record made by the present check, MAC'd like
    -- any record, bound to the entry it verified.
    CREATE TABLE verifications (
        conversation_id TEXT NOT NULL,
        entry_id        TEXT NOT NULL,
        raw             TEXT NOT NULL,
        verdict         TEXT NOT NULL,
        mac             TEXT NOT NULL,
        PRIMARY KEY (conversation_id, entry_id),
        FOREIGN KEY (conversation_id, entry_id)
            REFERENCES imported_files (conversation_id, entry_id)
    ) STRICT;
    """,
    """
    -- The folder a transcript says its session worked in is a claim: anyone
    -- who can write the file can make it say "/". It moves to imports, and a
    -- conversation imported before (with every fork of one) keeps no workspace
    -- until the user confirms one; what Verify found under the claim goes too.
    ALTER TABLE imports ADD COLUMN claimed_workspace TEXT NOT NULL DEFAULT '';

    UPDATE imports SET claimed_workspace = (
        SELECT workspace FROM conversations WHERE id = imports.conversation_id
    );

    WITH RECURSIVE derived (id) AS (
        SELECT conversation_id FROM imports
        UNION
        SELECT conversations.id FROM conversations
        JOIN derived ON conversations.parent_id = derived.id
    )
    UPDATE conversations SET workspace = ''
    WHERE id IN (SELECT id FROM derived);

    DELETE FROM verifications;
    """,
    """
    -- Folders the user approved for an MCP client beyond the folder its server
    -- was started for, keyed by the name the user gave the client. MAC'd: an
    -- approval widens what a client may present, so only the app makes one.
    CREATE TABLE folder_approvals (
        client      TEXT NOT NULL,
        folder      TEXT NOT NULL,
        approved_at TEXT NOT NULL,
        mac         TEXT NOT NULL,
        PRIMARY KEY (client, folder)
    ) STRICT, WITHOUT ROWID;
    """,
    """
    -- The conversation an MCP client's calls in a folder go to, so its sessions
    -- continue one conversation. session and last_call_at decide when the
    -- user's preferences start a new one. A row whose conversation was deleted
    -- is simply replaced: the lookup joins conversations.
    CREATE TABLE client_conversations (
        client          TEXT NOT NULL,
        workspace       TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        session         TEXT NOT NULL,
        last_call_at    TEXT NOT NULL,
        PRIMARY KEY (client, workspace)
    ) STRICT, WITHOUT ROWID;

    -- Preferences the user sets in the window that other processes (the MCP
    -- server) read too. They widen nothing, so they carry no MAC.
    CREATE TABLE preferences (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) STRICT, WITHOUT ROWID;
    """,
    """
    -- The library: one row per file of every record and every imported entry
    -- (app.core.store.library_rows). Derived and never trusted: a row says
    -- where to look, and every action reads that record again. item names the
    -- file a row is a version of; latest marks its newest version, so the list
    -- is one index range scan.
    CREATE TABLE library (
        conversation_id TEXT NOT NULL,
        origin          TEXT NOT NULL CHECK (origin IN ('presented', 'imported')),
        ref             TEXT NOT NULL,
        entry           INTEGER NOT NULL CHECK (entry >= 0),
        position        INTEGER NOT NULL,
        item            TEXT NOT NULL,
        name            TEXT NOT NULL,
        folder          TEXT NOT NULL,
        description     TEXT NOT NULL,
        kind            TEXT NOT NULL,
        agent           TEXT NOT NULL,
        workspace       TEXT NOT NULL,
        created_at      TEXT NOT NULL,
        state           TEXT NOT NULL DEFAULT 'unchecked',
        latest          INTEGER NOT NULL DEFAULT 0 CHECK (latest IN (0, 1)),
        UNIQUE (conversation_id, origin, ref, entry)
    ) STRICT;

    CREATE INDEX library_newest ON library (latest, created_at, entry DESC);
    CREATE INDEX library_versions ON library (item, created_at);
    CREATE INDEX library_by_conversation ON library (conversation_id, created_at);
    -- Filters by these, and their distinct values found by skipping through.
    CREATE INDEX library_by_kind ON library (kind, latest);
    CREATE INDEX library_by_agent ON library (agent, latest);
    CREATE INDEX library_by_workspace ON library (workspace, latest);

    -- Not while the index is filled for existing data: the fill marks every
    -- newest version at once at its end (library_rows.complete_library).
    CREATE TRIGGER library_latest_insert AFTER INSERT ON library
    WHEN NOT EXISTS (SELECT 1 FROM library_pending) BEGIN
        UPDATE library SET latest = (rowid = (
            SELECT rowid FROM library WHERE item = NEW.item
            ORDER BY created_at DESC, rowid DESC LIMIT 1
        )) WHERE item = NEW.item;
    END;

    CREATE TRIGGER library_latest_delete AFTER DELETE ON library
    WHEN NOT EXISTS (SELECT 1 FROM library_pending) BEGIN
        UPDATE library SET latest = (rowid = (
            SELECT rowid FROM library WHERE item = OLD.item
            ORDER BY created_at DESC, rowid DESC LIMIT 1
        )) WHERE item = OLD.item;
    END;

    -- A row goes with the record or imported entry it came from, whoever
    -- deletes that (a conversation deleted, an import done again).
    CREATE TRIGGER IF NOT EXISTS library_record_gone AFTER DELETE ON records BEGIN
        DELETE FROM library WHERE conversation_id = OLD.conversation_id
        AND origin = 'presented' AND ref = OLD.tool_call_id;
    END;

    CREATE TRIGGER IF NOT EXISTS library_import_gone
    AFTER DELETE ON imported_files BEGIN
        DELETE FROM library WHERE conversation_id = OLD.conversation_id
        AND origin = 'imported' AND ref = OLD.entry_id;
    END;

    -- The rows of what is stored already need the record parser: the store
    -- fills the index when it opens while this asks it to (complete_library).
    CREATE TABLE library_pending (requested INTEGER NOT NULL) STRICT;
    INSERT INTO library_pending VALUES (1);
    """,
    """
    -- A file a turn changed without presenting it is a version too (origin
    -- 'changed': ref is the change's call id, entry its seq, position the
    -- turn's first message). SQLite cannot widen a CHECK in place, so the
    -- index is made again, as migration 6 made it, and filled again.
    DROP TABLE IF EXISTS library;
    CREATE TABLE library (
        conversation_id TEXT NOT NULL,
        origin          TEXT NOT NULL
            CHECK (origin IN ('presented', 'imported', 'changed')),
        ref             TEXT NOT NULL,
        entry           INTEGER NOT NULL CHECK (entry >= 0),
        position        INTEGER NOT NULL,
        item            TEXT NOT NULL,
        name            TEXT NOT NULL,
        folder          TEXT NOT NULL,
        description     TEXT NOT NULL,
        kind            TEXT NOT NULL,
        agent           TEXT NOT NULL,
        workspace       TEXT NOT NULL,
        created_at      TEXT NOT NULL,
        state           TEXT NOT NULL DEFAULT 'unchecked',
        latest          INTEGER NOT NULL DEFAULT 0 CHECK (latest IN (0, 1)),
        UNIQUE (conversation_id, origin, ref, entry)
    ) STRICT;

    CREATE INDEX library_newest ON library (latest, created_at, entry DESC);
    CREATE INDEX library_versions ON library (item, created_at);
    CREATE INDEX library_by_conversation ON library (conversation_id, created_at);
    CREATE INDEX library_by_kind ON library (kind, latest);
    CREATE INDEX library_by_agent ON library (agent, latest);
    CREATE INDEX library_by_workspace ON library (workspace, latest);

    CREATE TRIGGER library_latest_insert AFTER INSERT ON library
    WHEN NOT EXISTS (SELECT 1 FROM library_pending) BEGIN
        UPDATE library SET latest = (rowid = (
            SELECT rowid FROM library WHERE item = NEW.item
            ORDER BY created_at DESC, rowid DESC LIMIT 1
        )) WHERE item = NEW.item;
    END;

    CREATE TRIGGER library_latest_delete AFTER DELETE ON library
    WHEN NOT EXISTS (SELECT 1 FROM library_pending) BEGIN
        UPDATE library SET latest = (rowid = (
            SELECT rowid FROM library WHERE item = OLD.item
            ORDER BY created_at DESC, rowid DESC LIMIT 1
        )) WHERE item = OLD.item;
    END;

    CREATE TRIGGER IF NOT EXISTS library_record_gone AFTER DELETE ON records BEGIN
        DELETE FROM library WHERE conversation_id = OLD.conversation_id
        AND origin = 'presented' AND ref = OLD.tool_call_id;
    END;

    CREATE TRIGGER IF NOT EXISTS library_import_gone
    AFTER DELETE ON imported_files BEGIN
        DELETE FROM library WHERE conversation_id = OLD.conversation_id
        AND origin = 'imported' AND ref = OLD.entry_id;
    END;

    CREATE TRIGGER IF NOT EXISTS library_change_gone AFTER DELETE ON changes
    WHEN OLD.origin = 'host' BEGIN
        DELETE FROM library WHERE conversation_id = OLD.conversation_id
        AND origin = 'changed' AND ref = OLD.tool_call_id AND entry = OLD.seq;
    END;

    CREATE TABLE IF NOT EXISTS library_pending (requested INTEGER NOT NULL) STRICT;
    DELETE FROM library_pending;
    INSERT INTO library_pending VALUES (1);
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
