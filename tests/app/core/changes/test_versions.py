"""Two versions of one deliverable compared, on turns the app's agent ran."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.core.changes.diffs import Diff, NoDiff, NoDiffReason
from app.core.changes.versions import compare_versions, version_text
from app.core.store import Store
from app.core.store.library import Library, LibraryFilter, LibraryItem
from app.core.trust.policy import Policy

from ..store.library_seed import (
    quiet_policy,
    report_in_two_turns,
    report_with_a_turn_between,
    workspace_with_files,
)

FIRST = "# Report\n\nSales rose.\n"
SECOND = "# Report\n\nSales rose by 12%.\n"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "data") as opened:
        yield opened


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return workspace_with_files(tmp_path / "ws")


@pytest.fixture
def policy(workspace: Path, tmp_path: Path) -> Policy:
    return quiet_policy(workspace, tmp_path)


def two_versions(store: Store, workspace: Path, tmp_path: Path) -> list[LibraryItem]:
    """report.md written and presented, then rewritten and presented again."""
    report_in_two_turns(store, workspace, tmp_path, FIRST, SECOND)
    library = Library(store)
    [item] = library.items(LibraryFilter(text="report"))
    newer, older = library.versions(item.item)
    return [older, newer]


def test_two_versions_compare_from_the_kept_copy_and_the_file_now(
    store: Store, workspace: Path, policy: Policy, tmp_path: Path
) -> None:
    older, newer = two_versions(store, workspace, tmp_path)

    diff = compare_versions(store, older, newer, policy)

    assert isinstance(diff, Diff)
    assert version_text(store, older, policy) == FIRST
    assert version_text(store, newer, policy) == SECOND
    assert diff.added == 1 and diff.removed == 1


def test_a_version_whose_bytes_are_gone_says_so(
    store: Store, workspace: Path, policy: Policy, tmp_path: Path
) -> None:
    older, newer = two_versions(store, workspace, tmp_path)
    (workspace / "report.md").unlink()

    gone = compare_versions(store, older, newer, policy)

    assert version_text(store, older, policy) == FIRST
    assert isinstance(gone, NoDiff) and gone.reason is NoDiffReason.MISSING
    assert gone.message == (
        "the newer version: its file is gone and no copy of this version was kept"
    )


def test_a_file_changed_since_its_version_gives_no_made_up_text(
    store: Store, workspace: Path, policy: Policy, tmp_path: Path
) -> None:
    _older, newer = two_versions(store, workspace, tmp_path)
    (workspace / "report.md").write_text("edited by hand, longer than before\n")

    changed = version_text(store, newer, policy)

    assert isinstance(changed, NoDiff)
    assert changed.reason is NoDiffReason.CHANGED_SINCE


THIRD = "# Report\n\nSales rose by 12% in May.\n"


def changed_between(store: Store, workspace: Path, tmp_path: Path) -> str:
    return report_with_a_turn_between(
        store, workspace, tmp_path, (FIRST, SECOND, THIRD)
    )


def test_a_file_changed_without_being_presented_is_a_version(
    store: Store, workspace: Path, policy: Policy, tmp_path: Path
) -> None:
    changed_between(store, workspace, tmp_path)
    library = Library(store)

    items = {item.name: item for item in library.items(LibraryFilter())}
    newest, middle, oldest = library.versions(items["report.md"].item)

    # The turns that wrote and presented it are one version each, not two.
    assert items["report.md"].versions == 3
    assert [v.changed for v in (newest, middle, oldest)] == [False, True, False]
    assert items["notes.md"].changed and items["notes.md"].versions == 1
    assert version_text(store, middle, policy) == SECOND
    assert version_text(store, oldest, policy) == FIRST
    diff = compare_versions(store, middle, newest, policy)
    assert isinstance(diff, Diff) and diff.added == 1 and diff.removed == 1


def test_a_changed_version_with_a_forged_change_gives_no_text(
    store: Store, workspace: Path, policy: Policy, tmp_path: Path
) -> None:
    cid = changed_between(store, workspace, tmp_path)
    library = Library(store)
    [notes] = library.items(LibraryFilter(text="notes"))
    assert version_text(store, notes, policy) == "Ask about May.\n"
    # Someone with the database rewrites the change to point at another file.
    forged = str(workspace / "secret.txt")
    (workspace / "secret.txt").write_text("secret\n")
    with store.transaction(write=True) as conn:
        conn.execute(
            "UPDATE changes SET raw = replace(raw, ?, ?) WHERE conversation_id = ?",
            (str(workspace / "notes.md"), forged, cid),
        )
    forged_item = replace(notes, item=forged)

    for version in (notes, forged_item):
        text = version_text(store, version, policy)
        assert isinstance(text, NoDiff) and text.reason is NoDiffReason.REFUSED
