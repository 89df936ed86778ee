"""A workspace widget over a small generated folder, shut down after each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.trust.policy import Policy, Rule, load_policy
from app.ui.workspace import WorkspaceWidget


class PolicyBox:
    """The policy in force; tests add rules to it between actions."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.extra: list[str] = []

    def __call__(self) -> Policy:
        base = load_policy(workspace=self.root, user_file=self.root / "none.toml")
        return Policy([*base.rules, *(Rule(p, "test") for p in self.extra)])


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "project"
    (base / "docs").mkdir(parents=True)
    (base / "src").mkdir()
    (base / "docs" / "guide.md").write_text("# Guide\n")
    (base / "src" / "main.py").write_text("print('hello')\n")
    (base / "notes.txt").write_text("first notes\n")
    (base / ".env").write_text("TOKEN=1\n")
    (base / ".hidden").write_text("quiet\n")
    (base / "link.txt").symlink_to(base / "notes.txt")
    return base


@pytest.fixture
def policy(root: Path) -> PolicyBox:
    return PolicyBox(root)


@pytest.fixture
def workspace(qtbot: QtBot, root: Path, policy: PolicyBox) -> Iterator[WorkspaceWidget]:
    widget = WorkspaceWidget(policy)
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.set_root(root)
    yield widget
    widget.shutdown()
