"""Public files: what counts as one, image listing, and short-lived links."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.trust.policy import Policy, builtin_rules
from app.core.trust.public_files import (
    LinkRegistry,
    has_public_files,
    public_images,
)


@pytest.fixture
def policy(tmp_path: Path) -> Policy:
    return Policy(builtin_rules(), home=str(tmp_path / "home"))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "public").mkdir(parents=True)
    return root


def test_workspace_without_public_folder_has_no_public_files(
    tmp_path: Path, policy: Policy
) -> None:
    assert not has_public_files(tmp_path, policy)
    assert public_images(tmp_path, policy) == []


def test_images_are_listed_by_name_with_size_and_mime(
    workspace: Path, policy: Policy
) -> None:
    (workspace / "public" / "logo.PNG").write_bytes(b"x" * 5)
    (workspace / "public" / "diagram.svg").write_text("<svg/>")
    (workspace / "public" / "notes.pdf").write_bytes(b"%PDF")

    images = public_images(workspace, policy)

    assert [(i.name, i.size, i.mime) for i in images] == [
        ("diagram.svg", 6, "image/svg+xml"),
        ("logo.PNG", 5, "image/png"),
    ]
    assert images[1].path == workspace / "public" / "logo.PNG"


def test_a_non_image_file_still_counts_as_a_public_file(
    workspace: Path, policy: Policy
) -> None:
    (workspace / "public" / "notes.pdf").write_bytes(b"%PDF")

    assert has_public_files(workspace, policy)
    assert public_images(workspace, policy) == []


def test_symlinks_folders_nested_and_denied_files_are_not_public(
    workspace: Path, policy: Policy, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.png"
    outside.write_bytes(b"png")
    os.symlink(outside, workspace / "public" / "link.png")
    (workspace / "public" / "folder.png").mkdir()
    (workspace / "public" / "sub").mkdir()
    (workspace / "public" / "sub" / "deep.png").write_bytes(b"png")
    (workspace / "public" / "server.key").write_bytes(b"key")

    assert not has_public_files(workspace, policy)


def test_a_symlinked_public_folder_is_not_followed(
    tmp_path: Path, policy: Policy
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "photo.png").write_bytes(b"png")
    root = tmp_path / "ws"
    root.mkdir()
    os.symlink(elsewhere, root / "public")

    assert not has_public_files(root, policy)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_link_resolves_to_its_file_until_it_expires(tmp_path: Path) -> None:
    clock = FakeClock()
    links = LinkRegistry(ttl=600, clock=clock)
    path = tmp_path / "logo.png"

    url = links.issue(path)

    assert url.startswith("public://") and url.endswith("/logo.png")
    assert links.resolve(url) == path
    clock.now += 599
    assert links.resolve(url) == path
    clock.now += 1
    assert links.resolve(url) is None


def test_links_are_unguessable_and_distinct(tmp_path: Path) -> None:
    links = LinkRegistry()
    first = links.issue(tmp_path / "a.png")
    second = links.issue(tmp_path / "a.png")

    token = first.removeprefix("public://").split("/")[0]
    assert first != second
    assert len(token) >= 43  # 32 random bytes, URL-safe base64


def test_revoked_forged_or_renamed_links_do_not_resolve(tmp_path: Path) -> None:
    links = LinkRegistry()
    url = links.issue(tmp_path / "logo.png")
    token = url.removeprefix("public://").split("/")[0]

    assert links.resolve(f"public://{token}/other.png") is None
    assert links.resolve("public://made-up-token/logo.png") is None
    assert links.resolve(f"https://{token}/logo.png") is None
    assert links.revoke(url)
    assert links.resolve(url) is None
    assert not links.revoke(url)
