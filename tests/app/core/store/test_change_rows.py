"""The change index in the store: beside its tool message, MAC'd, replayed, forked."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.store.change_rows import NewChange, insert_imported_changes
from app.core.store.database import DATABASE_NAME, Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path) as opened:
        yield opened


def human(text: str) -> dict[str, Any]:
    return {"type": "human", "data": {"content": text}}


def call(call_id: str) -> dict[str, Any]:
    return {
        "type": "ai",
        "data": {"content": "", "tool_calls": [{"id": call_id, "name": "write_file"}]},
    }


def result(call_id: str) -> dict[str, Any]:
    return {"type": "tool", "data": {"content": "Wrote", "tool_call_id": call_id}}


def edit_turn(store: Store, cid: str, call_id: str, *changes: NewChange) -> int:
    store.append_message(cid, human("go"))
    store.append_message(cid, call(call_id))
    return store.append_message(cid, result(call_id), changes=changes)


CHANGE = NewChange('{"version": 1, "path": "a.md"}', "old text\n")


def test_changes_are_stored_beside_their_tool_message_and_trusted(
    store: Store,
) -> None:
    cid = store.create_conversation("t", "/w").id
    second = NewChange('{"version": 1, "path": "b.md"}', None)
    position = edit_turn(store, cid, "c1", CHANGE, second)

    history = store.messages(cid)
    stored = history[position].changes
    assert [(c.seq, c.raw, c.trusted, c.origin) for c in stored] == [
        (0, CHANGE.raw, True, "host"),
        (1, second.raw, True, "host"),
    ]
    assert [c.has_before for c in stored] == [True, False]
    assert all(c.before is None for c in stored)  # the old text is loaded on demand
    assert [m.changes for m in history[:position]] == [(), ()]
    full = store.change(cid, position, 0)
    assert full is not None and full.trusted and full.before == "old text\n"


def test_a_change_needs_a_tool_message_and_fails_whole(store: Store) -> None:
    cid = store.create_conversation("t", "/w").id
    with pytest.raises(ValueError, match="tool message"):
        store.append_message(cid, human("x"), changes=[CHANGE])
    assert store.messages(cid) == []


@pytest.mark.parametrize(
    "tamper",
    [
        "UPDATE changes SET raw = replace(raw, 'a.md', '../../etc/passwd')",
        "UPDATE changes SET before = 'planted text'",
        "UPDATE changes SET tool_call_id = 'c2'",
        "UPDATE changes SET mac = 'garbage ✓'",
    ],
)
def test_a_change_edited_behind_the_store_is_untrusted(
    tmp_path: Path, tamper: str
) -> None:
    with Store(tmp_path) as store:
        cid = store.create_conversation("t", "/w").id
        position = edit_turn(store, cid, "c1", CHANGE)
        edit_turn(store, cid, "c2")
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        conn.execute(tamper)
    conn.close()
    with Store(tmp_path) as store:
        full = store.change(cid, position, 0)
        assert full is not None and not full.trusted
        if "before" not in tamper:
            assert not store.messages(cid)[position].changes[0].trusted


def test_a_change_moved_under_another_tool_message_is_untrusted(
    tmp_path: Path,
) -> None:
    with Store(tmp_path) as store:
        cid = store.create_conversation("t", "/w").id
        first = edit_turn(store, cid, "c1", CHANGE)
        second = edit_turn(store, cid, "c2")
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        conn.execute("UPDATE changes SET position = ?", (second,))
    conn.close()
    with Store(tmp_path) as store:
        history = store.messages(cid)
        assert history[first].changes == ()
        assert not history[second].changes[0].trusted


def test_imported_changes_are_never_trusted_and_never_carry_a_mac(
    store: Store, tmp_path: Path
) -> None:
    cid = store.create_conversation("t", "/w").id
    position = edit_turn(store, cid, "c1")
    with store.transaction(write=True) as conn:
        insert_imported_changes(conn, cid, [(position, 0, "c1", CHANGE)])
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO changes (conversation_id, position, seq, tool_call_id,"
                " origin, raw) VALUES (?, ?, 1, 'c1', 'host', '{}')",
                (cid, position),
            )
    [stored] = store.messages(cid)[position].changes
    assert (stored.origin, stored.trusted) == ("imported", False)
    full = store.change(cid, position, 0)
    assert full is not None and full.before == "old text\n" and not full.trusted


def test_forks_see_the_changes_of_their_shared_part_only(store: Store) -> None:
    cid = store.create_conversation("t", "/w").id
    shared = edit_turn(store, cid, "c1", CHANGE)
    fork = store.fork(cid, shared + 1)
    after = edit_turn(store, cid, "c2", NewChange('{"version": 1}', None))

    forked = store.messages(fork.id)
    assert [m.position for m in forked] == [0, 1, 2]
    assert forked[shared].changes[0].trusted
    assert store.change(fork.id, shared, 0) is not None
    assert store.change(fork.id, after, 0) is None
    assert store.change(cid, after, 0) is not None


def test_turn_messages_reads_one_turn_across_a_fork(store: Store) -> None:
    cid = store.create_conversation("t", "/w").id
    edit_turn(store, cid, "c1", CHANGE)
    fork = store.fork(cid, 2)
    store.append_message(fork.id, result("x"))
    store.append_message(fork.id, human("next"))
    store.append_message(cid, result("c1"))

    assert [m.position for m in store.turn_messages(fork.id, 0)] == [0, 1, 2]
    assert [m.conversation_id for m in store.turn_messages(fork.id, 0)] == [
        cid,
        cid,
        fork.id,
    ]
    assert [m.position for m in store.turn_messages(fork.id, 3)] == [3]
    assert [m.position for m in store.turn_messages(cid, 0)] == [0, 1, 2, 3]


def test_a_verification_is_macd_and_bound_to_its_entry(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        cid = store.create_conversation("t", "/w").id
        with store.transaction(write=True) as conn:
            conn.execute(
                "INSERT INTO imports (conversation_id, source, session_id,"
                " transcript, imported_at, complete, message_count, summary)"
                " VALUES (?, 'codex', 's', '/t', 'x', 1, 0, '{}')",
                (cid,),
            )
            for entry in ("e1", "e2"):
                conn.execute(
                    "INSERT INTO imported_files VALUES (?, ?, '{}')", (cid, entry)
                )
        store.save_verification(cid, "e1", '{"version": 1}', "unchanged")
        store.save_verification(cid, "e2", '{"version": 1}', "modified")
        found = store.verification(cid, "e1")
        assert found is not None and found.trusted and found.verdict == "unchanged"
        assert store.verification(cid, "e3") is None
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        conn.execute("UPDATE verifications SET verdict = 'unchanged'")
    conn.close()
    with Store(tmp_path) as store:
        assert store.verification(cid, "e1").trusted  # type: ignore[union-attr]
        assert not store.verification(cid, "e2").trusted  # type: ignore[union-attr]
