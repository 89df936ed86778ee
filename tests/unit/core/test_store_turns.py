"""Tests for whole turns written at once and histories read from a position."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.core.store import Store
from app.core.transcript import TranscriptBuilder


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


def answer(text: str) -> dict[str, Any]:
    return {"type": "ai", "data": {"content": text, "type": "ai", "tool_calls": []}}


RECORD = json.dumps({"version": 1, "files": []})


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with Store(tmp_path) as opened:
        yield opened


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
    builder = TranscriptBuilder(cid, "/p")
    builder.load(store.messages(cid))
    assert builder.next_position == 4

    store.append_messages(cid, turn("c2"))
    for stored in store.messages(cid, start=builder.next_position):
        builder.add(stored)

    assert builder.next_position == 8
    empty = TranscriptBuilder("x", "/p")
    empty.load([])
    assert empty.next_position == 0
