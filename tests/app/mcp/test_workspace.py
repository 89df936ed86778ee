"""Which folder an MCP call works in: roots first, then --workspace, then the cwd."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.mcp.workspace import (
    Fallback,
    RootError,
    choose_workspace,
    root_folder,
    usable_roots,
)


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "first", tmp_path / "second folder"
    first.mkdir()
    second.mkdir()
    (second / "only-here.md").write_text("x")
    return first, second


def test_a_file_root_is_its_folder(roots: tuple[Path, Path]) -> None:
    _first, second = roots
    assert root_folder(second.as_uri()) == second  # spaces are %20 in the URI
    assert root_folder("file://localhost" + second.as_uri()[7:]) == second


@pytest.mark.parametrize(
    ("uri", "why"),
    [
        ("https://example.com/repo", "not a local folder"),
        ("vscode-remote://ssh-remote+box/home/me", "not a local folder"),
        ("file://otherhost/home/me", "on another host"),
        ("file:relative/path", "not a full path"),
        ("file:///no/such/folder/anywhere", "not a folder"),
    ],
)
def test_other_roots_are_refused_with_the_reason(uri: str, why: str) -> None:
    with pytest.raises(RootError, match=why):
        root_folder(uri)


def test_unusable_roots_are_skipped_but_all_unusable_is_an_error(
    roots: tuple[Path, Path],
) -> None:
    first, _second = roots
    assert usable_roots(["https://x.org/r", first.as_uri()]) == [first]
    assert usable_roots([]) == []
    with pytest.raises(RootError, match="not a local folder"):
        usable_roots(["https://x.org/r"])


def test_the_first_root_holding_every_path_is_the_workspace(
    roots: tuple[Path, Path], tmp_path: Path
) -> None:
    first, second = roots
    fallback = Fallback(None, tmp_path)

    def call(*paths: str) -> dict[str, object]:
        return {"files": [{"path": p, "description": "d"} for p in paths]}

    both = [first, second]
    assert choose_workspace(both, call("only-here.md"), fallback) == second
    assert (
        choose_workspace(both, call(str(second / "only-here.md")), fallback) == second
    )
    assert choose_workspace(both, call("nowhere.md"), fallback) == first
    assert choose_workspace(both, call(str(tmp_path / "x")), fallback) == first
    assert choose_workspace(both, {"files": "nonsense"}, fallback) == first


def test_without_roots_the_workspace_option_wins_over_the_cwd(tmp_path: Path) -> None:
    option, cwd = tmp_path / "option", tmp_path / "cwd"

    assert choose_workspace([], None, Fallback(option, cwd)) == option
    assert choose_workspace([], None, Fallback(None, cwd)) == cwd
