"""SQLite session store: conversations, forks, messages and their trusted records."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Self

from app.core.filetype.sizes import counted
from app.core.store.change_rows import (
    NewChange,
    StoredChange,
    change_with_text,
    changes_in,
    insert_host_changes,
)
from app.core.store.conversation_delete import Macs, delete_rows
from app.core.store.folder_approvals import load_approvals, save_approval
from app.core.store.library_rows import (
    complete_library_if_empty,
    index_changes,
    index_record,
)
from app.core.store.messages import tool_call_id as answered_call
from app.core.store.migrations import migrate
from app.core.store.verification_rows import (
    StoredVerification,
    load_verification,
    save_verification,
)
from app.core.trust.app_files import register_data_dir
from app.core.trust.safeio import SafeOpenError, open_verified

DATABASE_NAME: Final = "deliverables.sqlite3"
KEY_NAME: Final = "record.key"
KEY_SIZE: Final = 32

# FULL, not NORMAL: in WAL mode NORMAL is already safe against a killed process,
# but a power cut or OS crash may then drop the last commits. A record is the only
# proof of what the user was given, and commits happen about once per message, so
# the extra fsync per commit is cheap insurance.
SYNCHRONOUS: Final = "FULL"

# Domain separation, so a MAC made for a record cannot be mistaken for any other
# MAC made with the same key in a later schema or feature.
_MAC_CONTEXT: Final = b"deliverables.record.v1\0"
_CHANGE_MAC_CONTEXT: Final = b"deliverables.change.v1\0"
_VERIFIED_MAC_CONTEXT: Final = b"deliverables.verified.v1\0"
_APPROVAL_MAC_CONTEXT: Final = b"deliverables.approval.v1\0"


class StoreError(RuntimeError):
    """The store cannot be opened or used; the message says why."""


# What a store call raises when the database cannot answer (locked past the
# timeout, damaged, the disk full): a caller that goes on without the store
# catches these, and need not know that the store is SQLite.
STORE_FAILURES: Final = (StoreError, sqlite3.Error)


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation; a fork shares its parent's first ``fork_position`` messages."""

    id: str
    title: str
    workspace: str
    created_at: datetime
    parent_id: str | None
    fork_position: int | None


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """The host record of one tool call, exactly as it was stored."""

    tool_call_id: str
    raw: str
    trusted: bool


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One message of a conversation's full history.

    ``position`` is the index in that history; ``conversation_id`` is where the
    message is physically stored (a parent, for the shared part of a fork).
    """

    position: int
    conversation_id: str
    message: dict[str, Any]
    record: StoredRecord | None
    changes: tuple[StoredChange, ...] = ()


class Store:
    """The session store in ``data_dir``; safe to share between threads."""

    def __init__(self, data_dir: Path) -> None:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        # No agent tool may read or write the store or its key, wherever it is.
        register_data_dir(data_dir)
        self._key = _load_or_create_key(data_dir / KEY_NAME)
        database = data_dir / DATABASE_NAME
        # SQLite gives its -wal and -shm files the mode of the main file, so
        # creating it private first keeps the whole history private.
        os.close(os.open(database, os.O_RDWR | os.O_CREAT, 0o600))
        self._database = database
        # One connection behind a lock: the agent runner appends from a worker
        # thread, and serialising in Python keeps transactions from interleaving.
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = sqlite3.connect(
            database, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        try:
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            migrate(self._conn)
            # Anything stored already is listed by Library.prepare, off the
            # window's thread: it can take seconds.
            complete_library_if_empty(self._conn)
        except BaseException:
            self.close()
            raise

    def connect_apart(self) -> sqlite3.Connection:
        """A connection of its own, for long work that must not hold the store's
        lock (WAL lets readers go on; SQLite still allows one writer)."""
        if self._conn is None:
            raise StoreError("The session store is closed.")
        return sqlite3.connect(self._database, timeout=10.0, isolation_level=None)

    def close(self) -> None:
        """Close the database; later calls raise ``StoreError``."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def create_conversation(self, title: str, workspace: str) -> Conversation:
        """Create an empty conversation working in ``workspace``."""
        conversation = Conversation(
            id=uuid.uuid4().hex,
            title=title,
            workspace=workspace,
            created_at=datetime.now(UTC),
            parent_id=None,
            fork_position=None,
        )
        with self._write() as conn:
            _insert_conversation(conn, conversation)
        return conversation

    def conversations(self) -> list[Conversation]:
        """All conversations, oldest first."""
        with self._read() as conn:
            rows = conn.execute(
                _SELECT_CONVERSATION + " ORDER BY created_at, rowid"
            ).fetchall()
        return [_conversation_from_row(row) for row in rows]

    def last_activity(self) -> dict[str, datetime]:
        """When each conversation with messages last got one, by its id."""
        # One primary-key seek per conversation to its last position: the
        # list is refreshed on the GUI thread, and a walk over every message
        # cost 22 ms at 100,000 messages (this, 6 ms).
        with self._read() as conn:
            rows = conn.execute(
                "SELECT c.id, (SELECT m.created_at FROM messages AS m"
                " WHERE m.conversation_id = c.id ORDER BY m.position DESC LIMIT 1)"
                " FROM conversations AS c"
            ).fetchall()
        return {id_: datetime.fromisoformat(at) for id_, at in rows if at is not None}

    def conversation(self, id: str) -> Conversation:
        """The conversation ``id``; ``KeyError`` if there is none."""
        with self._read() as conn:
            return _get_conversation(conn, id)

    def rename_conversation(self, id: str, title: str) -> None:
        """Give conversation ``id`` a new title."""
        with self._write() as conn:
            cursor = conn.execute(
                "UPDATE conversations SET title = ? WHERE id = ?", (title, id)
            )
            if cursor.rowcount == 0:
                raise KeyError(id)

    def delete_conversation(self, id: str) -> None:
        """Delete a conversation with its messages, records and file changes.

        Its forks keep their whole history (``app.core.store.conversation_delete``).
        """
        macs = Macs(
            record=self._mac,
            record_trusted=lambda cid, call, raw, mac: (
                self._stored_record(cid, call, raw, mac).trusted
            ),
            change=self._change_mac,
        )
        with self._write() as conn:
            delete_rows(conn, id, macs)

    def fork(
        self, conversation_id: str, at_position: int, title: str | None = None
    ) -> Conversation:
        """A new conversation sharing the first ``at_position`` history messages."""
        with self._write() as conn:
            parent = _get_conversation(conn, conversation_id)
            length = _next_position(conn, parent)
            if not 0 < at_position <= length:
                raise ValueError(
                    f"Cannot fork at message {at_position}: the conversation has "
                    f"{counted(length, 'message')}, and a fork needs at least one "
                    "of them."
                )
            child = Conversation(
                id=uuid.uuid4().hex,
                title=parent.title if title is None else title,
                workspace=parent.workspace,
                created_at=datetime.now(UTC),
                parent_id=parent.id,
                fork_position=at_position,
            )
            _insert_conversation(conn, child)
        return child

    def append_message(
        self,
        conversation_id: str,
        message: dict[str, Any],
        record: str | None = None,
        tool_call_id: str | None = None,
        changes: Sequence[NewChange] = (),
    ) -> int:
        """Append ``message`` (its ``record`` and ``changes``, atomically).

        Returns its position. File changes are host metadata like records:
        MAC'd, and stored only beside the tool message of the edit.
        """
        item = (message, record, tool_call_id)
        return self.append_messages(conversation_id, [item], changes={0: changes})[0]

    def append_messages(
        self,
        conversation_id: str,
        items: Sequence[tuple[dict[str, Any], str | None, str | None]],
        *,
        changes: Mapping[int, Sequence[NewChange]] | None = None,
    ) -> list[int]:
        """Append (message, record, tool_call_id) items in one transaction.

        Another process reading the store sees all of them or none: a turn
        written from outside never shows half done. ``changes`` maps an item's
        index to the file changes stored beside it. Returns their positions.
        """
        texts: list[str] = []
        calls: list[str | None] = []
        for index, (message, record, tool_call_id) in enumerate(items):
            has_changes = bool(changes and changes.get(index))
            call = answered_call(message)
            if has_changes and call is None:
                raise ValueError("File changes are stored beside a tool message.")
            if (record is None) != (tool_call_id is None):
                raise ValueError("A record and its tool_call_id are stored together.")
            if tool_call_id is not None and call != tool_call_id:
                raise ValueError(
                    f"A record for tool call {tool_call_id!r} must be stored beside "
                    "the tool message answering that call."
                )
            calls.append(call if has_changes else None)
            # Serialise before the transaction: an unserialisable message fails
            # without touching the database. allow_nan=False keeps it strict JSON.
            texts.append(json.dumps(message, ensure_ascii=False, allow_nan=False))
        positions: list[int] = []
        with self._write() as conn:
            conversation = _get_conversation(conn, conversation_id)
            for index, ((_message, record, tool_call_id), text) in enumerate(
                zip(items, texts, strict=True)
            ):
                position = self._insert(conn, conversation, text, record, tool_call_id)
                change_call = calls[index]
                if change_call is not None and changes is not None:
                    insert_host_changes(
                        conn,
                        self._change_mac,
                        conversation.id,
                        position,
                        change_call,
                        changes[index],
                    )
                    index_changes(
                        conn,
                        conversation.id,
                        position,
                        change_call,
                        [(seq, c.raw) for seq, c in enumerate(changes[index])],
                    )
                positions.append(position)
        return positions

    def _insert(
        self,
        conn: sqlite3.Connection,
        conversation: Conversation,
        text: str,
        record: str | None,
        tool_call_id: str | None,
    ) -> int:
        position = _next_position(conn, conversation)
        if (
            tool_call_id is not None
            and _find_record(conn, conversation, tool_call_id) is not None
        ):
            # The UNIQUE constraint sees one conversation only; this also
            # covers the history a fork inherits.
            raise ValueError(
                f"Tool call {tool_call_id!r} already has a record in this conversation."
            )
        stamp = _iso(datetime.now(UTC))
        conn.execute(
            "INSERT INTO messages (conversation_id, position, message, created_at)"
            " VALUES (?, ?, ?, ?)",
            (conversation.id, position, text, stamp),
        )
        if record is not None and tool_call_id is not None:
            mac = self._mac(conversation.id, tool_call_id, record)
            conn.execute(
                "INSERT INTO records"
                " (conversation_id, position, tool_call_id, raw, mac)"
                " VALUES (?, ?, ?, ?, ?)",
                (conversation.id, position, tool_call_id, record, mac),
            )
            index_record(conn, conversation.id, position, tool_call_id, record, stamp)
        return position

    def messages(
        self, conversation_id: str, start: int = 0, stop: int | None = None
    ) -> list[StoredMessage]:
        """The full history of a conversation, a fork's inherited part first.

        ``start`` and ``stop`` limit it to the positions in ``[start, stop)``, so
        a view that has the earlier messages already reads only what was added.
        """
        with self._read() as conn:
            conversation = _get_conversation(conn, conversation_id)
            history: list[StoredMessage] = []
            for cid, bound in _lineage(conn, conversation):
                upper = min(_bound(bound), _bound(stop))
                rows = conn.execute(
                    "SELECT m.position, m.message, r.tool_call_id, r.raw, r.mac"
                    " FROM messages AS m LEFT JOIN records AS r"
                    " ON r.conversation_id = m.conversation_id"
                    " AND r.position = m.position"
                    " WHERE m.conversation_id = ? AND m.position >= ?"
                    " AND m.position < ? ORDER BY m.position",
                    (cid, start, upper),
                ).fetchall()
                level: list[tuple[int, dict[str, Any], StoredRecord | None]] = []
                for position, text, tool_call_id, raw, mac in rows:
                    stored = (
                        None
                        if tool_call_id is None
                        else self._stored_record(cid, tool_call_id, raw, mac)
                    )
                    level.append((position, json.loads(text), stored))
                calls = {p: answered_call(m) for p, m, _ in level}
                changes = changes_in(conn, self._change_mac, cid, start, upper, calls)
                history.extend(
                    StoredMessage(p, cid, m, r, changes.get(p, ())) for p, m, r in level
                )
        return history

    def turn_messages(self, conversation_id: str, start: int) -> list[StoredMessage]:
        """The messages of the turn starting at ``start``, up to the next user one."""
        with self._read() as conn:
            conversation = _get_conversation(conn, conversation_id)
            stop: int | None = None
            for cid, bound in _lineage(conn, conversation):
                # In position order with LIMIT 1, so the scan stops at the
                # next user message instead of parsing the rest of the history.
                row = conn.execute(
                    "SELECT position FROM messages WHERE conversation_id = ?"
                    " AND position > ? AND position < ?"
                    " AND json_extract(message, '$.type') = 'human'"
                    " ORDER BY position LIMIT 1",
                    (cid, start, _bound(bound)),
                ).fetchone()
                if row is not None:
                    stop = row[0] if stop is None else min(stop, row[0])
        return self.messages(conversation_id, start, stop)

    def change(
        self, conversation_id: str, position: int, seq: int
    ) -> StoredChange | None:
        """One change of this history with the text before it, judged again."""
        with self._read() as conn:
            conversation = _get_conversation(conn, conversation_id)
            for cid, bound in _lineage(conn, conversation):
                if position < _bound(bound):
                    found = change_with_text(conn, self._change_mac, cid, position, seq)
                    if found is not None:
                        return found
        return None

    def save_verification(
        self, conversation_id: str, entry_id: str, raw: str, verdict: str
    ) -> None:
        """Store (or replace) the record Verify made for an imported entry."""
        with self._write() as conn:
            save_verification(
                conn, self._verified_mac, conversation_id, entry_id, raw, verdict
            )

    def verification(
        self, conversation_id: str, entry_id: str
    ) -> StoredVerification | None:
        """What Verify stored for ``entry_id`` of this conversation, if anything."""
        with self._read() as conn:
            return load_verification(
                conn, self._verified_mac, conversation_id, entry_id
            )

    def approve_folder(self, client: str, folder: str) -> None:
        """Let the MCP client the user calls ``client`` work in ``folder``.

        ``folder`` must be a plain absolute path (``ValueError`` otherwise).
        """
        with self._write() as conn:
            save_approval(conn, self._approval_mac, client, folder)

    def approved_folders(self, client: str) -> list[str]:
        """The folders the user approved for ``client``, as the app stored them."""
        with self._read() as conn:
            return load_approvals(conn, self._approval_mac, client)

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """A transaction for the store's companion modules (imports).

        They store untrusted data only: no MAC is ever made through this.
        """
        with self._write() if write else self._read() as conn:
            yield conn

    def record(self, conversation_id: str, tool_call_id: str) -> StoredRecord | None:
        """The record of ``tool_call_id`` if its message is in this history."""
        with self._read() as conn:
            conversation = _get_conversation(conn, conversation_id)
            found = _find_record(conn, conversation, tool_call_id)
        if found is None:
            return None
        cid, raw, mac = found
        return self._stored_record(cid, tool_call_id, raw, mac)

    def _mac(self, conversation_id: str, tool_call_id: str, raw: str) -> str:
        # Binding the MAC to where the record sits stops a trusted record from
        # being copied behind the store's back into another conversation or call.
        return self._mac_of(_MAC_CONTEXT, conversation_id, tool_call_id, raw)

    def _change_mac(
        self, cid: str, tool_call_id: str, seq: int, raw: str, digest: str | None
    ) -> str:
        # The digest binds the text before the edit without loading that text.
        parts = (cid, tool_call_id, str(seq), raw, digest or "")
        return self._mac_of(_CHANGE_MAC_CONTEXT, *parts)

    def _verified_mac(self, cid: str, entry_id: str, raw: str, verdict: str) -> str:
        return self._mac_of(_VERIFIED_MAC_CONTEXT, cid, entry_id, raw, verdict)

    def _approval_mac(self, client: str, folder: str) -> str:
        return self._mac_of(_APPROVAL_MAC_CONTEXT, client, folder)

    def _mac_of(self, context: bytes, *parts: str) -> str:
        mac = hmac.new(self._key, context, hashlib.sha256)
        for part in parts:
            data = part.encode("utf-8")
            mac.update(len(data).to_bytes(8, "big"))
            mac.update(data)
        return mac.hexdigest()

    def _stored_record(
        self, conversation_id: str, tool_call_id: str, raw: str, mac: str
    ) -> StoredRecord:
        expected = self._mac(conversation_id, tool_call_id, raw).encode("ascii")
        # Compare bytes: compare_digest refuses non-ASCII str, and an edited mac
        # column may hold anything.
        trusted = hmac.compare_digest(expected, mac.encode("utf-8", "replace"))
        return StoredRecord(tool_call_id=tool_call_id, raw=raw, trusted=trusted)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("The session store is closed.")
        return self._conn

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        # A read transaction gives one consistent snapshot across the several
        # queries a fork replay needs.
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        # IMMEDIATE takes the write lock up front, so a second process waits at
        # BEGIN instead of failing halfway through with SQLITE_BUSY.
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise


