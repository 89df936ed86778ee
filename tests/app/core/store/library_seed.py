"""A store seeded by the real writers: the app's agent, an MCP client, an import."""

from __future__ import annotations

from pathlib import Path

from app.agent.models import ScriptedChatModel
from app.agent.runner import AgentRunner
from app.agent.tools import AgentSession
from app.core.store import Store
from app.core.trust.policy import PermissionMode, Policy, load_policy
from app.importers.session import import_transcript
from app.mcp.presenter import Presenter
from app.mcp.workspace import Fallback

from ...agent.scripts import answer, present
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
        workspace=workspace, policy_loader=lambda: quiet_policy(workspace, tmp_path)
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
