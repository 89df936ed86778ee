"""Before every action on a remote file: trusted record, same file, policy now."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.core.trust.policy import PermissionMode
from app.core.trust.records import FileEntry, Record
from app.core.trust.revalidate import Verdict
from app.remote.checks import RemoteCheck
from app.remote.manager import RemoteManager
from app.remote.workspace import RemoteWorkspace
from tests.remote.fixtures import SshHome


def declared(workspace: RemoteWorkspace, path: str = "notes.md") -> FileEntry:
    record: Record = workspace.present(
        {"files": [{"path": path, "description": "d"}]},
        mode=PermissionMode.ALLOW_EXTERNAL,
    ).result(30)
    return record.files[0]


def check(workspace: RemoteWorkspace, entry: FileEntry, **kw: object) -> RemoteCheck:
    return workspace.check_entry(entry, trusted=True, **kw).result(30)  # type: ignore[arg-type]


def test_an_unchanged_file_is_ok_with_its_identity_now(
    workspace: RemoteWorkspace,
) -> None:
    entry = declared(workspace)
    result = check(workspace, entry)
    assert result.check.verdict is Verdict.OK
    assert result.identity is not None and result.identity.size == entry.size


def test_a_modified_file_is_changed(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    entry = declared(workspace)
    (remote_root / "notes.md").write_text("# Notes, rewritten and longer\n")
    assert check(workspace, entry).check.verdict is Verdict.CHANGED


def test_a_mode_change_is_a_change(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    entry = declared(workspace)
    (remote_root / "notes.md").chmod(0o600)
    assert check(workspace, entry).check.verdict is Verdict.CHANGED


def test_a_removed_file_is_missing(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    entry = declared(workspace)
    (remote_root / "notes.md").unlink()
    assert check(workspace, entry).check.verdict is Verdict.MISSING


def test_a_symlink_swapped_in_after_present_is_refused(
    workspace: RemoteWorkspace, remote_root: Path, tmp_path: Path
) -> None:
    # The attack: after the check, replace the file with a link to a secret
    # of the same size and age, so size and mtime alone would pass.
    entry = declared(workspace)
    secret = tmp_path / "secret.md"
    secret.write_bytes(b"S" * entry.size)
    stamp = os.stat(remote_root / "notes.md")
    os.utime(secret, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    swap = remote_root / ".swap"
    swap.symlink_to(secret)
    os.replace(swap, remote_root / "notes.md")

    result = check(workspace, entry)

    assert result.check.verdict is Verdict.SYMLINK
    assert "symbolic link" in result.check.reason
    assert not result.allowed


def test_a_folder_swapped_for_a_link_after_present_is_refused(
    workspace: RemoteWorkspace, remote_root: Path, tmp_path: Path
) -> None:
    entry = declared(workspace, "report/index.html")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.rename(remote_root / "report" / "index.html", elsewhere / "index.html")
    os.rmdir(remote_root / "report")
    (remote_root / "report").symlink_to(elsewhere)

    result = check(workspace, entry)

    assert result.check.verdict is Verdict.SYMLINK
    assert "leads somewhere else" in result.check.reason


def test_a_file_replaced_by_a_folder_is_not_regular(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    entry = declared(workspace)
    (remote_root / "notes.md").unlink()
    (remote_root / "notes.md").mkdir()
    assert check(workspace, entry).check.verdict is Verdict.NOT_REGULAR


def test_the_policy_is_the_one_in_force_now(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    entry = declared(workspace)
    (remote_root / ".deliverables-policy.toml").write_text(
        '[deny]\nadd = ["notes.*"]\n'
    )
    result = check(workspace, entry)
    assert result.check.verdict is Verdict.DENIED
    assert "notes.*" in result.check.reason


def test_workspace_only_refuses_a_file_outside(
    workspace: RemoteWorkspace, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("x")
    entry = declared(workspace, str(outside))
    assert check(workspace, entry).check.verdict is Verdict.OK
    result = check(workspace, entry, mode=PermissionMode.WORKSPACE_ONLY)
    assert result.check.verdict is Verdict.DENIED


def test_an_untrusted_record_has_no_actions(workspace: RemoteWorkspace) -> None:
    entry = declared(workspace)
    result = workspace.check_entry(entry, trusted=False).result(30)
    assert result.check.verdict is Verdict.UNTRUSTED


# -- through the store, as a card's action does -------------------------------------


@pytest.fixture
def stored(
    workspace: RemoteWorkspace, tmp_path: Path
) -> Iterator[tuple[Store, DeliverableRef]]:
    record = workspace.present(
        {"files": [{"path": "notes.md", "description": "d"}]},
        mode=PermissionMode.WORKSPACE_ONLY,
    ).result(30)
    message = {"type": "tool", "data": {"tool_call_id": "c1", "content": "ok"}}
    with Store(tmp_path / "data") as store:
        conversation = store.create_conversation("remote", workspace.address)
        store.append_message(conversation.id, message, record.to_json(), "c1")
        yield store, DeliverableRef(conversation.id, "c1", 0)


def test_a_card_revalidates_through_its_trusted_record(
    stored: tuple[Store, DeliverableRef], manager: RemoteManager
) -> None:
    store, ref = stored
    result, entry, opened = manager.check_deliverable(store, ref).result(60)
    assert result.check.verdict is Verdict.OK
    assert entry is not None and opened is not None
    assert opened.place.host == "devbox"


def test_a_record_of_another_conversation_is_untrusted(
    stored: tuple[Store, DeliverableRef], manager: RemoteManager
) -> None:
    store, ref = stored
    other = store.create_conversation("other", "/elsewhere")
    moved = DeliverableRef(other.id, ref.tool_call_id, ref.index)
    result, _entry, opened = manager.check_deliverable(store, moved).result(60)
    assert result.check.verdict is Verdict.UNTRUSTED and opened is None


def test_a_record_edited_in_the_database_is_untrusted(
    stored: tuple[Store, DeliverableRef],
    manager: RemoteManager,
    tmp_path: Path,
    ssh_home: SshHome,
) -> None:
    store, ref = stored
    with sqlite3.connect(tmp_path / "data" / "deliverables.sqlite3") as db:
        db.execute("UPDATE records SET raw = replace(raw, 'notes.md', 'NOTES.md')")
    result, _entry, _opened = manager.check_deliverable(store, ref).result(60)
    assert result.check.verdict is Verdict.UNTRUSTED


def test_a_tree_file_is_checked_now_with_no_record(
    workspace: RemoteWorkspace, remote_root: Path, tmp_path: Path
) -> None:
    ok = workspace.check_path(f"{remote_root}/notes.md").result(30)
    assert ok.check.verdict is Verdict.OK
    assert ok.identity is not None
    assert ok.identity.size == (remote_root / "notes.md").stat().st_size

    (remote_root / ".env").write_text("TOKEN=1\n")
    denied = workspace.check_path(f"{remote_root}/.env").result(30)
    assert denied.check.verdict is Verdict.DENIED and denied.identity is None

    (remote_root / "link.md").symlink_to(remote_root / ".env")
    link = workspace.check_path(f"{remote_root}/link.md").result(30)
    assert link.check.verdict is Verdict.SYMLINK and link.identity is None

    outside = tmp_path / "outside.md"
    outside.write_text("elsewhere\n")
    for path in (str(outside), f"{remote_root}/../outside.md"):
        away = workspace.check_path(path).result(30)
        assert away.check.verdict is Verdict.DENIED and away.identity is None

    real = tmp_path / "real"
    real.mkdir()
    (real / "inner.md").write_text("through a linked folder\n")
    (remote_root / "linked").symlink_to(real)
    through = workspace.check_path(f"{remote_root}/linked/inner.md").result(30)
    assert through.check.verdict is Verdict.SYMLINK and through.identity is None
