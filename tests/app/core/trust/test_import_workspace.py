"""An imported session's workspace: offered only when safe, chosen only if local."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.trust.import_workspace import (
    WorkspaceChoiceError,
    chosen_workspace,
    default_workspace,
)
from app.core.trust.policy import Policy, Rule, builtin_rules


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / "me"
    (folder / "repo").mkdir(parents=True)
    return folder


@pytest.fixture
def policy(home: Path) -> Policy:
    return Policy(
        [*builtin_rules(), Rule(str(home / "private") + "/", "user")], home=str(home)
    )


def test_an_existing_project_folder_is_offered_resolved(
    home: Path, policy: Policy, tmp_path: Path
) -> None:
    repo = str(home / "repo")
    os.symlink(repo, tmp_path / "link")
    assert default_workspace(repo, policy, str(home)) == repo
    assert default_workspace(str(tmp_path / "link"), policy, str(home)) == repo


@pytest.mark.parametrize(
    "claim",
    [
        "/",
        "",
        "relative/repo",
        "ssh://devbox/home/me/repo",
        "/no/such/folder",
    ],
)
def test_root_remote_relative_or_missing_claims_are_not_offered(
    home: Path, policy: Policy, claim: str
) -> None:
    assert default_workspace(claim, policy, str(home)) == ""


def test_the_home_folder_a_folder_above_it_or_a_denied_one_is_not_offered(
    home: Path, policy: Policy, tmp_path: Path
) -> None:
    (home / ".ssh").mkdir()
    (home / "private").mkdir()
    os.symlink(home, tmp_path / "home-link")
    for claim in (home, home.parent, tmp_path / "home-link", home / ".ssh"):
        assert default_workspace(str(claim), policy, str(home)) == "", claim
    assert default_workspace(str(home / "private"), policy, str(home)) == ""


def test_a_chosen_workspace_must_be_a_local_folder(home: Path, tmp_path: Path) -> None:
    assert chosen_workspace(str(home / "repo")) == str(home / "repo")
    (tmp_path / "file.txt").write_text("x")
    for bad in ("ssh://devbox/x", "repo", "", str(tmp_path / "file.txt"), "/a\0b"):
        with pytest.raises(WorkspaceChoiceError):
            chosen_workspace(bad)
