"""The library: every deliverable of every conversation, read from its index.

What it lists is where to look, never permission: opening an item reads its
record (or imported entry) again and checks it as its card does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from app.core.store.database import Store
from app.core.store.library_rows import (
    CHANGED,
    IMPORTED,
    PRESENTED,
    UNCHECKED,
    complete_library,
)

__all__ = [
    "CHANGED",
    "IMPORTED",
    "PRESENTED",
    "UNCHECKED",
    "Library",
    "LibraryFilter",
    "LibraryItem",
    "LibraryKey",
]

# A page of the list: more rows than a window shows, few enough to read fast.
PAGE: Final = 500
STATES: Final = (UNCHECKED, "unchanged", "modified", "missing", "refused")


@dataclass(frozen=True, slots=True)
class LibraryKey:
    """One row of the index: a file of a record, an imported entry, or a file a
    turn changed without presenting it."""

    conversation_id: str
    origin: str  # PRESENTED, IMPORTED or CHANGED
    ref: str  # the tool call id of the record or change, or the imported entry's id
    entry: int  # the file's index in its record, the change's seq, or 0


@dataclass(frozen=True, slots=True)
class LibraryItem:
    """A deliverable as the index lists it: shown, never trusted."""

    key: LibraryKey
    position: int
    item: str
    name: str
    folder: str
    description: str
    kind: str
    agent: str
    workspace: str
    created_at: datetime
    state: str
    conversation_title: str
    versions: int

    @property
    def imported(self) -> bool:
        return self.key.origin == IMPORTED

    @property
    def changed(self) -> bool:
        """Changed by a turn, never presented: ``position`` is the turn's start."""
        return self.key.origin == CHANGED


@dataclass(frozen=True)
class LibraryFilter:
    """What to list; an empty set means any, ``text`` searches name and description."""

    kinds: frozenset[str] = field(default_factory=frozenset)
    agents: frozenset[str] = field(default_factory=frozenset)
    workspaces: frozenset[str] = field(default_factory=frozenset)
    states: frozenset[str] = field(default_factory=frozenset)
    since: datetime | None = None
    until: datetime | None = None
    text: str = ""


@dataclass(frozen=True)
class Choices:
    """The values the filters can take, from what the index holds."""

    kinds: tuple[str, ...]
    agents: tuple[str, ...]
    workspaces: tuple[str, ...]


_COLUMNS: Final = (
    "l.conversation_id, l.origin, l.ref, l.entry, l.position, l.item, l.name,"
    " l.folder, l.description, l.kind, l.agent, l.workspace, l.created_at,"
    " l.state, c.title"
)
_SELECT: Final = (
    f"SELECT {_COLUMNS},"  # noqa: S608 (constant text only)
    " (SELECT count(*) FROM library AS v WHERE v.item = l.item)"
    " FROM library AS l JOIN conversations AS c ON c.id = l.conversation_id"
)