_SELECT_CONVERSATION: Final = (
    "SELECT id, title, workspace, created_at, parent_id, fork_position"
    " FROM conversations"
)


def _iso(moment: datetime) -> str:
    # Fixed width with microseconds, so text order is time order in ORDER BY.
    return moment.isoformat(timespec="microseconds")


def _bound(bound: int | None) -> int:
    # SQLite integers are 64-bit, so this bound excludes nothing.
    return 2**63 - 1 if bound is None else bound


def _insert_conversation(conn: sqlite3.Connection, c: Conversation) -> None:
    conn.execute(
        "INSERT INTO conversations"
        " (id, title, workspace, created_at, parent_id, fork_position)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (c.id, c.title, c.workspace, _iso(c.created_at), c.parent_id, c.fork_position),
    )


def _conversation_from_row(row: tuple[Any, ...]) -> Conversation:
    id_, title, workspace, created_at, parent_id, fork_position = row
    created = datetime.fromisoformat(created_at)
    return Conversation(id_, title, workspace, created, parent_id, fork_position)


def _get_conversation(conn: sqlite3.Connection, id_: str) -> Conversation:
    row = conn.execute(_SELECT_CONVERSATION + " WHERE id = ?", (id_,)).fetchone()
    if row is None:
        raise KeyError(id_)
    return _conversation_from_row(row)


