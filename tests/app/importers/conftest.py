"""Shared fixtures for importer tests: a store and a session folder with files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.store import Store
from app.core.trust.policy import Policy, load_policy


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "data") as opened:
        yield opened


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / "me" / "repo"
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def policy(repo: Path, tmp_path: Path) -> Policy:
    # The user's real policy file must not influence tests.
    return load_policy(
        workspace=repo, user_file=tmp_path / "no-policy.toml", home=str(tmp_path)
    )
