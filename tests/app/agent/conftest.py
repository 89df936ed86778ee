"""Shared fixtures for agent tests: a small workspace, its session and a store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.agent.tools import AgentSession
from app.core.store import Store
from app.core.trust.policy import Policy, load_policy
from app.workspace.choose import local_workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "report").mkdir(parents=True)
    (root / "report" / "index.html").write_text("<h1>Report</h1>")
    (root / "notes.md").write_text("# Notes\n")
    (root / "data.csv").write_text("a,b\n1,2\n")
    return root


@pytest.fixture
def session(workspace: Path, tmp_path: Path) -> AgentSession:
    # The user's real policy file must not influence tests.
    def policy_loader() -> Policy:
        return load_policy(
            workspace=workspace,
            user_file=tmp_path / "no-user-policy.toml",
            home=str(tmp_path / "home"),
        )

    return AgentSession(
        workspace=local_workspace(workspace), policy_loader=policy_loader
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "data") as opened:
        yield opened
