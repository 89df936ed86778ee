"""The stored-message format: one shape whoever writes, and every row readable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)

from app.agent.runner import stored_form
from app.core.chat.blocks import ToolCallBlock, build_blocks
from app.core.chat.tool_names import PRESENT
from app.core.store import Store, StoredMessage
from app.core.store import messages as stored
from app.importers import messages as imported
from app.mcp.presenter import turn_items

RECORD = json.dumps({"version": 1, "files": []})
CALL = "call-1"
ARGS = {"files": [{"path": "report.md", "description": "the report"}]}


def _langchain_dict(message: Any) -> dict[str, Any]:
    data = messages_to_dict([message])[0]
    data["data"].pop("artifact", None)
    return data


@pytest.mark.parametrize(
    "message",
    [
        HumanMessage("hello", id="h1", name="me", additional_kwargs={"k": 1}),
        HumanMessage([{"type": "text", "text": "a"}, {"type": "image_url"}]),
        AIMessage(
            "calling",
            id="a1",
            tool_calls=[{"name": PRESENT, "args": ARGS, "id": CALL}],
            invalid_tool_calls=[
                {"name": "x", "args": "{", "id": "bad", "error": "no json"}
            ],
            usage_metadata={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
            response_metadata={"model_name": "m", "finish_reason": "tool_calls"},
        ),
        AIMessage([{"type": "text", "text": "the answer"}]),
        ToolMessage("done", tool_call_id=CALL, name=PRESENT, artifact=RECORD),
        ToolMessage("refused", tool_call_id=CALL, name=PRESENT, status="error"),
        SystemMessage("be brief"),
    ],
)
def test_the_runner_stores_what_langchain_writes_less_the_artifact(message):
    written, _record = stored_form(message)

    assert written == _langchain_dict(message)
    # And LangChain reads it back as the message it was, artifact aside.
    (replayed,) = messages_from_dict([written])
    assert replayed.content == message.content
    assert type(replayed) is type(message)


def test_a_present_records_artifact_goes_beside_the_message_never_in_it():
    message = ToolMessage("done", tool_call_id=CALL, name=PRESENT, artifact=RECORD)

    written, record = stored_form(message)

    assert record == RECORD
    assert "artifact" not in written["data"]
    assert RECORD not in json.dumps(written)


@pytest.mark.parametrize(
    "message",
    [
        stored.HumanMessage("hi", id="1"),
        stored.AIMessage(
            [{"type": "text", "text": "x"}],
            (stored.ToolCall("c", "show_image", {"filename": "a.png"}),),
            usage_metadata={"input_tokens": 1},
        ),
        stored.ToolResult("c", "ok", name="show_image", status="error"),
        stored.ended_without_result("c", "Bash", "ended"),
        stored.OtherMessage({"type": "system", "data": {"content": "s"}}),
    ],
)
def test_what_is_written_reads_back_as_it_was(message):
    assert stored.read(json.loads(json.dumps(stored.write(message)))) == message


def _turn_by_the_runner() -> list[tuple[dict[str, Any], str | None, str | None]]:
    items = []
    for message in (
        HumanMessage("From Claude Code"),
        AIMessage("", tool_calls=[{"name": PRESENT, "args": ARGS, "id": CALL}]),
        ToolMessage(
            "Presented 1 file.", tool_call_id=CALL, name=PRESENT, artifact=RECORD
        ),
        AIMessage("Presented by Claude Code."),
    ):
        data, record = stored_form(message)
        items.append((data, record, CALL if record is not None else None))
    return items


def _turn_by_the_importers() -> list[tuple[dict[str, Any], str | None, str | None]]:
    return [
        (imported.human("From Claude Code"), None, None),
        (imported.ai("", [(CALL, PRESENT, ARGS)]), None, None),
        (
            imported.tool(CALL, PRESENT, "Presented 1 file.", error=False),
            RECORD,
            CALL,
        ),
        (imported.ai("Presented by Claude Code.", []), None, None),
    ]


def _turn_by_the_mcp_server() -> list[tuple[dict[str, Any], str | None, str | None]]:
    return turn_items(
        "From Claude Code",
        CALL,
        PRESENT,
        ARGS,
        "Presented 1 file.",
        RECORD,
        "Presented by Claude Code.",
    )


def test_each_writer_stores_the_same_turn_as_the_same_rows(tmp_path: Path):
    writers = {
        "runner": _turn_by_the_runner(),
        "importers": _turn_by_the_importers(),
        "mcp": _turn_by_the_mcp_server(),
    }
    rows: dict[str, list[dict[str, Any]]] = {}
    with Store(tmp_path / "data") as store:
        for name, items in writers.items():
            conversation = store.create_conversation(name, str(tmp_path))
            store.append_messages(conversation.id, items)
            rows[name] = [item.message for item in store.messages(conversation.id)]

    assert rows["runner"] == rows["importers"] == rows["mcp"]
    read_back = [stored.read(row) for row in rows["runner"]]
    assert [type(message) for message in read_back] == [
        stored.HumanMessage,
        stored.AIMessage,
        stored.ToolResult,
        stored.AIMessage,
    ]


def test_a_row_the_mcp_server_wrote_before_the_format_was_one_still_loads():
    # The MCP server once wrote only the fields it set.
    old_rows = [
        {"type": "human", "data": {"content": "From Claude Code", "type": "human"}},
        {
            "type": "ai",
            "data": {
                "content": "",
                "type": "ai",
                "tool_calls": [
                    {"name": PRESENT, "args": ARGS, "id": CALL, "type": "tool_call"}
                ],
            },
        },
        {
            "type": "tool",
            "data": {
                "content": "Presented 1 file.",
                "type": "tool",
                "name": PRESENT,
                "tool_call_id": CALL,
                "status": "success",
            },
        },
        {"type": "ai", "data": {"content": "Presented by Claude Code.", "type": "ai"}},
    ]
    new_rows = [data for data, _record, _call in _turn_by_the_mcp_server()]

    assert [stored.read(row) for row in old_rows] == [
        stored.read(row) for row in new_rows
    ]
    assert [type(m) for m in messages_from_dict(old_rows)] == [
        HumanMessage,
        AIMessage,
        ToolMessage,
        AIMessage,
    ]


@pytest.mark.parametrize(
    "row",
    [
        {},
        {"type": "ai"},
        {"type": "ai", "data": []},
        {"type": "ai", "data": {"content": 5, "tool_calls": "x", "id": 3}},
        {"type": "ai", "data": {"tool_calls": [None, {"args": [1]}]}},
        {"type": "tool", "data": {"tool_call_id": 7, "status": "odd"}},
        {"type": "human", "data": {"content": None, "additional_kwargs": []}},
    ],
)
def test_a_damaged_row_reads_with_defaults_and_the_chat_still_builds(row):
    message = stored.read(row)

    blocks = build_blocks("c", "", [_stored_message(row)])
    assert isinstance(message, stored.Message)
    assert blocks is not None


def test_a_call_argument_that_is_not_an_object_is_kept_for_display():
    row = {
        "type": "ai",
        "data": {"content": "", "tool_calls": [{"id": "c", "name": "Bash", "args": 5}]},
    }

    blocks = build_blocks("c", "", [_stored_message(row)])

    (call,) = [block for block in blocks if isinstance(block, ToolCallBlock)]
    assert call.args_json_text == '{"input": 5}'


def test_the_store_finds_the_call_a_tool_result_answers():
    assert stored.tool_call_id(stored.write(stored.ToolResult("c9", "ok"))) == "c9"
    assert stored.tool_call_id(stored.write(stored.HumanMessage("c9"))) is None
    assert stored.tool_call_id({"type": "tool", "data": {"tool_call_id": 1}}) is None


def _stored_message(row: dict[str, Any]) -> StoredMessage:
    return StoredMessage(0, "c", row, None, ())