class Library:
    """The library index kept in a ``Store``; reads are one indexed query each."""

    def __init__(self, store: Store) -> None:
        self._store = store
        # Only a migration asks for a fill, and migrations run when the store
        # opens: once filled, the index stays so for this store's life.
        self._filled = False

    def pending(self) -> bool:
        """Whether the index still waits to be filled for data stored before it."""
        if self._filled:
            return False
        with self._store.transaction(write=False) as conn:
            waiting = conn.execute("SELECT 1 FROM library_pending").fetchone()
        self._filled = waiting is None
        return not self._filled

    def prepare(self) -> None:
        """Fill the index for data stored before it, if a migration asked.

        Seconds on a large history (about 6 s for 100,000 deliverables), so on
        a connection of its own: the store's other readers are not held up.
        """
        if not self.pending():
            return
        conn = self._store.connect_apart()
        try:
            complete_library(conn)
        finally:
            conn.close()
        self._filled = True

    def items(self, wanted: LibraryFilter, limit: int = PAGE) -> list[LibraryItem]:
        """Items matching ``wanted``, newest first: each file once, as its newest."""
        self.prepare()
        where, args = _conditions(wanted)
        query = (
            f"{_SELECT} WHERE l.latest = 1{where}"
            " ORDER BY l.latest DESC, l.created_at DESC, l.entry LIMIT ?"
        )
        with self._store.transaction(write=False) as conn:
            rows = conn.execute(query, (*args, limit)).fetchall()
        return [_item(row) for row in rows]

    def versions(self, item: str) -> list[LibraryItem]:
        """Every version of the file ``item`` names, newest first."""
        self.prepare()
        with self._store.transaction(write=False) as conn:
            rows = conn.execute(
                f"{_SELECT} WHERE l.item = ? ORDER BY l.created_at DESC, l.rowid DESC",
                (item,),
            ).fetchall()
        return [_item(row) for row in rows]

    def conversation_items(self, conversation_id: str) -> list[LibraryItem]:
        """Every deliverable stored in one conversation, oldest first."""
        self.prepare()
        with self._store.transaction(write=False) as conn:
            rows = conn.execute(
                f"{_SELECT} WHERE l.conversation_id = ? ORDER BY l.created_at, l.rowid",
                (conversation_id,),
            ).fetchall()
        return [_item(row) for row in rows]

    def choices(self) -> Choices:
        """The kinds, agents and workspaces listed, for the filter controls."""
        self.prepare()
        with self._store.transaction(write=False) as conn:
            found = [
                tuple(value for (value,) in conn.execute(_distinct(column)))
                for column in ("kind", "agent", "workspace")
            ]
        return Choices(*found)

    def set_states(self, states: Iterable[tuple[LibraryKey, str]]) -> None:
        """Remember what a background check found (metadata only) for each key."""
        rows = [
            (state, k.conversation_id, k.origin, k.ref, k.entry)
            for k, state in states
            if state in STATES
        ]
        with self._store.transaction(write=True) as conn:
            conn.executemany(
                "UPDATE library SET state = ? WHERE conversation_id = ?"
                " AND origin = ? AND ref = ? AND entry = ?",
                rows,
            )


def _distinct(column: str) -> str:
    """The distinct values of an indexed column, one index seek each.

    A plain DISTINCT reads every row; stepping from each value to the next
    larger one reads as many index entries as there are values.
    """
    return (
        f"WITH RECURSIVE found (value) AS (SELECT min({column}) FROM library"  # noqa: S608
        f" UNION ALL SELECT (SELECT min({column}) FROM library"
        f" WHERE {column} > found.value) FROM found WHERE found.value IS NOT NULL)"
        " SELECT value FROM found WHERE value IS NOT NULL"
    )


def _conditions(wanted: LibraryFilter) -> tuple[str, list[Any]]:
    where: list[str] = []
    args: list[Any] = []
    for column, values in (
        ("kind", wanted.kinds),
        ("agent", wanted.agents),
        ("workspace", wanted.workspaces),
        ("state", wanted.states),
    ):
        if values:
            where.append(f"l.{column} IN ({', '.join('?' * len(values))})")
            args.extend(sorted(values))
    if wanted.since is not None:
        where.append("l.created_at >= ?")
        args.append(_utc(wanted.since))
    if wanted.until is not None:
        where.append("l.created_at < ?")
        args.append(_utc(wanted.until))
    text = wanted.text.strip()
    if text:
        pattern = f"%{_escaped(text)}%"
        where.append("(l.name LIKE ? ESCAPE '\\' OR l.description LIKE ? ESCAPE '\\')")
        args.extend((pattern, pattern))
    return "".join(f" AND {w}" for w in where), args


def _utc(moment: datetime) -> str:
    # Stored times are UTC in a fixed width, so text order is time order.
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _item(row: Sequence[Any]) -> LibraryItem:
    (cid, origin, ref, entry, position, item, name, folder, description, kind) = row[
        :10
    ]
    agent, workspace, created_at, state, title, versions = row[10:]
    return LibraryItem(
        LibraryKey(cid, origin, ref, entry),
        position,
        item,
        name,
        folder,
        description,
        kind,
        agent,
        workspace,
        datetime.fromisoformat(created_at),
        state,
        title,
        versions,
    )
