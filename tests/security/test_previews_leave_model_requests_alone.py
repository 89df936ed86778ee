"""Opening previews changes nothing the model sees: tools and prompt stay byte-equal."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import AIMessage, ToolCall

from app.agent.models import RecordingChatModel
from app.agent.runner import AgentRunner
from app.agent.tools import AgentSession
from app.core.store import Store
from app.core.trust.policy import load_policy
from app.ui.workspace.widget import WorkspaceWidget
from app.workspace.choose import local_workspace


def test_tool_list_and_prompt_are_identical_after_opening_previews(qtbot, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.md").write_text("# Notes\n")
    (workspace / "data.csv").write_text("a,b\n1,2\n")
    call = ToolCall(
        id="call_1",
        name="present",
        args={"files": [{"path": "notes.md", "description": "Notes"}]},
        type="tool_call",
    )
    model = RecordingChatModel(
        replies=[
            AIMessage(content="", tool_calls=[call]),
            AIMessage(content="Here are your notes."),
            AIMessage(content="Still here."),
        ]
    )
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("Stable prefix", str(workspace))
    runner = AgentRunner(
        store, conversation.id, model, AgentSession(local_workspace(workspace))
    )
    runner.run("Write notes")

    viewer = WorkspaceWidget(lambda: load_policy(workspace=workspace))
    qtbot.addWidget(viewer)
    viewer.set_root(Path(workspace))
    for name in ("notes.md", "data.csv"):
        assert viewer.open_path(str(workspace / name))
        qtbot.waitUntil(viewer.is_loaded, timeout=10_000)
    assert viewer.tab_count() == 2

    runner.run("Thanks")
    first, last = model.requests[0], model.requests[-1]
    assert len(model.requests) == 3
    assert last.tools_text() == first.tools_text()
    assert last.system_prompt == first.system_prompt
    viewer.shutdown()
    store.close()
