"""Deleting a conversation: its rows go, and its forks keep their whole history."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from app.core.store.change_rows import NewChange
from app.core.store.database import DATABASE_NAME, Store


def human(text: str) -> dict[str, Any]:
    return {"type": "human", "data": {"content": text, "type": "human"}}


def ai_call(call_id: str) -> dict[str, Any]:
    call = {"name": "present", "args": {"files": []}, "id": call_id}
    return {"type": "ai", "data": {"content": "", "type": "ai", "tool_calls": [call]}}


def tool(call_id: str) -> dict[str, Any]:
    return {
        "type": "tool",
        "data": {"content": "Presented.", "type": "tool", "tool_call_id": call_id},
    }


def turn(store: Store, cid: str, call_id: str, *changes: NewChange) -> None:
    store.append_message(cid, human(f"please {call_id}"))
    store.append_message(cid, ai_call(call_id))
    raw = json.dumps({"version": 1, "files": [{"path": f"{call_id}.md"}]})
    store.append_message(
        cid, tool(call_id), record=raw, tool_call_id=call_id, changes=changes
    )


def history(store: Store, cid: str) -> list[tuple[dict[str, Any], bool | None]]:
    return [
        (m.message, None if m.record is None else m.record.trusted)
        for m in store.messages(cid)
    ]


def rows(path: Path, table: str) -> int:
    with sqlite3.connect(path / DATABASE_NAME) as conn:
        count = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    conn.close()
    return int(count)


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with Store(tmp_path) as opened:
        yield opened


def test_deleting_removes_the_conversation_its_messages_and_records(
    store: Store, tmp_path: Path
) -> None:
    keep = store.create_conversation("keep", "/w").id
    gone = store.create_conversation("gone", "/w").id
    turn(store, keep, "k1")
    turn(store, gone, "g1", NewChange('{"version": 1, "path": "a.md"}', "old\n"))

    store.delete_conversation(gone)

    assert [c.id for c in store.conversations()] == [keep]
    with pytest.raises(KeyError):
        store.messages(gone)
    assert store.record(keep, "k1") is not None
    assert rows(tmp_path, "records") == 1
    assert rows(tmp_path, "changes") == 0
    assert rows(tmp_path, "messages") == 3


def test_deleting_an_unknown_conversation_raises_key_error(store: Store) -> None:
    with pytest.raises(KeyError):
        store.delete_conversation("nope")


def test_a_fork_keeps_its_whole_history_when_its_parent_is_deleted(
    store: Store,
) -> None:
    parent = store.create_conversation("parent", "/w").id
    turn(store, parent, "p1", NewChange('{"version": 1, "path": "a.md"}', "old\n"))
    turn(store, parent, "p2")
    fork = store.fork(parent, 3).id
    turn(store, fork, "f1")
    before = history(store, fork)

    store.delete_conversation(parent)

    assert history(store, fork) == before
    assert all(trusted in (None, True) for _, trusted in before)
    lone = store.conversation(fork)
    assert (lone.parent_id, lone.fork_position) == (None, None)
    changes = [c for m in store.messages(fork) for c in m.changes]
    assert [c.trusted for c in changes] == [True]
    # The fork is a conversation of its own now: it can go on.
    turn(store, fork, "f2")
    assert store.record(fork, "p1") is not None


def test_deleting_the_middle_of_a_fork_chain_keeps_both_ends(store: Store) -> None:
    root = store.create_conversation("root", "/w").id
    turn(store, root, "r1")
    middle = store.fork(root, 3).id
    turn(store, middle, "m1")
    leaf = store.fork(middle, 6).id
    turn(store, leaf, "l1")
    early = store.fork(middle, 2).id  # taken inside what middle inherits
    before = {cid: history(store, cid) for cid in (root, leaf, early)}

    store.delete_conversation(middle)

    assert {cid: history(store, cid) for cid in (root, leaf, early)} == before
    assert store.conversation(leaf).parent_id == root
    assert store.conversation(leaf).fork_position == 3
    assert store.conversation(early).fork_position == 2


def test_an_untrusted_record_stays_untrusted_in_the_fork(
    store: Store, tmp_path: Path
) -> None:
    parent = store.create_conversation("parent", "/w").id
    turn(store, parent, "p1")
    fork = store.fork(parent, 3).id
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        conn.execute('UPDATE records SET raw = \'{"version": 1, "files": []}\'')
    conn.close()
    assert store.record(fork, "p1").trusted is False  # type: ignore[union-attr]

    store.delete_conversation(parent)

    kept = store.record(fork, "p1")
    assert kept is not None
    assert kept.trusted is False


def test_a_grandchild_keeps_its_history_when_the_root_is_deleted(
    store: Store,
) -> None:
    root = store.create_conversation("root", "/w").id
    turn(store, root, "r1")
    child = store.fork(root, 3).id
    turn(store, child, "c1")
    grandchild = store.fork(child, 6).id
    before = history(store, grandchild)

    store.delete_conversation(root)

    assert history(store, grandchild) == before
    assert store.conversation(child).parent_id is None
