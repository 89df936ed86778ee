"""Which folder an MCP call works in: roots first, then --workspace, then the cwd.

Roots may only narrow the folder the user set; some are refused outright.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.mcp.workspace import (
    Fallback,
    RootError,
    RootRefusedError,
    beyond,
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


@pytest.mark.parametrize(
    ("uri", "why"),
    [
        ("file:///", "'/' is the root of the file system"),
        ("file:////", "is the root of the file system"),
        ("file://localhost{root}/..%2F..%2F", "hides a folder separator"),
        ("file://{root}/..%2f", "hides a folder separator"),
        ("file://{root}/%00", "hides a folder separator or a NUL"),
        ("file://{root}/../..", "is not in plain form"),
        ("file://{root}/%2E%2E/%2e%2e/", "is not in plain form"),
        ("file://{root}/./", "is not in plain form"),
        ("file://{root}//", "is not in plain form"),
    ],
)
def test_a_root_of_everything_or_of_hidden_steps_is_refused_outright(
    roots: tuple[Path, Path], uri: str, why: str
) -> None:
    first, _second = roots
    given = uri.format(root=first.as_posix())

    with pytest.raises(RootRefusedError, match=why):
        root_folder(given)
    # Not skipped as unusable: the whole declaration is refused.
    with pytest.raises(RootRefusedError):
        usable_roots([first.as_uri(), given])


def test_the_decoded_path_is_named_in_the_refusal(roots: tuple[Path, Path]) -> None:
    first, _second = roots

    with pytest.raises(RootRefusedError) as refused:
        root_folder(f"file://localhost{first.as_posix()}/..%2F..%2F")

    assert f"decodes to '{first.as_posix()}/../../'" in str(refused.value)


def test_roots_beyond_the_allowed_folders_are_named_where_they_lead(
    tmp_path: Path,
) -> None:
    project, other = tmp_path / "proj", tmp_path / "other"
    (project / "inner").mkdir(parents=True)
    other.mkdir()
    (project / "door").symlink_to(other)
    allowed = [str(project.resolve())]

    assert beyond([project, project / "inner"], allowed) == []
    assert beyond([project / "door", other], allowed) == [str(other.resolve())] * 2
    assert beyond([other], [*allowed, str(other.resolve())]) == []
    assert beyond([tmp_path / "proj-2"], allowed) == [str(tmp_path / "proj-2")]


def test_the_boundary_is_the_option_else_the_cwd_resolved(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)

    assert Fallback(None, tmp_path / "link").boundary() == str(real)
    assert Fallback(real, tmp_path).boundary() == str(real)
