"""Tests for the SQLite session store: migrations, records, forks, trust, crashes."""

from __future__ import annotations

import errno
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from app.core.chat.blocks import BlockBuilder
from app.core.store.database import DATABASE_NAME, KEY_NAME, Store, StoreError
from app.core.store.migrations import MIGRATIONS

REPO_ROOT = Path(__file__).resolve().parents[4]


def human(text: str) -> dict[str, Any]:
    return {"type": "human", "data": {"content": text, "type": "human"}}


def ai_call(call_id: str) -> dict[str, Any]:
    call = {"name": "present", "args": {"files": []}, "id": call_id}
    return {"type": "ai", "data": {"content": "", "type": "ai", "tool_calls": [call]}}


def tool(call_id: str, content: str = "Presented.") -> dict[str, Any]:
    return {
        "type": "tool",
        "data": {"content": content, "type": "tool", "tool_call_id": call_id},
    }


def record_for(call_id: str) -> str:
    return json.dumps({"version": 1, "files": [{"path": f"{call_id}.md"}]})


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with Store(tmp_path) as opened:
        yield opened


def append_turn(store: Store, cid: str, call_id: str, raw: str | None = None) -> int:
    store.append_message(cid, ai_call(call_id))
    return store.append_message(
        cid, tool(call_id), record=raw or record_for(call_id), tool_call_id=call_id
    )


# -- opening and migrations ---------------------------------------------------


