"""A store seeded by the real writers: the app's agent, an MCP client, an import."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.agent.models import ScriptedChatModel
from app.agent.runner import AgentRunner
from app.agent.tools import AgentSession
from app.core.store import Store
from app.core.trust.policy import PermissionMode, Policy, load_policy
from app.importers.session import import_transcript
from app.mcp.presenter import Presenter
from app.mcp.workspace import Fallback
from app.workspace.choose import local_workspace

from ...agent.scripts import answer, present, tool_calls

__all__ = [
    "agent_script",
    "agent_turn",
    "answer",
    "claude_import",
    "mcp_present",
    "present",
    "quiet_policy",
    "report_in_two_turns",
    "report_with_a_turn_between",
    "workspace_with_files",
    "write_file",
]
from ...importers.transcripts import ClaudeSession, text, tool_use


def workspace_with_files(root: Path, *names: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"{name}\n")
    return root


def quiet_policy(workspace: Path, tmp_path: Path) -> Policy:
    # The user's real policy file must not influence tests.
    return load_policy(
        workspace=workspace,
        user_file=tmp_path / "no-user-policy.toml",
        home=str(tmp_path / "home"),
    )


def agent_turn(
    store: Store, workspace: Path, tmp_path: Path, *turns: tuple[str, ...]
) -> str:
    """One conversation of the app's agent presenting each group of paths."""
    session = AgentSession(
        workspace=local_workspace(workspace),
        policy_loader=lambda: quiet_policy(workspace, tmp_path),
    )
    conversation = store.create_conversation("Agent work", str(workspace))
    replies = []
    for number, paths in enumerate(turns):
        replies += [present(f"call-{number}", *paths), answer("Done.")]
    runner = AgentRunner(
        store, conversation.id, ScriptedChatModel(replies=replies), session
    )
    for paths in turns:
        runner.run(f"Make {', '.join(paths)}", lambda _event: None)
    return conversation.id


def agent_script(
    store: Store, workspace: Path, tmp_path: Path, turns: list[list[Any]]
) -> str:
    """One conversation of the app's agent replying with each turn's script."""
    session = AgentSession(
        workspace=local_workspace(workspace),
        policy_loader=lambda: quiet_policy(workspace, tmp_path),
    )
    conversation = store.create_conversation("Agent edits", str(workspace))
    replies = [reply for turn in turns for reply in turn]
    model = ScriptedChatModel(replies=replies)
    runner = AgentRunner(store, conversation.id, model, session)
    for number in range(len(turns)):
        runner.run(f"Turn {number}", lambda _event: None)
    return conversation.id


def report_in_two_turns(
    store: Store, workspace: Path, tmp_path: Path, first: str, second: str
) -> str:
    """The agent writes and presents report.md, then rewrites and presents it."""
    return agent_script(
        store,
        workspace,
        tmp_path,
        [
            [
                write_file("w1", "report.md", first),
                present("p1", "report.md"),
                answer("Here it is."),
            ],
            [
                write_file("w2", "report.md", second),
                present("p2", "report.md"),
                answer("Updated."),
            ],
        ],
    )


def report_with_a_turn_between(
    store: Store, workspace: Path, tmp_path: Path, texts: tuple[str, str, str]
) -> str:
    """report.md presented, rewritten in a turn that presents nothing (which
    also writes notes.md), then rewritten and presented again."""
    first, second, third = texts
    return agent_script(
        store,
        workspace,
        tmp_path,
        [
            [
                write_file("w1", "report.md", first),
                present("p1", "report.md"),
                answer("Here it is."),
            ],
            [
                write_file("w2", "report.md", second),
                write_file("n2", "notes.md", "Ask about May.\n"),
                answer("Noted."),
            ],
            [
                write_file("w3", "report.md", third),
                present("p3", "report.md"),
                answer("Updated."),
            ],
        ],
    )


def write_file(call_id: str, path: str, content: str) -> Any:
    return tool_calls((call_id, "write_file", {"path": path, "content": content}))


def mcp_present(
    store: Store, data_dir: Path, workspace: Path, client: str, *paths: str
) -> None:
    """An MCP client registered as ``client`` presenting ``paths``."""
    presenter = Presenter(
        store,
        data_dir,
        mode=PermissionMode.WORKSPACE_ONLY,
        fallback=Fallback(None, workspace),
        client=client,
        open_window=lambda _id: None,
    )
    try:
        files = [{"path": p, "description": f"about {p}"} for p in paths]
        reply = presenter.present({"files": files})
        assert not reply.is_error, reply.text
    finally:
        presenter.close()


def claude_import(store: Store, repo: Path, *names: str) -> str:
    """A Claude Code session that wrote ``names`` in ``repo``, imported."""
    session = ClaudeSession(str(repo))
    session.user("Write the files")
    for number, name in enumerate(names):
        target = str(repo / name)
        session.assistant(
            tool_use(f"toolu_{number}", "Write", file_path=target, content="x\n")
        )
        session.result(
            f"toolu_{number}",
            "ok",
            {"type": "create", "filePath": target, "content": "x\n"},
        )
    session.assistant(text("All done."))
    transcript = session.write(repo.parent / "session.jsonl")
    return import_transcript(
        store, str(transcript), workspace=str(repo)
    ).conversation_id
