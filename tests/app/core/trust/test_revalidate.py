"""Revalidation: verdicts, the swap race, a remote entry never opened here."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

import pytest

from app.core.trust.declare import declare
from app.core.trust.policy import PermissionMode, Policy, Rule, builtin_rules
from app.core.trust.records import FileEntry
from app.core.trust.revalidate import Verdict, open_entry, revalidate


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "report.md").write_text("# report\n")
    (root / "data.csv").write_text("a,b\n1,2\n")
    return root


@pytest.fixture
def policy(tmp_path: Path) -> Policy:
    return Policy(builtin_rules(), home=str(tmp_path / "home"))


def declared(workspace: Path, policy: Policy, name: str = "report.md") -> FileEntry:
    record = declare(
        {"files": [{"path": name, "description": "d"}]},
        workspace=workspace,
        mode=PermissionMode.ALLOW_EXTERNAL,
        policy=policy,
    )
    return record.files[0]


def test_unchanged_file_is_ok(workspace, policy):
    check = revalidate(declared(workspace, policy), policy, trusted=True)
    assert check.verdict is Verdict.OK
    assert check.allowed


def test_untrusted_record_is_refused_before_touching_the_file(workspace, policy):
    entry = declared(workspace, policy)
    (workspace / "report.md").unlink()
    check = revalidate(entry, policy, trusted=False)
    assert check.verdict is Verdict.UNTRUSTED
    assert not check.allowed


def test_modified_file_is_changed(workspace, policy):
    entry = declared(workspace, policy)
    (workspace / "report.md").write_text("# report, longer now\n")
    check = revalidate(entry, policy, trusted=True)
    assert check.verdict is Verdict.CHANGED
    assert "modified" in check.reason


def test_replaced_file_is_changed(workspace, policy):
    entry = declared(workspace, policy)
    (workspace / "new.md").write_text("# report\n")
    os.replace(workspace / "new.md", workspace / "report.md")
    check = revalidate(entry, policy, trusted=True)
    assert check.verdict is Verdict.CHANGED
    assert "replaced" in check.reason


def test_deleted_file_is_missing(workspace, policy):
    entry = declared(workspace, policy)
    (workspace / "report.md").unlink()
    assert revalidate(entry, policy, trusted=True).verdict is Verdict.MISSING


def test_file_swapped_for_a_symlink_is_refused(workspace, policy, tmp_path):
    entry = declared(workspace, policy)
    canary = tmp_path / "canary.txt"
    canary.write_text("CANARY")
    (workspace / "report.md").unlink()
    (workspace / "report.md").symlink_to(canary)
    check, opened = open_entry(entry, policy, trusted=True)
    assert check.verdict is Verdict.SYMLINK
    assert opened is None


def test_parent_folder_swapped_for_a_symlink_is_refused(tmp_path, policy):
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "sub" / "a.txt").write_text("mine")
    entry = declared(workspace, policy, "sub/a.txt")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.txt").write_text("CANARY")
    (workspace / "sub").rename(workspace / "old")
    (workspace / "sub").symlink_to(elsewhere)
    check, opened = open_entry(entry, policy, trusted=True)
    assert check.verdict is Verdict.SYMLINK
    assert opened is None


def test_fifo_in_place_of_file_is_not_regular_and_does_not_block(workspace, policy):
    entry = declared(workspace, policy)
    (workspace / "report.md").unlink()
    os.mkfifo(workspace / "report.md")
    assert revalidate(entry, policy, trusted=True).verdict is Verdict.NOT_REGULAR


def test_new_deny_rule_applies_to_the_next_check(workspace, policy):
    entry = declared(workspace, policy)
    stricter = Policy([*policy.rules, Rule("*.md", "user policy")])
    check = revalidate(entry, stricter, trusted=True)
    assert check.verdict is Verdict.DENIED
    assert "*.md (user policy)" in check.reason


def test_external_entry_is_denied_after_switching_to_workspace_only(
    workspace, policy, tmp_path
):
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    entry = declared(workspace, policy, str(outside))
    assert revalidate(entry, policy, trusted=True).verdict is Verdict.OK
    check = revalidate(entry, policy, trusted=True, mode=PermissionMode.WORKSPACE_ONLY)
    assert check.verdict is Verdict.DENIED


def test_opened_file_reads_through_the_descriptor(workspace, policy):
    entry = declared(workspace, policy)
    check, opened = open_entry(entry, policy, trusted=True)
    assert opened is not None
    with opened:
        os.replace(workspace / "report.md", workspace / "moved.md")
        (workspace / "report.md").write_text("other")
        assert opened.read() == b"# report\n"
    assert check.verdict is Verdict.OK


def test_swap_race_never_reads_the_canary(tmp_path, policy):
    """Flip a path between a regular file and a symlink to a canary while opening."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    target = workspace / "target.txt"
    target.write_bytes(b"GOOD")
    entry = declared(workspace, policy, "target.txt")
    canary = tmp_path / "canary.txt"
    canary.write_bytes(b"CANARY-SECRET")
    good = workspace / "good.tmp"
    link = workspace / "link.tmp"
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            good.write_bytes(b"GOOD")
            os.replace(good, target)
            with contextlib.suppress(FileNotFoundError):
                link.unlink()
            link.symlink_to(canary)
            os.replace(link, target)

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    attempts = leaks = refused = 0
    deadline = time.monotonic() + 1.5
    try:
        while time.monotonic() < deadline:
            attempts += 1
            _check, opened = open_entry(entry, policy, trusted=True)
            if opened is None:
                refused += 1
                continue
            with opened:
                if b"CANARY" in opened.read():
                    leaks += 1
    finally:
        stop.set()
        flipper.join(timeout=5)
    assert attempts > 200
    assert refused > 0, "the race never produced a symlink at open time"
    assert leaks == 0


def test_a_remote_entry_is_never_checked_or_opened_on_this_computer(
    workspace: Path, policy: Policy
) -> None:
    from dataclasses import replace

    from app.core.trust.records import RemoteOrigin

    # A local file sits exactly where the remote one is said to be, with the
    # recorded size: opening it would hand over the wrong file.
    local = declared(workspace, policy)
    remote = replace(
        local,
        scope="remote",
        device=0,
        inode=0,
        remote=RemoteOrigin("me", "devbox", 22, 0o100644),
    )

    check, opened = open_entry(remote, policy, trusted=True)

    assert opened is None
    assert check.verdict is Verdict.DENIED
    assert "devbox" in check.reason and "over SSH" in check.reason
