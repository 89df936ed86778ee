"""Trusted records edited in the database behind the store's back must lose trust."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.store.database import DATABASE_NAME, Store
from app.core.store.deliverables import DeliverableRef, check_deliverable, look_up
from app.core.trust.declare import declare
from app.core.trust.policy import PermissionMode, Policy, builtin_rules
from app.core.trust.revalidate import Verdict

FILES = ("report.md", "data.csv")


@pytest.fixture
def policy(tmp_path: Path) -> Policy:
    return Policy(builtin_rules(), home=str(tmp_path / "home"))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "report.md").write_text("# report\n")
    (root / "data.csv").write_text("a,b\n1,2\n")
    return root


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def store(data_dir: Path) -> Iterator[Store]:
    with Store(data_dir) as opened:
        yield opened


def _tool_message(call_id: str) -> dict[str, Any]:
    data = {"content": "Presented.", "tool_call_id": call_id, "type": "tool"}
    return {"type": "tool", "data": {**data, "name": "present", "status": "success"}}


def _present(
    store: Store, conversation_id: str, workspace: Path, policy: Policy, call_id: str
) -> None:
    """One turn in which the host declared both workspace files under ``call_id``."""
    record = declare(
        {"files": [{"path": name, "description": name} for name in FILES]},
        workspace=workspace,
        mode=PermissionMode.ALLOW_EXTERNAL,
        policy=policy,
    )
    call = {"id": call_id, "name": "present", "args": {}}
    store.append_message(conversation_id, {"type": "human", "data": {"content": "go"}})
    store.append_message(
        conversation_id, {"type": "ai", "data": {"content": "", "tool_calls": [call]}}
    )
    store.append_message(
        conversation_id,
        _tool_message(call_id),
        record=record.to_json(),
        tool_call_id=call_id,
    )


def _assert_every_action_allowed(
    store: Store, conversation_id: str, call_id: str, policy: Policy
) -> None:
    # The control: the same record in its own place passes every check, so a
    # refusal below comes from the tampering, not from the files.
    for index in range(len(FILES)):
        ref = DeliverableRef(conversation_id, call_id, index)
        check, _entry, _opened = check_deliverable(store, ref, policy)
        assert check.verdict is Verdict.OK


def _assert_every_action_refused(
    store: Store, conversation_id: str, call_id: str, policy: Policy
) -> None:
    """Every action's check, in every mode, answers untrusted and opens nothing."""
    for index in range(len(FILES)):
        ref = DeliverableRef(conversation_id, call_id, index)
        assert not look_up(store, ref).trusted
        for keep_open in (False, True):
            for mode in (None, *PermissionMode):
                check, _entry, opened = check_deliverable(
                    store, ref, policy, mode=mode, keep_open=keep_open
                )
                assert check.verdict is Verdict.UNTRUSTED
                assert not check.allowed
                assert opened is None


def _database(data_dir: Path) -> sqlite3.Connection:
    """The database as an attacker with write access to it sees it."""
    return sqlite3.connect(data_dir / DATABASE_NAME, isolation_level=None)


@pytest.mark.parametrize("target", ["another conversation", "a fork of it"])
def test_a_record_replayed_into_another_conversation_is_untrusted_there(
    store: Store, data_dir: Path, workspace: Path, policy: Policy, target: str
) -> None:
    source = store.create_conversation("a", str(workspace))
    _present(store, source.id, workspace, policy, "call_1")
    if target == "a fork of it":
        # Forked before the declaration: the fork does not inherit the record.
        other = store.fork(source.id, 1)
    else:
        other = store.create_conversation("b", str(workspace))
        store.append_message(other.id, {"type": "human", "data": {"content": "hi"}})
    _assert_every_action_allowed(store, source.id, "call_1", policy)
    assert store.record(other.id, "call_1") is None
    start = len(store.messages(other.id))
    conn = _database(data_dir)
    try:
        rows = conn.execute(
            "SELECT position, message, created_at FROM messages"
            " WHERE conversation_id = ? AND position >= 1 ORDER BY position",
            (source.id,),
        ).fetchall()
        for offset, (_position, message, created_at) in enumerate(rows):
            conn.execute(
                "INSERT INTO messages VALUES (?, ?, ?, ?)",
                (other.id, start + offset, message, created_at),
            )
        raw, mac = conn.execute(
            "SELECT raw, mac FROM records WHERE conversation_id = ?", (source.id,)
        ).fetchone()
        conn.execute(
            "INSERT INTO records (conversation_id, position, tool_call_id, raw, mac)"
            " VALUES (?, ?, 'call_1', ?, ?)",
            (other.id, start + len(rows) - 1, raw, mac),
        )
    finally:
        conn.close()
    replayed = store.record(other.id, "call_1")
    assert replayed is not None
    assert replayed.raw == raw  # the row really is there, byte for byte
    assert not replayed.trusted
    assert [m.record.trusted for m in store.messages(other.id) if m.record] == [False]
    _assert_every_action_refused(store, other.id, "call_1", policy)
    _assert_every_action_allowed(store, source.id, "call_1", policy)


