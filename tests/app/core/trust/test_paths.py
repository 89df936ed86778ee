"""Containment and resolving: one answer to "is this path inside that folder"."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.trust.paths import (
    folder_path_problem,
    image_target,
    is_within,
    resolve_keep_leaf,
)


def test_is_within_compares_whole_names() -> None:
    assert is_within("/a/b/c", "/a/b")
    assert is_within("/a/b", "/a/b")
    assert is_within("/a/b/c", "/a/b/")
    assert not is_within("/a/bc", "/a/b")
    assert not is_within("/a", "/a/b")
    assert not is_within("/a/b", "")
    assert is_within("/anything", "/")


def test_is_within_can_leave_out_the_root_itself() -> None:
    assert not is_within("/a/b", "/a/b", allow_root=False)
    assert not is_within("/a/b", "/a/b/", allow_root=False)
    assert is_within("/a/b/c", "/a/b", allow_root=False)


def test_is_within_compares_with_the_separator_of_the_paths_system() -> None:
    # A remote host's paths use "/" whatever this computer uses; another
    # system's separator is not a name character of this one's paths.
    assert is_within("/srv/app/log.txt", "/srv/app/", sep="/")
    assert not is_within("/srv/application", "/srv/app", sep="/")
    assert is_within("C:\\work\\out.txt", "C:\\work", sep="\\")
    assert not is_within("C:\\work\\out.txt", "C:\\work", sep="/")
    assert not is_within("/srv/app/log.txt", "", sep="/")


def test_resolve_keep_leaf_resolves_folders_but_not_the_last_name(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "via").symlink_to(real)
    (real / "leaf").symlink_to(real / "target")
    resolved = resolve_keep_leaf(str(tmp_path / "via" / "leaf"))
    assert resolved == os.path.join(os.path.realpath(real), "leaf")


def test_image_target_stays_inside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "notes").mkdir(parents=True)
    folder = str(root / "notes")
    inside = image_target("figure.png", folder, str(root))
    assert inside.path == os.path.join(os.path.realpath(folder), "figure.png")
    assert image_target("../../secret.png", folder, str(root)).path is None
    assert image_target("https://x.org/a.png", folder, str(root)).path is None
    assert image_target("file:///etc/hosts", folder, str(root)).path is None
    assert image_target("data:image/png;base64,AAAA", folder, str(root)).path is None
    file_url = f"file://{root}/notes/a%20b.png"
    assert image_target(file_url, folder, str(root)).path == os.path.join(
        os.path.realpath(folder), "a b.png"
    )


def test_image_target_resolves_folder_links_before_the_root_check(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "escape").symlink_to(outside)
    assert image_target("escape/a.png", str(root), str(root)).path is None


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("/home/me/proj", None),
        ("/home/me/proj/", None),  # how many clients write a folder
        ("/", "is the root of the file system"),
        ("//", "is the root of the file system"),
        ("/home/me/../../etc", "is not in plain form"),
        ("/home/./me", "is not in plain form"),
        ("/home//me", "is not in plain form"),
        ("/home/me/..", "is not in plain form"),
        ("home/me", "is not a full path"),
        ("", "is not a full path"),
        ("/home/me\0/x", "holds a NUL character"),
    ],
)
def test_a_workspace_folder_must_be_named_plainly_and_not_be_everything(
    path: str, problem: str | None
) -> None:
    found = folder_path_problem(path)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem)
