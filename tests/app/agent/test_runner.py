"""The runner: persistence of every message and record, replay, cancel, failure."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage, messages_from_dict

from app.agent.events import (
    MessageStored,
    RunEvent,
    RunFailed,
    RunFinished,
    ToolCallFinished,
    ToolCallStarted,
)
from app.agent.models import RecordingChatModel, ScriptedChatModel
from app.agent.runner import AgentRunner
from app.agent.tools import AgentSession
from app.core.store import Store
from app.core.trust.records import Record, parse_record

from .scripts import answer, present, tool_calls


def start(
    store: Store, session: AgentSession, model: ScriptedChatModel
) -> tuple[str, AgentRunner]:
    conversation = store.create_conversation("t", session.workspace.address)
    return conversation.id, AgentRunner(store, conversation.id, model, session)


def test_run_persists_every_message_and_the_record_beside_its_tool_result(
    store: Store, session: AgentSession
) -> None:
    model = ScriptedChatModel(
        replies=[
            present("call-bad", "report/indx.html"),
            present("call-ok", "report/index.html"),
            answer("Done."),
        ]
    )
    conversation_id, runner = start(store, session, model)
    events: list[RunEvent] = []

    runner.run("Make a report", events.append)

    stored = store.messages(conversation_id)
    assert [m.message["type"] for m in stored] == [
        "human",
        "ai",
        "tool",
        "ai",
        "tool",
        "ai",
    ]
    assert [m.record is not None for m in stored] == [
        False,
        False,
        False,
        False,
        True,
        False,
    ]
    record = stored[4].record
    assert record is not None and record.trusted
    assert record.tool_call_id == "call-ok"
    assert isinstance(parse_record(record.raw), Record)
    assert store.record(conversation_id, "call-bad") is None
    assert all("artifact" not in m.message["data"] for m in stored)
    assert [e.record for e in events if isinstance(e, MessageStored)] == [
        None,
        None,
        None,
        None,
        record.raw,
        None,
    ]
    assert events[-1] == RunFinished(cancelled=False)


def test_tool_events_report_start_and_outcome(
    store: Store, session: AgentSession
) -> None:
    model = ScriptedChatModel(
        replies=[present("call-bad", "missing.txt"), answer("Sorry.")]
    )
    _, runner = start(store, session, model)
    events: list[RunEvent] = []

    runner.run("go", events.append)

    tool_events = [
        e for e in events if isinstance(e, ToolCallStarted | ToolCallFinished)
    ]
    assert tool_events[0] == ToolCallStarted(
        "call-bad",
        "present",
        {"files": [{"path": "missing.txt", "description": "About missing.txt"}]},
    )
    finished = tool_events[1]
    assert isinstance(finished, ToolCallFinished)
    assert (finished.tool_call_id, finished.status) == ("call-bad", "error")
    assert '"reason": "missing"' in finished.content


def test_replay_sends_stored_history_and_keeps_the_same_records(
    store: Store, session: AgentSession
) -> None:
    model = RecordingChatModel(
        replies=[present("call-ok", "notes.md"), answer("Done."), answer("Again.")]
    )
    conversation_id, runner = start(store, session, model)
    runner.run("first")
    before = store.record(conversation_id, "call-ok")

    # A new runner, as after a restart: history comes from the store only.
    AgentRunner(store, conversation_id, model, session).run("second")

    replayed = model.requests[-1].messages
    assert [m["type"] for m in replayed] == [
        "system",
        "human",
        "ai",
        "tool",
        "ai",
        "human",
    ]
    assert replayed[3]["data"]["tool_call_id"] == "call-ok"
    assert store.record(conversation_id, "call-ok") == before
    history = messages_from_dict([m.message for m in store.messages(conversation_id)])
    assert isinstance(history[2], ToolMessage) and history[2].artifact is None


def test_a_model_that_fails_at_once_leaves_the_conversation_unchanged(
    store: Store, session: AgentSession
) -> None:
    model = ScriptedChatModel(replies=[ConnectionError("provider unreachable")])
    conversation_id, runner = start(store, session, model)
    events: list[RunEvent] = []

    runner.run("hello", events.append)

    assert events == [RunFailed("ConnectionError: provider unreachable")]
    assert store.messages(conversation_id) == []


def test_a_model_failing_mid_turn_leaves_no_tool_call_without_its_result(
    store: Store, session: AgentSession
) -> None:
    model = ScriptedChatModel(
        replies=[
            present("call-ok", "notes.md"),
            tool_calls(("call-read", "read_file", {"path": "notes.md"})),
            RuntimeError("rate limited"),
            answer("Recovered."),
        ]
    )
    conversation_id, runner = start(store, session, model)
    events: list[RunEvent] = []

    runner.run("go", events.append)
    runner.run("try again", events.append)

    types = [m.message["type"] for m in store.messages(conversation_id)]
    assert types == ["human", "ai", "tool", "ai", "tool", "human", "ai"]
    assert isinstance(
        events[events.index(RunFailed("RuntimeError: rate limited"))], RunFailed
    )
    assert events[-1] == RunFinished(cancelled=False)
    assert store.record(conversation_id, "call-ok") is not None


def test_cancel_stops_the_run_before_the_next_step(
    store: Store, session: AgentSession, workspace: Path
) -> None:
    model = ScriptedChatModel(
        replies=[
            tool_calls(("call-w", "write_file", {"path": "new.txt", "content": "x"})),
            answer("Written."),
        ]
    )
    conversation_id, runner = start(store, session, model)
    events: list[RunEvent] = []

    def on_event(event: RunEvent) -> None:
        events.append(event)
        if isinstance(event, ToolCallStarted):
            runner.cancel()  # as the UI would, from another thread

    runner.run("write it", on_event)

    assert events[-1] == RunFinished(cancelled=True)
    assert not (workspace / "new.txt").exists()
    assert model.remaining == 1
    assert store.messages(conversation_id) == []


def test_a_cancelled_run_does_not_cancel_the_next_one(
    store: Store, session: AgentSession
) -> None:
    model = ScriptedChatModel(replies=[answer("Hello.")])
    conversation_id, runner = start(store, session, model)
    runner.cancel()
    events: list[RunEvent] = []

    runner.run("hi", events.append)

    assert events[-1] == RunFinished(cancelled=False)
    assert len(store.messages(conversation_id)) == 2


class BlockingModel(ScriptedChatModel):
    """Waits inside its first call until the test lets it answer."""

    entered: threading.Event
    release: threading.Event

    def _observe(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> None:
        self.entered.set()
        self.release.wait(timeout=10)


def test_cancel_from_another_thread_stops_after_the_model_step(
    store: Store, session: AgentSession, workspace: Path
) -> None:
    model = BlockingModel(
        replies=[
            tool_calls(("call-w", "write_file", {"path": "new.txt", "content": "x"})),
            answer("Written."),
        ],
        entered=threading.Event(),
        release=threading.Event(),
    )
    conversation_id, runner = start(store, session, model)
    events: list[RunEvent] = []
    worker = threading.Thread(target=runner.run, args=("write it", events.append))

    worker.start()
    assert model.entered.wait(timeout=10)
    runner.cancel()
    model.release.set()
    worker.join(timeout=10)

    assert not worker.is_alive()
    assert events[-1] == RunFinished(cancelled=True)
    assert not (workspace / "new.txt").exists()
    assert store.messages(conversation_id) == []