def test_fresh_store_applies_all_migrations_and_uses_wal(tmp_path: Path) -> None:
    Store(tmp_path).close()
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_reopening_keeps_data_and_does_not_rerun_migrations(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        conversation = store.create_conversation("Report", "/projects/space")
        store.append_message(conversation.id, human("hello"))
    with Store(tmp_path) as store:
        assert store.conversations() == [conversation]
        assert [m.message for m in store.messages(conversation.id)] == [human("hello")]
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    conn.close()


def test_database_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    Store(tmp_path).close()
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    with pytest.raises(RuntimeError, match="Update Deliverables"):
        Store(tmp_path)


def test_closed_store_refuses_calls(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.close()
    with pytest.raises(StoreError):
        store.conversations()


# -- conversations ------------------------------------------------------------


def test_conversations_are_listed_oldest_first_and_can_be_renamed(
    store: Store,
) -> None:
    first = store.create_conversation("One", "/a")
    second = store.create_conversation("Two", "/b")
    store.rename_conversation(first.id, "Uno")
    assert [c.title for c in store.conversations()] == ["Uno", "Two"]
    assert store.conversation(second.id) == second
    assert len(first.id) == 32
    assert first.created_at.utcoffset() is not None


def test_unknown_conversation_raises_key_error(store: Store) -> None:
    with pytest.raises(KeyError):
        store.conversation("missing")
    with pytest.raises(KeyError):
        store.rename_conversation("missing", "x")
    with pytest.raises(KeyError):
        store.append_message("missing", human("x"))
    with pytest.raises(KeyError):
        store.messages("missing")


# -- messages and records -----------------------------------------------------


def test_messages_round_trip_in_order_with_positions(store: Store) -> None:
    cid = store.create_conversation("t", "/w").id
    sent = [human("hi ünïcode 🎉"), ai_call("c1"), tool("c1")]
    positions = [store.append_message(cid, m) for m in sent]
    history = store.messages(cid)
    assert positions == [0, 1, 2]
    assert [m.message for m in history] == sent
    assert [m.position for m in history] == [0, 1, 2]
    assert {m.conversation_id for m in history} == {cid}
    assert all(m.record is None for m in history)


def test_record_is_stored_beside_its_tool_message(store: Store) -> None:
    cid = store.create_conversation("t", "/w").id
    store.append_message(cid, human("make a report"))
    position = append_turn(store, cid, "call-1")
    history = store.messages(cid)
    assert history[position].record is not None
    assert history[position].record.raw == record_for("call-1")
    assert history[position].record.trusted
    assert [m.record is None for m in history] == [True, True, False]
    assert store.record(cid, "call-1") == history[position].record
    assert store.record(cid, "call-unknown") is None


@pytest.mark.parametrize(
    "raw",
    [
        '{"version": 99, "weird": [1,2]}',
        "not json at all \x00 ünï\r\n  trailing  ",
        '{"version":1,  "files" :[]}\n',
    ],
)
def test_record_raw_text_survives_byte_for_byte(store: Store, raw: str) -> None:
    cid = store.create_conversation("t", "/w").id
    append_turn(store, cid, "c", raw)
    stored = store.record(cid, "c")
    assert stored is not None
    assert stored.raw.encode("utf-8") == raw.encode("utf-8")
    assert stored.trusted


def test_record_needs_a_matching_tool_message(store: Store) -> None:
    cid = store.create_conversation("t", "/w").id
    with pytest.raises(ValueError, match="tool_call_id"):
        store.append_message(cid, tool("c"), record=record_for("c"))
    with pytest.raises(ValueError, match="tool message"):
        store.append_message(cid, human("x"), record="{}", tool_call_id="c")
    with pytest.raises(ValueError, match="tool message"):
        store.append_message(cid, tool("other"), record="{}", tool_call_id="c")
    assert store.messages(cid) == []


def test_duplicate_tool_call_record_is_refused_without_a_partial_write(
    store: Store,
) -> None:
    cid = store.create_conversation("t", "/w").id
    append_turn(store, cid, "c")
    with pytest.raises(ValueError, match="already has a record"):
        store.append_message(cid, tool("c"), record="{}", tool_call_id="c")
    assert len(store.messages(cid)) == 2


# -- forks --------------------------------------------------------------------


def build_parent(store: Store) -> str:
    """Parent history: 0 human, 1-2 call a, 3 human, 4-5 call b."""
    cid = store.create_conversation("parent", "/w").id
    store.append_message(cid, human("first"))
    append_turn(store, cid, "a")
    store.append_message(cid, human("second"))
    append_turn(store, cid, "b")
    return cid


def test_fork_replays_parent_prefix_then_its_own_messages(store: Store) -> None:
    parent = build_parent(store)
    fork = store.fork(parent, 4, title="alt")
    assert (fork.parent_id, fork.fork_position, fork.title) == (parent, 4, "alt")
    assert fork.workspace == "/w"
    assert store.append_message(fork.id, human("fork says")) == 4
    history = store.messages(fork.id)
    parent_history = store.messages(parent)
    assert [m.message for m in history] == [
        *[m.message for m in parent_history[:4]],
        human("fork says"),
    ]
    assert [m.position for m in history] == [0, 1, 2, 3, 4]
    assert [m.conversation_id for m in history] == [parent] * 4 + [fork.id]
    assert len(store.messages(parent)) == 6


def test_fork_sees_shared_records_but_not_parent_records_after_the_fork(
    store: Store,
) -> None:
    parent = build_parent(store)
    fork = store.fork(parent, 4)
    shared = store.record(fork.id, "a")
    assert shared is not None
    assert shared == store.record(parent, "a")
    assert shared.trusted
    assert store.record(parent, "b") is not None
    assert store.record(fork.id, "b") is None


def test_fork_of_fork_replays_every_level(store: Store) -> None:
    parent = build_parent(store)
    child = store.fork(parent, 3).id
    append_turn(store, child, "c")  # positions 3, 4
    grandchild = store.fork(child, 4).id
    append_turn(store, grandchild, "d")  # positions 4, 5
    history = store.messages(grandchild)
    assert [m.position for m in history] == list(range(6))
    assert [m.conversation_id for m in history] == [parent] * 3 + [child] + [
        grandchild
    ] * 2
    assert store.record(grandchild, "a") is not None
    assert store.record(grandchild, "c") is None  # child's tool message is at 4
    assert store.record(grandchild, "d") is not None
    assert store.record(grandchild, "b") is None


def test_fork_taken_before_a_parent_fork_point_sees_only_the_root_prefix(
    store: Store,
) -> None:
    parent = build_parent(store)
    child = store.fork(parent, 5).id
    store.append_message(child, human("child"))
    early = store.fork(child, 2).id
    assert [m.message for m in store.messages(early)] == [
        m.message for m in store.messages(parent)[:2]
    ]


def test_replayed_history_carries_the_same_records_as_lookup(store: Store) -> None:
    parent = build_parent(store)
    fork = store.fork(parent, 6).id
    append_turn(store, fork, "e")
    for stored in store.messages(fork):
        if stored.message["type"] == "tool":
            call_id = stored.message["data"]["tool_call_id"]
            assert stored.record is not None
            assert stored.record == store.record(fork, call_id)
            assert stored.record.trusted


def test_fork_position_must_be_inside_the_history(store: Store) -> None:
    parent = build_parent(store)
    for bad in (0, -1, 7):
        with pytest.raises(ValueError, match="Cannot fork"):
            store.fork(parent, bad)
    assert store.fork(parent, 6).fork_position == 6


def test_fork_cannot_reuse_an_inherited_tool_call_id(store: Store) -> None:
    parent = build_parent(store)
    fork = store.fork(parent, 3).id
    with pytest.raises(ValueError, match="already has a record"):
        store.append_message(fork, tool("a"), record="{}", tool_call_id="a")
    append_turn(store, fork, "b")  # b is after the fork point, so it is free here


# -- trust ----------------------------------------------------------------------


def test_raw_edited_behind_the_store_is_untrusted(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        cid = store.create_conversation("t", "/w").id
        append_turn(store, cid, "c")
        append_turn(store, cid, "d")
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        conn.execute(
            "UPDATE records SET raw = ? WHERE tool_call_id = 'c'",
            ('{"version": 1, "files": [{"path": "/etc/shadow"}]}',),
        )
    conn.close()
    with Store(tmp_path) as store:
        tampered = store.record(cid, "c")
        assert tampered is not None
        assert not tampered.trusted
        assert "/etc/shadow" in tampered.raw
        assert [m.record.trusted for m in store.messages(cid) if m.record] == [
            False,
            True,
        ]
        assert store.record(cid, "d") is not None
        assert store.record(cid, "d").trusted  # type: ignore[union-attr]


def test_record_copied_to_another_call_is_untrusted(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        cid = store.create_conversation("t", "/w").id
        append_turn(store, cid, "c", '{"version": 1, "files": ["evil"]}')
        append_turn(store, cid, "d")
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        raw, mac = conn.execute(
            "SELECT raw, mac FROM records WHERE tool_call_id = 'c'"
        ).fetchone()
        conn.execute(
            "UPDATE records SET raw = ?, mac = ? WHERE tool_call_id = 'd'", (raw, mac)
        )
    conn.close()
    with Store(tmp_path) as store:
        copied = store.record(cid, "d")
        assert copied is not None
        assert not copied.trusted


def test_mac_column_garbage_is_untrusted_not_an_error(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        cid = store.create_conversation("t", "/w").id
        append_turn(store, cid, "c")
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        conn.execute("UPDATE records SET mac = 'ünï'")
    conn.close()
    with Store(tmp_path) as store:
        assert store.record(cid, "c").trusted is False  # type: ignore[union-attr]


def test_key_file_is_private_and_reused(tmp_path: Path) -> None:
    Store(tmp_path).close()
    key_path = tmp_path / KEY_NAME
    key = key_path.read_bytes()
    assert len(key) == 32
    if os.name == "posix":
        assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
        assert stat.S_IMODE((tmp_path / DATABASE_NAME).stat().st_mode) & 0o077 == 0
    Store(tmp_path).close()
    assert key_path.read_bytes() == key
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_new_key_makes_old_records_untrusted(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        cid = store.create_conversation("t", "/w").id
        append_turn(store, cid, "c")
    (tmp_path / KEY_NAME).unlink()
    with Store(tmp_path) as store:
        assert store.record(cid, "c").trusted is False  # type: ignore[union-attr]


def test_damaged_key_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / KEY_NAME).write_bytes(b"short")
    with pytest.raises(StoreError, match="damaged"):
        Store(tmp_path)


def _assert_key_problem(tmp_path: Path, *words: str) -> None:
    """Opening the store fails with a StoreError naming the key and a way out."""
    with pytest.raises(StoreError) as raised:
        Store(tmp_path)
    message = str(raised.value)
    assert str(tmp_path / KEY_NAME) in message
    assert "new key" in message
    for word in words:
        assert word in message


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
@pytest.mark.parametrize("target", ["a planted key", "nothing"])
def test_a_symlink_in_place_of_the_key_is_reported(tmp_path: Path, target: str) -> None:
    planted = tmp_path / "planted.key"
    if target == "a planted key":
        planted.write_bytes(bytes(32))  # a key of the right size, chosen by someone
    os.symlink(planted, tmp_path / KEY_NAME)
    _assert_key_problem(tmp_path, "symbolic link")
    assert (tmp_path / KEY_NAME).is_symlink()  # reported, not replaced


def test_a_folder_in_place_of_the_key_is_reported(tmp_path: Path) -> None:
    (tmp_path / KEY_NAME).mkdir()
    _assert_key_problem(tmp_path, "a folder", "not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_in_place_of_the_key_is_reported_without_waiting(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / KEY_NAME
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def open_store() -> None:
        try:
            Store(tmp_path).close()
            outcome.append(None)
        except BaseException as error:  # handed to the test thread below
            outcome.append(error)

    opener = threading.Thread(target=open_store, daemon=True)
    opener.start()
    opener.join(timeout=30)  # only a guard against a hang; no writer ever comes
    hung = opener.is_alive()
    if hung:
        # Let a blocked open return so the thread ends: a writer that leaves.
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        opener.join()
    assert not hung, "opening the store waited for a writer on the FIFO"
    assert len(outcome) == 1 and isinstance(outcome[0], StoreError)
    message = str(outcome[0])
    assert "named pipe" in message
    assert "new key" in message


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads every file"
)
def test_an_unreadable_key_file_is_reported(tmp_path: Path) -> None:
    Store(tmp_path).close()
    (tmp_path / KEY_NAME).chmod(0)
    _assert_key_problem(tmp_path, "permission denied")


def test_a_key_file_the_system_refuses_to_open_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The unreadable case for any user, root included: open itself says EACCES.
    Store(tmp_path).close()
    real_open = os.open

    def refusing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).name == KEY_NAME:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    _assert_key_problem(tmp_path, "permission denied")


# -- crash safety -------------------------------------------------------------

WRITER = """
import sys
from pathlib import Path
from app.core.store import Store

store = Store(Path(sys.argv[1]))
cid, run = sys.argv[2], sys.argv[3]
i = 0
while True:
    call = f"run{run}-{i}"
    ai = {"type": "ai", "data": {"content": "", "tool_calls": [{"id": call}]}}
    store.append_message(cid, ai)
    raw = '{"version": 1, "n": %d, "pad": "' % i + "x" * 1_000_000 + '"}'
    msg = {"type": "tool", "data": {"content": "ok", "tool_call_id": call}}
    position = store.append_message(cid, msg, record=raw, tool_call_id=call)
    print(position, flush=True)
    i += 1
"""


# Seconds between a printed commit and SIGKILL, spread over one append cycle of a
# 1 MB record so that some kills land inside the transaction; a store that
# committed the message and its record separately fails within a few runs.
KILL_DELAYS = (0.0, 0.001, 0.002, 0.004, 0.006, 0.009, 0.013, 0.018)


def run_writer_and_kill(
    data_dir: Path, cid: str, run: int, commits: int, delay: float
) -> int:
    """Start a writer, SIGKILL it mid-write after ``commits``; return all it printed."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(data_dir), cid, str(run)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    ) as process:
        assert process.stdout is not None
        seen = 0
        while seen < commits:
            line = process.stdout.readline()
            assert line, process.stderr.read() if process.stderr else ""
            seen += 1
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        # Commits it printed while we slept count too: on a loaded machine the
        # writer may get several more done before the kill lands.
        seen += len(process.stdout.read().splitlines())
    assert process.returncode == -signal.SIGKILL
    return seen


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_killed_writer_never_leaves_half_a_message_or_record(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        cid = store.create_conversation("crash", "/w").id
    committed = 0
    for run, delay in enumerate(KILL_DELAYS):
        printed = run_writer_and_kill(tmp_path, cid, run, 3, delay)

        with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        conn.close()
        with Store(tmp_path) as store:
            history = store.messages(cid)
        assert [m.position for m in history] == list(range(len(history)))
        tool_messages = [m for m in history if m.message["type"] == "tool"]
        # Every printed commit survived; at most one more landed unprinted.
        assert committed + printed <= len(tool_messages) <= committed + printed + 1
        committed = len(tool_messages)
        for stored in history:
            assert stored.message["type"] in {"ai", "tool"}
            if stored.message["type"] == "tool":
                assert stored.record is not None
                assert stored.record.trusted
                assert (
                    stored.record.tool_call_id
                    == (stored.message["data"]["tool_call_id"])
                )
                parsed = json.loads(stored.record.raw)
                assert len(parsed["pad"]) == 1_000_000
            else:
                assert stored.record is None


# -- threads ------------------------------------------------------------------


def test_concurrent_appends_from_two_threads_stay_unique_and_contiguous(
    store: Store,
) -> None:
    cid = store.create_conversation("threads", "/w").id
    per_thread = 150
    errors: list[BaseException] = []

    def writer(name: str) -> None:
        try:
            for i in range(per_thread):
                call = f"{name}-{i}"
                store.append_message(cid, tool(call), record="{}", tool_call_id=call)
        except BaseException as error:  # reported by the main thread below
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(n,)) for n in ("x", "y")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    history = store.messages(cid)
    assert [m.position for m in history] == list(range(2 * per_thread))
    for name in ("x", "y"):
        calls = [
            m.message["data"]["tool_call_id"]
            for m in history
            if m.message["data"]["tool_call_id"].startswith(name)
        ]
        assert calls == [f"{name}-{i}" for i in range(per_thread)]
    assert all(m.record is not None and m.record.trusted for m in history)


# -- whole turns, and histories read from a position ---------------------------


def answer(text: str) -> dict[str, Any]:
    return {"type": "ai", "data": {"content": text, "type": "ai", "tool_calls": []}}


RECORD = json.dumps({"version": 1, "files": []})


def turn(call_id: str) -> list[tuple[dict[str, Any], str | None, str | None]]:
    return [
        (human("From Codex"), None, None),
        (ai_call(call_id), None, None),
        (tool(call_id), RECORD, call_id),
        (answer("Presented by Codex."), None, None),
    ]


def test_a_turn_is_stored_whole_with_its_trusted_record(store: Store) -> None:
    cid = store.create_conversation("Codex — ~/p", "/p").id

    positions = store.append_messages(cid, turn("c1"))

    assert positions == [0, 1, 2, 3]
    history = store.messages(cid)
    assert [m.message["type"] for m in history] == ["human", "ai", "tool", "ai"]
    record = history[2].record
    assert record is not None and record.trusted and record.raw == RECORD


def test_a_turn_that_fails_leaves_nothing_behind(store: Store) -> None:
    cid = store.create_conversation("Codex — ~/p", "/p").id
    store.append_messages(cid, turn("c1"))
    # The second turn reuses a tool call id: its record must be refused, and
    # the messages before it in the same turn must go with it.
    with pytest.raises(ValueError, match="already has a record"):
        store.append_messages(cid, turn("c1"))

    assert len(store.messages(cid)) == 4


def test_a_record_must_sit_beside_its_tool_message(store: Store) -> None:
    cid = store.create_conversation("t", "/p").id
    with pytest.raises(ValueError, match="beside"):
        store.append_messages(cid, [(human("x"), RECORD, "c1")])
    assert store.messages(cid) == []


def test_messages_from_a_position_return_only_what_was_added(store: Store) -> None:
    cid = store.create_conversation("t", "/p").id
    store.append_messages(cid, turn("c1"))
    store.append_messages(cid, turn("c2"))

    since = store.messages(cid, start=4)

    assert [m.position for m in since] == [4, 5, 6, 7]
    assert since == store.messages(cid)[4:]


def test_a_fork_read_from_a_position_skips_the_inherited_part(store: Store) -> None:
    cid = store.create_conversation("t", "/p").id
    store.append_messages(cid, turn("c1"))
    fork = store.fork(cid, 4)
    store.append_messages(fork.id, turn("c2"))

    assert [m.position for m in store.messages(fork.id, start=4)] == [4, 5, 6, 7]
    assert [m.position for m in store.messages(fork.id, start=2)] == [
        2,
        3,
        4,
        5,
        6,
        7,
    ]


def test_the_transcript_knows_where_its_history_ends(store: Store) -> None:
    cid = store.create_conversation("t", "/p").id
    store.append_messages(cid, turn("c1"))
    builder = BlockBuilder(cid, "/p")
    builder.load(store.messages(cid))
    assert builder.next_position == 4

    store.append_messages(cid, turn("c2"))
    for stored in store.messages(cid, start=builder.next_position):
        builder.add(stored)

    assert builder.next_position == 8
    empty = BlockBuilder("x", "/p")
    empty.load([])
    assert empty.next_position == 0
