"""The transcript turns stored messages into display blocks in the right order."""

from __future__ import annotations

import json
from typing import Any

from app.core.chat.blocks import (
    AssistantTextBlock,
    BlockBuilder,
    DeliverableBlock,
    ImageBlock,
    ToolCallBlock,
    TurnActionsBlock,
    UserBlock,
    build_blocks,
)
from app.core.store import StoredMessage, StoredRecord
from app.core.store.deliverables import DeliverableRef

CID = "conv"
WS = "/ws"


def record(count: int, version: int = 1) -> str:
    files = [
        {
            "path": f"f{i}.md",
            "resolved": f"{WS}/f{i}.md",
            "description": f"file {i}",
            "scope": "workspace",
            "size": 10 + i,
            "mtime_ns": 1,
            "device": 1,
            "inode": i,
            "kind": "markdown",
        }
        for i in range(count)
    ]
    return json.dumps(
        {"version": version, "declared_at": "x", "workspace": WS, "files": files}
    )


class Conversation:
    def __init__(self) -> None:
        self.messages: list[StoredMessage] = []

    def add(self, kind: str, rec: StoredRecord | None = None, **data: Any) -> None:
        self.messages.append(
            StoredMessage(len(self.messages), CID, {"type": kind, "data": data}, rec)
        )

    def human(self, text: str) -> None:
        self.add("human", content=text)

    def call(
        self, call_id: str, name: str, args: dict[str, Any], text: str = ""
    ) -> None:
        self.add(
            "ai", content=text, tool_calls=[{"id": call_id, "name": name, "args": args}]
        )

    def result(
        self,
        call_id: str,
        name: str,
        content: str,
        status: str = "success",
        raw: str | None = None,
    ) -> None:
        rec = StoredRecord(call_id, raw, True) if raw is not None else None
        self.add(
            "tool", rec, content=content, tool_call_id=call_id, name=name, status=status
        )

    def answer(self, text: str) -> None:
        self.add("ai", content=text, tool_calls=[])


def demo_like() -> Conversation:
    c = Conversation()
    c.human("Analyse the data")
    c.call("c1", "list_files", {"path": "."})
    c.result("c1", "list_files", "a.csv")
    c.call("c2", "present", {"files": []})
    c.result("c2", "present", '{"error": "missing"}', status="error")
    c.call("c3", "present", {"files": []})
    c.result("c3", "present", "Presented 8 files: ...", raw=record(8))
    c.answer("## Done\n\nHere it is.")
    c.human("Show me the logo")
    c.call("c4", "show_image", {"filename": "logo.png"})
    image = {
        "action": "image",
        "filename": "logo.png",
        "src_url": "public://x/logo.png",
        "mime": "image/png",
        "size": 3,
        "alt_text": "The logo",
        "caption": "Our logo",
    }
    c.result("c4", "show_image", json.dumps(image))
    c.answer("Here is the logo.")
    c.human("And the raw files")
    c.call("c5", "present", {"files": []})
    c.result("c5", "present", "Presented 5 files", raw=record(5))
    c.answer("Here they are.")
    return c


def kinds(blocks: list[Any]) -> list[str]:
    return [type(b).__name__.removesuffix("Block") for b in blocks]


def test_demo_like_turns_give_blocks_in_display_order() -> None:
    blocks = build_blocks(CID, WS, demo_like().messages)

    assert kinds(blocks) == (
        ["User", "ToolCall", "ToolCall", "ToolCall", "AssistantText"]
        + ["Deliverable"] * 8
        + ["TurnActions", "User", "ToolCall", "Image", "AssistantText", "TurnActions"]
        + ["User", "ToolCall", "AssistantText"]
        + ["Deliverable"] * 5
        + ["TurnActions"]
    )
    tools = [b for b in blocks if isinstance(b, ToolCallBlock)]
    assert [(t.name, t.state) for t in tools] == [
        ("list_files", "finished"),
        ("present", "error"),
        ("present", "finished"),
        ("show_image", "finished"),
        ("present", "finished"),
    ]
    assert tools[1].result_text == '{"error": "missing"}'
    cards = [b for b in blocks if isinstance(b, DeliverableBlock)]
    assert cards[0].ref == DeliverableRef(CID, "c3", 0)
    assert cards[7].ref == DeliverableRef(CID, "c3", 7)
    assert cards[8].ref == DeliverableRef(CID, "c5", 0)
    assert all(card.entry is not None for card in cards)
    final = [b for b in blocks if isinstance(b, AssistantTextBlock)]
    assert all(b.final for b in final)