def _lineage(
    conn: sqlite3.Connection, conversation: Conversation
) -> list[tuple[str, int | None]]:
    """Where a history is stored: (conversation id, exclusive bound), root first.

    An ancestor's bound is the smallest fork position below it: a fork taken early
    in a fork sees none of the messages its parent added.
    """
    levels: list[tuple[str, int | None]] = [(conversation.id, None)]
    bound = conversation.fork_position
    current = conversation
    while current.parent_id is not None:
        current = _get_conversation(conn, current.parent_id)
        levels.append((current.id, bound))
        if current.fork_position is not None:
            assert bound is not None
            bound = min(bound, current.fork_position)
    levels.reverse()
    return levels


def _next_position(conn: sqlite3.Connection, conversation: Conversation) -> int:
    """The length of the conversation's full history."""
    last = conn.execute(
        "SELECT max(position) FROM messages WHERE conversation_id = ?",
        (conversation.id,),
    ).fetchone()[0]
    if last is None:
        return conversation.fork_position or 0
    assert isinstance(last, int)
    return last + 1


def _find_record(
    conn: sqlite3.Connection, conversation: Conversation, tool_call_id: str
) -> tuple[str, str, str] | None:
    """(stored conversation id, raw, mac) of a record visible in this history."""
    for cid, bound in _lineage(conn, conversation):
        row = conn.execute(
            "SELECT raw, mac FROM records"
            " WHERE conversation_id = ? AND tool_call_id = ? AND position < ?",
            (cid, tool_call_id, _bound(bound)),
        ).fetchone()
        if row is not None:
            return cid, row[0], row[1]
    return None


