"""What reaches the model: no host records, a stable prefix, gated show_image."""

from __future__ import annotations

import json
import re
from pathlib import Path

from app.agent.models import RecordingChatModel
from app.agent.runner import AgentRunner
from app.agent.tools import SYSTEM_PROMPT, AgentSession
from app.core.store import Store
from app.core.trust.policy import PermissionMode
from app.core.trust.records import Record, parse_record

from .scripts import answer, present, tool_calls


def test_no_record_field_reaches_any_model_request(
    store: Store, session: AgentSession, workspace: Path
) -> None:
    (workspace / "public").mkdir()
    (workspace / "public" / "logo.png").write_bytes(b"\x89PNG fake")
    model = RecordingChatModel(
        replies=[
            present("call-p1", "report/index.html", "notes.md"),
            answer("Here is the report."),
            tool_calls(("call-img", "show_image", {"filename": "logo.png"})),
            answer("Here is the logo."),
            answer("You are welcome."),
        ]
    )
    conversation = store.create_conversation("t", str(workspace))
    runner = AgentRunner(store, conversation.id, model, session)
    for text in ("Make a report", "Show the logo", "Thanks"):
        runner.run(text)

    raw = store.record(conversation.id, "call-p1")
    assert raw is not None
    record = parse_record(raw.raw)
    assert isinstance(record, Record)
    secrets = [raw.raw, str(workspace.resolve() / "public" / "logo.png")]
    for entry in record.files:
        secrets += [entry.resolved, str(entry.mtime_ns)]
    numbers = [n for entry in record.files for n in (entry.inode, entry.device)]
    assert len(model.requests) == 5
    for request in model.requests:
        text = request.as_text()
        for secret in secrets:
            assert secret not in text
        for number in numbers:
            assert not re.search(rf"(?<![\w.-]){number}(?![\w.-])", text)
    # The last request did carry both tool results, only without their artifacts.
    tool_results = [
        message["data"]["content"]
        for message in model.requests[-1].messages
        if message["type"] == "tool"
    ]
    assert tool_results[0].startswith("Presented 2 files")
    assert json.loads(tool_results[1])["action"] == "image"


def test_tools_and_system_prompt_are_identical_across_permission_modes(
    store: Store, session: AgentSession, workspace: Path
) -> None:
    model = RecordingChatModel(replies=[answer("one"), answer("two"), answer("3")])
    conversation = store.create_conversation("t", str(workspace))
    runner = AgentRunner(store, conversation.id, model, session)

    runner.run("first")
    session.permission.set(PermissionMode.ALLOW_EXTERNAL)
    runner.run("second")
    session.permission.set(PermissionMode.WORKSPACE_ONLY)
    runner.run("third")

    prefixes = {
        (request.tools_text(), request.system_prompt) for request in model.requests
    }
    assert len(model.requests) == 3
    assert prefixes == {(model.requests[0].tools_text(), SYSTEM_PROMPT)}


def test_show_image_is_offered_only_while_a_public_file_exists(
    store: Store, session: AgentSession, workspace: Path
) -> None:
    model = RecordingChatModel(replies=[answer("a"), answer("b")])
    conversation = store.create_conversation("t", str(workspace))
    runner = AgentRunner(store, conversation.id, model, session)

    runner.run("no public files yet")
    (workspace / "public").mkdir()
    (workspace / "public" / "notes.pdf").write_bytes(b"%PDF")
    runner.run("now there is one")

    without, with_public = (request.tool_names for request in model.requests)
    assert without == ["list_files", "read_file", "write_file", "present"]
    assert with_public == [*without, "show_image"]