def test_a_record_moved_to_another_tool_call_id_is_untrusted(
    store: Store, data_dir: Path, workspace: Path, policy: Policy
) -> None:
    conversation = store.create_conversation("a", str(workspace))
    _present(store, conversation.id, workspace, policy, "call_1")
    _assert_every_action_allowed(store, conversation.id, "call_1", policy)
    conn = _database(data_dir)
    try:
        # Moved consistently: the record row and the tool message it sits beside.
        conn.execute("UPDATE records SET tool_call_id = 'call_moved'")
        conn.execute(
            "UPDATE messages SET message = ? WHERE message LIKE '%\"tool_call_id\"%'",
            (json.dumps(_tool_message("call_moved")),),
        )
    finally:
        conn.close()
    moved = store.record(conversation.id, "call_moved")
    assert moved is not None
    assert not moved.trusted
    _assert_every_action_refused(store, conversation.id, "call_moved", policy)
    assert store.record(conversation.id, "call_1") is None
    _assert_every_action_refused(store, conversation.id, "call_1", policy)


def test_a_record_copied_over_another_call_is_untrusted(
    store: Store, data_dir: Path, workspace: Path, policy: Policy
) -> None:
    conversation = store.create_conversation("a", str(workspace))
    _present(store, conversation.id, workspace, policy, "call_1")
    _present(store, conversation.id, workspace, policy, "call_2")
    conn = _database(data_dir)
    try:
        raw, mac = conn.execute(
            "SELECT raw, mac FROM records WHERE tool_call_id = 'call_1'"
        ).fetchone()
        conn.execute(
            "UPDATE records SET raw = ?, mac = ? WHERE tool_call_id = 'call_2'",
            (raw, mac),
        )
    finally:
        conn.close()
    _assert_every_action_refused(store, conversation.id, "call_2", policy)
    _assert_every_action_allowed(store, conversation.id, "call_1", policy)


@pytest.mark.parametrize("swap", [False, True], ids=["one-borrowed", "swapped"])
def test_a_record_with_the_mac_of_another_record_is_untrusted(
    store: Store, data_dir: Path, workspace: Path, policy: Policy, swap: bool
) -> None:
    conversation = store.create_conversation("a", str(workspace))
    _present(store, conversation.id, workspace, policy, "call_1")
    _present(store, conversation.id, workspace, policy, "call_2")
    _assert_every_action_allowed(store, conversation.id, "call_2", policy)
    conn = _database(data_dir)
    try:
        macs = dict(conn.execute("SELECT tool_call_id, mac FROM records").fetchall())
        assert macs["call_1"] != macs["call_2"]
        conn.execute(
            "UPDATE records SET mac = ? WHERE tool_call_id = 'call_2'",
            (macs["call_1"],),
        )
        if swap:
            conn.execute(
                "UPDATE records SET mac = ? WHERE tool_call_id = 'call_1'",
                (macs["call_2"],),
            )
    finally:
        conn.close()
    _assert_every_action_refused(store, conversation.id, "call_2", policy)
    if swap:
        _assert_every_action_refused(store, conversation.id, "call_1", policy)
    else:
        _assert_every_action_allowed(store, conversation.id, "call_1", policy)
