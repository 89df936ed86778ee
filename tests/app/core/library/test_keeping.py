"""Saving copies of library items: checked as cards are, clashes numbered."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.library.keeping import free_name, save_copies
from app.core.store import Store
from app.core.store.library import Library, LibraryFilter
from app.core.trust.policy import Policy

from ..store.library_seed import (
    agent_turn,
    claude_import,
    quiet_policy,
    workspace_with_files,
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "data") as opened:
        yield opened


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = workspace_with_files(tmp_path / "ws", "report.md", "a/notes.md", "b/notes.md")
    (ws / "a" / "notes.md").write_text("from a\n")
    (ws / "b" / "notes.md").write_text("from b\n")
    return ws


def policy_for(workspace: Path, tmp_path: Path):
    def policy(_workspace: str) -> Policy:
        return quiet_policy(workspace, tmp_path)

    return policy


def test_free_names_number_clashes_as_file_managers_do(tmp_path: Path) -> None:
    (tmp_path / "report.md").write_text("there")
    taken: set[str] = set()

    assert free_name(str(tmp_path), "report.md", taken) == "report (2).md"
    assert free_name(str(tmp_path), "report.md", taken) == "report (3).md"
    assert free_name(str(tmp_path), "Makefile", taken) == "Makefile"
    assert free_name(str(tmp_path), "Makefile", taken) == "Makefile (2)"
    assert free_name(str(tmp_path), ".env", taken) == ".env"
    assert free_name(str(tmp_path), "../../escape", taken) == ".._.._escape"
    assert free_name(str(tmp_path), "..", taken) == "file"


def test_several_items_are_saved_with_clashing_names_numbered(
    store: Store, workspace: Path, tmp_path: Path
) -> None:
    agent_turn(store, workspace, tmp_path, ("report.md", "a/notes.md", "b/notes.md"))
    items = Library(store).items(LibraryFilter())
    target = tmp_path / "kept"
    target.mkdir()
    (target / "report.md").write_text("the user's own file\n")

    kept = save_copies(store, items, str(target), policy_for(workspace, tmp_path))

    assert [k.reason for k in kept] == ["", "", ""]
    assert sorted(os.listdir(target)) == [
        "notes (2).md",
        "notes.md",
        "report (2).md",
        "report.md",
    ]
    assert (target / "report.md").read_text() == "the user's own file\n"
    assert (target / "notes.md").read_text() == "from a\n"
    assert (target / "notes (2).md").read_text() == "from b\n"


def test_a_swapped_file_and_an_unverified_import_are_refused_not_copied(
    store: Store, workspace: Path, tmp_path: Path
) -> None:
    agent_turn(store, workspace, tmp_path, ("report.md",))
    repo = workspace_with_files(tmp_path / "home" / "repo", "fix.py")
    claude_import(store, repo, "fix.py")
    (workspace / "report.md").unlink()
    secret = tmp_path / "secret.txt"
    secret.write_text("secret\n")
    os.symlink(secret, workspace / "report.md")
    target = tmp_path / "kept"
    target.mkdir()

    kept = save_copies(
        store,
        Library(store).items(LibraryFilter()),
        str(target),
        policy_for(workspace, tmp_path),
    )

    assert [k.target for k in kept] == [None, None]
    assert all(k.reason for k in kept)
    assert os.listdir(target) == []
