"""The demo plays three scripted turns through the real runner, the same each time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.agent.events import RunEvent, ToolCallFinished
from app.core.store import Store
from app.core.trust.policy import load_policy
from app.core.trust.public_files import LinkRegistry
from app.core.trust.records import Record, parse_record
from app.demo.conversation import DEMO_TITLE, MISSPELLED_REPORT, USER_TURNS, play_demo


def play(tmp_path: Path, name: str) -> tuple[Store, str, list[RunEvent], LinkRegistry]:
    store = Store(tmp_path / name / "data")
    workspace = tmp_path / name / "ws"
    events: list[RunEvent] = []
    links = LinkRegistry()
    conversation_id = play_demo(
        store,
        workspace,
        policy_loader=lambda: load_policy(
            workspace=workspace, user_file=tmp_path / "none.toml"
        ),
        links=links,
        on_event=events.append,
    )
    return store, conversation_id, events, links


def shape(message: dict[str, Any]) -> tuple[object, ...]:
    data = message["data"]
    calls = [(c["name"], c["id"]) for c in data.get("tool_calls", [])]
    return (message["type"], data.get("status"), tuple(calls))


def test_demo_plays_three_turns_with_a_failed_then_corrected_present(
    tmp_path: Path,
) -> None:
    store, conversation_id, events, links = play(tmp_path, "a")

    assert store.conversation(conversation_id).title == DEMO_TITLE
    stored = store.messages(conversation_id)
    humans = [
        m.message["data"]["content"] for m in stored if m.message["type"] == "human"
    ]
    assert humans == list(USER_TURNS)
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.name, e.status) for e in finished] == [
        ("list_files", "success"),
        ("read_file", "success"),
        ("present", "error"),
        ("present", "success"),
        ("show_image", "success"),
        ("present", "success"),
    ]
    assert MISSPELLED_REPORT in finished[2].content

    records = [m.record for m in stored if m.record is not None]
    assert [r.tool_call_id for r in records] == ["call_present_2", "call_present_3"]
    parsed = [parse_record(r.raw) for r in records]
    assert all(r.trusted for r in records)
    assert all(isinstance(p, Record) for p in parsed)
    assert [len(p.files) for p in parsed if isinstance(p, Record)] == [8, 5]

    image = json.loads(finished[4].content)
    assert (image["action"], image["filename"]) == ("image", "logo.png")
    assert links.resolve(image["src_url"]) is not None
    assert stored[-1].message["type"] == "ai"


def test_demo_is_deterministic_across_plays(tmp_path: Path) -> None:
    first_store, first_id, _, _ = play(tmp_path, "a")
    second_store, second_id, _, _ = play(tmp_path, "b")

    first = [shape(m.message) for m in first_store.messages(first_id)]
    second = [shape(m.message) for m in second_store.messages(second_id)]
    assert first == second
    assert len(first) == 18


def test_playing_again_keeps_one_demo_conversation_and_its_cards_unchanged(
    tmp_path: Path,
) -> None:
    from app.core.chat.blocks import DeliverableBlock, build_blocks
    from app.core.store.deliverables import look_up
    from app.core.trust.revalidate import revalidate

    store, first_id, _, _ = play(tmp_path, "a")
    workspace = tmp_path / "a" / "ws"
    policy = load_policy(workspace=workspace, user_file=tmp_path / "none.toml")

    second_id = play_demo(store, workspace)

    assert second_id == first_id
    assert [c.id for c in store.conversations()] == [first_id]
    blocks = build_blocks(first_id, str(workspace), store.messages(first_id))
    cards = [b for b in blocks if isinstance(b, DeliverableBlock) and b.entry]
    assert len(cards) == 13
    for card in cards:
        lookup = look_up(store, card.ref)
        assert lookup.entry is not None
        verdict = revalidate(lookup.entry, policy, trusted=lookup.trusted).verdict
        assert verdict.value == "ok", card.entry.name  # type: ignore[union-attr]


def test_playing_over_an_edited_demo_replaces_the_conversation(tmp_path: Path) -> None:
    store, first_id, _, _ = play(tmp_path, "a")
    workspace = tmp_path / "a" / "ws"
    (workspace / "data" / "sales.csv").write_text("edited\n")

    second_id = play_demo(store, workspace)

    assert second_id != first_id
    assert [c.id for c in store.conversations()] == [second_id]
    assert (workspace / "data" / "sales.csv").read_text().startswith("order_id")