def test_image_block_follows_its_call_with_public_path_and_texts() -> None:
    blocks = build_blocks(CID, WS, demo_like().messages)
    image = next(b for b in blocks if isinstance(b, ImageBlock))
    assert image == ImageBlock(
        "c4", "logo.png", "The logo", "Our logo", "image/png", "/ws/public/logo.png"
    )
    assert isinstance(blocks[blocks.index(image) - 1], ToolCallBlock)


def test_image_with_a_path_in_its_filename_gives_no_image_block() -> None:
    c = Conversation()
    c.human("x")
    c.call("c1", "show_image", {})
    c.result("c1", "show_image", json.dumps({"filename": "../secret.png"}))
    c.answer("done")
    assert not [
        b for b in build_blocks(CID, WS, c.messages) if isinstance(b, ImageBlock)
    ]


def test_actions_carry_answer_and_fork_position_at_end_of_turn() -> None:
    messages = demo_like().messages
    actions = [
        b for b in build_blocks(CID, WS, messages) if isinstance(b, TurnActionsBlock)
    ]
    assert [(a.turn_index, a.fork_position) for a in actions] == [
        (0, 8),
        (1, 12),
        (2, 16),
    ]
    assert actions[0].answer_text == "## Done\n\nHere it is."


def test_failed_present_gives_error_card_and_no_deliverables() -> None:
    c = Conversation()
    c.human("x")
    c.call("c1", "present", {"files": [{"path": "a"}]})
    c.result("c1", "present", "present failed: a is missing", status="error")
    c.answer("Sorry.")
    blocks = build_blocks(CID, WS, c.messages)
    assert kinds(blocks) == ["User", "ToolCall", "AssistantText", "TurnActions"]
    assert blocks[1].state == "error"  # type: ignore[union-attr]


def test_unsupported_record_version_gives_one_unsupported_block() -> None:
    c = Conversation()
    c.human("x")
    c.call("c1", "present", {})
    c.result("c1", "present", "Presented", raw=record(3, version=7))
    c.answer("ok")
    cards = [
        b for b in build_blocks(CID, WS, c.messages) if isinstance(b, DeliverableBlock)
    ]
    assert len(cards) == 1
    assert cards[0].entry is None
    assert cards[0].unsupported is not None and cards[0].unsupported.version == 7


def test_the_card_count_comes_from_the_record_not_the_tool_text() -> None:
    c = Conversation()
    c.human("x")
    c.call("c1", "present", {})
    # The text says two, in another language; the record holds three files.
    c.result("c1", "present", "Deux fichiers présentés", raw=record(3))
    c.call("c2", "present", {})
    c.result("c2", "present", "Presented 9 files", raw=record(3, version=7))
    c.answer("ok")
    tools = [
        b for b in build_blocks(CID, WS, c.messages) if isinstance(b, ToolCallBlock)
    ]
    assert [t.file_count for t in tools] == [3, None]


def test_turn_without_final_answer_has_running_call_and_no_actions() -> None:
    c = Conversation()
    c.human("x")
    c.call("c1", "present", {}, text="Let me present.")
    blocks = build_blocks(CID, WS, c.messages)
    assert kinds(blocks) == ["User", "AssistantText", "ToolCall"]
    assert blocks[1] == AssistantTextBlock("Let me present.", False)
    assert blocks[2].state == "running"  # type: ignore[union-attr]


def test_incremental_add_gives_the_same_blocks_as_a_bulk_build() -> None:
    messages = demo_like().messages
    builder = BlockBuilder(CID, WS)
    mirror: list[Any] = []
    for stored in messages:
        splice = builder.add(stored)
        mirror[splice.start : splice.start + splice.removed] = splice.blocks
    assert mirror == builder.blocks == build_blocks(CID, WS, messages)


def test_incremental_add_reports_only_the_changed_tail() -> None:
    c = demo_like()
    builder = BlockBuilder(CID, WS)
    builder.extend(c.messages[:-1])
    before = len(builder.blocks)
    splice = builder.add(c.messages[-1])  # the final answer of the last turn
    assert splice.start == before
    assert splice.removed == 0
    assert kinds(list(splice.blocks)) == ["AssistantText"] + ["Deliverable"] * 5 + [
        "TurnActions"
    ]


def test_loading_newest_turns_first_then_older_ones_gives_all_blocks() -> None:
    messages = demo_like().messages
    builder = BlockBuilder(CID, WS)
    builder.load(messages, newest_turns=1)
    assert isinstance(builder.blocks[0], UserBlock)
    assert builder.older_turns == 2
    while builder.older_turns:
        builder.prepend(builder.build_older(1))
    assert builder.blocks == build_blocks(CID, WS, messages)
    # The live turn keeps working after older turns were put in front.
    c = Conversation()
    c.messages = list(messages)
    c.human("more")
    splice = builder.add(c.messages[-1])
    assert splice.start == len(builder.blocks) - 1