def _load_or_create_key(path: Path) -> bytes:
    """Read the record key, creating it on first use; never expose a partial key."""
    with suppress(FileNotFoundError):
        return _read_key(path)
    # Write the key under a private temporary name, then link it into place:
    # link fails if another process won the race, and a crash mid-write leaves
    # only a stray temporary file, never a short key that would brick the store.
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(secrets.token_bytes(KEY_SIZE))
            file.flush()
            os.fsync(file.fileno())
        with suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return _read_key(path)


_NEW_KEY_ADVICE: Final = (
    "start with a new key (existing records will show as untrusted)"
)


def _read_key(path: Path) -> bytes:
    """The key in ``path``; ``FileNotFoundError`` if there is none yet."""
    # The safe open refuses a symlink planted in place of the key (it must not
    # choose the key) and anything not a regular file, and a FIFO planted there
    # comes back at once instead of waiting for a writer.
    try:
        opened = open_verified(str(path))
    except SafeOpenError as error:
        if isinstance(error.__cause__, FileNotFoundError):
            raise error.__cause__ from None
        raise StoreError(_key_refusal(path, error)) from error
    with opened:
        try:
            key = opened.read(KEY_SIZE + 1)
        except OSError as error:
            raise StoreError(
                f"The record key {path} cannot be read ({error.strerror or error}). "
                f"Check the file and its disk, or move it away to {_NEW_KEY_ADVICE}."
            ) from error
    if len(key) != KEY_SIZE:
        raise StoreError(
            f"The record key {path} is damaged ({counted(len(key), 'byte')}, expected "
            f"{KEY_SIZE}). Records can no longer be verified; move the file away "
            "to start with a new key (existing records will show as untrusted)."
        )
    return key


_NOT_REGULAR_WORDS: Final = {
    "directory": "a folder",
    "not_regular": "a named pipe, socket or device",
}


def _key_refusal(path: Path, error: SafeOpenError) -> str:
    """What is wrong with the key file, from the safe open's refusal, and what to do."""
    if error.reason == "symlink":
        return (
            f"The record key {path} is a symbolic link; the key is only read from "
            "a regular file, so a link in its place is not followed. Put the real "
            f"key file back there, or delete the link to {_NEW_KEY_ADVICE}."
        )
    kind = _NOT_REGULAR_WORDS.get(error.reason)
    if kind is not None:
        return (
            f"The record key {path} is {kind}, not a regular file, so records "
            f"cannot be verified. Move it away to {_NEW_KEY_ADVICE}."
        )
    if isinstance(error.__cause__, PermissionError):
        return (
            f"The record key {path} cannot be read: permission denied. Give your "
            f"user permission to read it, or move it away to {_NEW_KEY_ADVICE}."
        )
    return (
        f"The record key {path} cannot be opened ({error}). Check the file and "
        f"its disk, or move it away to {_NEW_KEY_ADVICE}."
    )
