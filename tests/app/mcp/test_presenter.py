"""An MCP client's calls without the SDK: checked, stored as turns, window told."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.chat.blocks import DeliverableBlock, ImageBlock, build_blocks
from app.core.store import Store
from app.core.trust.policy import PermissionMode
from app.core.trust.records import Record, parse_record
from app.mcp.presenter import Presenter
from app.mcp.workspace import Fallback


def files(*paths: str) -> dict[str, object]:
    return {"files": [{"path": p, "description": f"about {p}"} for p in paths]}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\n")
    (root / "data.csv").write_text("a,b\n")
    return root


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "data") as opened:
        yield opened


@pytest.fixture
def opened() -> list[str]:
    return []


@pytest.fixture
def presenter(
    store: Store, tmp_path: Path, workspace: Path, opened: list[str]
) -> Iterator[Presenter]:
    result = Presenter(
        store,
        tmp_path / "data",
        mode=PermissionMode.WORKSPACE_ONLY,
        fallback=Fallback(None, workspace),
        client="codex",
        open_window=opened.append,
    )
    result.set_client("codex-mcp-client")
    yield result
    result.close()


def test_each_presentation_is_a_turn_of_one_conversation(
    presenter: Presenter, store: Store, workspace: Path
) -> None:
    first = presenter.present(files("notes.md"))
    second = presenter.present(files("data.csv", "notes.md"))

    assert not first.is_error and not second.is_error
    assert second.structured == {"presented": ["data.csv", "notes.md"], "count": 2}
    (conversation,) = store.conversations()
    assert conversation.title == f"Codex — {workspace}"
    blocks = build_blocks(
        conversation.id, conversation.workspace, store.messages(conversation.id)
    )
    cards = [
        b.entry.name for b in blocks if isinstance(b, DeliverableBlock) and b.entry
    ]
    assert cards == ["notes.md", "data.csv", "notes.md"]


def test_a_conversation_deleted_in_the_window_is_started_again(
    presenter: Presenter, store: Store
) -> None:
    presenter.present(files("notes.md"))
    (first,) = store.conversations()
    store.delete_conversation(first.id)

    reply = presenter.present(files("data.csv"))

    assert not reply.is_error
    (second,) = store.conversations()
    assert second.id != first.id
    assert store.messages(second.id)[0].message["type"] == "human"


def test_the_stored_call_holds_only_what_was_checked(
    presenter: Presenter, store: Store
) -> None:
    arguments = files("notes.md")
    arguments["extra"] = float("nan")  # not JSON the store would keep

    assert not presenter.present(arguments).is_error

    (conversation,) = store.conversations()
    call = store.messages(conversation.id)[1].message["data"]["tool_calls"][0]
    assert call["args"] == {
        "files": [{"path": "notes.md", "description": "about notes.md"}]
    }


def test_a_failed_call_stores_nothing_and_says_why(
    presenter: Presenter, store: Store
) -> None:
    reply = presenter.present(files("notes.md", "missing.md"))

    assert reply.is_error and reply.structured is None
    assert "'missing.md': missing" in reply.text
    assert store.conversations() == []


def test_roots_that_are_not_local_folders_refuse_every_call(
    presenter: Presenter, store: Store
) -> None:
    presenter.set_roots(["https://example.com/repo"])

    reply = presenter.present(files("notes.md"))

    assert reply.is_error and "not a local folder" in reply.text
    assert not presenter.offers_show_image()
    assert store.conversations() == []


def test_a_second_root_gets_a_conversation_of_its_own(
    presenter: Presenter, store: Store, workspace: Path
) -> None:
    other = workspace / "other"
    other.mkdir()
    (other / "plan.md").write_text("plan")
    presenter.set_roots([workspace.as_uri(), other.as_uri()])

    presenter.present(files("notes.md"))
    presenter.present(files("plan.md"))

    titles = sorted(c.title for c in store.conversations())
    assert titles == sorted([f"Codex — {other}", f"Codex — {workspace}"])
    for conversation in store.conversations():
        (message,) = [
            m for m in store.messages(conversation.id) if m.record is not None
        ]
        assert message.record is not None
        record = parse_record(message.record.raw)
        assert isinstance(record, Record)
        assert record.workspace == conversation.workspace


def test_an_image_shown_is_a_turn_the_chat_shows_inline(
    presenter: Presenter, store: Store, workspace: Path
) -> None:
    (workspace / "public").mkdir()
    (workspace / "public" / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    assert presenter.offers_show_image()

    reply = presenter.show_image({"filename": "chart.png", "alt_text": "A chart"})

    assert not reply.is_error and reply.structured is None
    (conversation,) = store.conversations()
    blocks = build_blocks(
        conversation.id, conversation.workspace, store.messages(conversation.id)
    )
    (image,) = [b for b in blocks if isinstance(b, ImageBlock)]
    assert image.alt_text == "A chart"
    assert image.public_path == str(workspace.resolve() / "public" / "chart.png")


def test_without_a_window_the_first_presentation_may_start_one_once(
    presenter: Presenter, store: Store, opened: list[str]
) -> None:
    presenter.present(files("notes.md"))
    presenter.present(files("data.csv"))
    presenter.close()  # the notices are sent off the call's path

    (conversation,) = store.conversations()
    assert opened == [conversation.id]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can list every folder")
def test_a_public_folder_that_cannot_be_listed_offers_no_image(
    presenter: Presenter, workspace: Path
) -> None:
    public = workspace / "public"
    public.mkdir()
    (public / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    public.chmod(0)
    try:
        assert not presenter.offers_show_image()
    finally:
        public.chmod(0o700)


def test_a_root_beyond_the_boundary_refuses_calls_until_the_user_approves_it(
    presenter: Presenter, store: Store, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "plan.md").write_text("plan")
    presenter.set_roots([other.as_uri()])

    refused = presenter.present(files("plan.md"))

    assert refused.is_error
    assert refused.text.startswith(
        f"The client's workspace root {other} is outside {workspace}"
    )
    assert "approve the folder for Codex" in refused.text
    assert not presenter.offers_show_image()
    assert store.conversations() == []
    # Approvals are read at each check: no new roots are needed.
    store.approve_folder("Codex", str(other))
    assert not presenter.present(files("plan.md")).is_error
    (conversation,) = store.conversations()
    assert conversation.workspace == str(other)


def test_an_approval_for_another_client_does_not_count(
    presenter: Presenter, store: Store, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "plan.md").write_text("plan")
    # What the client calls itself is not whom the approval was given to.
    presenter.set_client("claude-code")
    store.approve_folder("Claude Code", str(other))
    presenter.set_roots([other.as_uri()])

    assert presenter.present(files("plan.md")).is_error


def test_roots_inside_the_boundary_narrow_it_without_asking(
    presenter: Presenter, store: Store, workspace: Path
) -> None:
    inner = workspace / "inner"
    inner.mkdir()
    (inner / "notes.md").write_text("inner notes")
    presenter.set_roots([inner.as_uri()])

    assert not presenter.present(files("notes.md")).is_error

    (conversation,) = store.conversations()
    assert conversation.workspace == str(inner)


def _session(store: Store, tmp_path: Path, workspace: Path, client: str) -> Presenter:
    """A new ``deliverables mcp`` process for ``client``: one client session."""
    return Presenter(
        store,
        tmp_path / "data",
        mode=PermissionMode.WORKSPACE_ONLY,
        fallback=Fallback(None, workspace),
        client=client,
    )


def _present_in_new_session(
    store: Store, tmp_path: Path, workspace: Path, client: str = "codex"
) -> None:
    session = _session(store, tmp_path, workspace, client)
    try:
        assert not session.present(files("notes.md")).is_error
    finally:
        session.close()


def test_sessions_of_one_client_in_one_folder_continue_one_conversation(
    store: Store, tmp_path: Path, workspace: Path
) -> None:
    for _ in range(3):
        _present_in_new_session(store, tmp_path, workspace)
    _present_in_new_session(store, tmp_path, workspace, client="claude-code")

    titles = sorted(c.title for c in store.conversations())
    assert titles == [f"Claude Code — {workspace}", f"Codex — {workspace}"]
    codex = next(c for c in store.conversations() if c.title.startswith("Codex"))
    presented = [m for m in store.messages(codex.id) if m.record is not None]
    assert len(presented) == 3


def test_a_new_session_starts_a_new_conversation_when_the_user_asked(
    store: Store, tmp_path: Path, workspace: Path
) -> None:
    from app.core.store.client_conversations import (
        ConversationRule,
        set_conversation_rule,
    )

    set_conversation_rule(store, ConversationRule(new_per_session=True))
    session = _session(store, tmp_path, workspace, "codex")
    session.present(files("notes.md"))
    session.present(files("data.csv"))  # the same session: the same conversation
    session.close()
    _present_in_new_session(store, tmp_path, workspace)

    assert len(store.conversations()) == 2


def test_a_gap_the_settings_name_starts_a_new_conversation(
    store: Store, tmp_path: Path, workspace: Path
) -> None:
    from datetime import UTC, datetime, timedelta

    from app.core.store.client_conversations import (
        ConversationRule,
        continued_conversation,
        set_conversation_rule,
    )

    set_conversation_rule(store, ConversationRule(gap=timedelta(hours=8)))
    _present_in_new_session(store, tmp_path, workspace)
    (first,) = store.conversations()
    client, folder = "Codex", os.fspath(workspace.resolve())
    soon = datetime.now(UTC) + timedelta(hours=7)
    later = datetime.now(UTC) + timedelta(hours=9)

    assert continued_conversation(store, client, folder, "next", soon) == first.id
    assert continued_conversation(store, client, folder, "next", later) is None


def test_a_deleted_conversation_is_not_continued(
    store: Store, tmp_path: Path, workspace: Path
) -> None:
    _present_in_new_session(store, tmp_path, workspace)
    (first,) = store.conversations()
    store.delete_conversation(first.id)

    _present_in_new_session(store, tmp_path, workspace)

    (second,) = store.conversations()
    assert second.id != first.id
