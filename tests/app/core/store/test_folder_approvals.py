"""Folders the user approved for an MCP client: kept per client, MAC'd, plain only."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.store.database import DATABASE_NAME, Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "data") as opened:
        yield opened


def test_an_approval_is_kept_for_the_client_it_was_given_to(
    store: Store, tmp_path: Path
) -> None:
    store.approve_folder("Claude Code", "/home/me/other")
    store.approve_folder("Claude Code", "/home/me/other")  # twice is once
    store.approve_folder("Claude Code", "/srv/shared/")

    assert store.approved_folders("Claude Code") == ["/home/me/other", "/srv/shared/"]
    assert store.approved_folders("Codex") == []
    store.close()
    with Store(tmp_path / "data") as again:  # a later session sees it
        assert again.approved_folders("Claude Code")[0] == "/home/me/other"


@pytest.mark.parametrize("folder", ["/", "/home/me/../..", "relative", "/a\0b", ""])
def test_a_folder_that_is_everything_or_not_plain_cannot_be_approved(
    store: Store, folder: str
) -> None:
    with pytest.raises(ValueError, match="cannot be approved"):
        store.approve_folder("Claude Code", folder)

    assert store.approved_folders("Claude Code") == []


def test_an_approval_written_behind_the_apps_back_is_not_honoured(
    store: Store, tmp_path: Path
) -> None:
    store.approve_folder("Claude Code", "/home/me/other")
    with sqlite3.connect(tmp_path / "data" / DATABASE_NAME) as conn:
        conn.execute(
            "INSERT INTO folder_approvals VALUES (?, ?, ?, ?)",
            ("Claude Code", "/etc", "2030-01-01T00:00:00.000000+00:00", "0" * 64),
        )
        # A real approval moved to another client is not that client's.
        conn.execute(
            "INSERT INTO folder_approvals SELECT 'Codex', folder, approved_at, mac"
            " FROM folder_approvals WHERE client = 'Claude Code'"
            " AND folder = '/home/me/other'"
        )

    assert store.approved_folders("Claude Code") == ["/home/me/other"]
    assert store.approved_folders("Codex") == []
