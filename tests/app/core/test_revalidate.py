"""Revalidation: verdicts, the swap race, and a deliverable's record looked up again."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from app.core.declare import declare
from app.core.policy import PermissionMode, Policy, Rule, builtin_rules
from app.core.records import FileEntry, UnsupportedRecord
from app.core.revalidate import (
    DeliverableRef,
    Verdict,
    check_deliverable,
    look_up,
    open_entry,
    revalidate,
)
from app.core.store import DATABASE_NAME, Store


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


# -- a deliverable's record, looked up again for each action --------------------


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "data") as opened:
        yield opened


def _present(
    store: Store, conversation_id: str, raw: str, call_id: str = "call_1"
) -> None:
    store.append_message(
        conversation_id, {"type": "human", "data": {"content": "make a report"}}
    )
    store.append_message(
        conversation_id,
        {
            "type": "ai",
            "data": {
                "content": "",
                "tool_calls": [{"id": call_id, "name": "present", "args": {}}],
            },
        },
    )
    store.append_message(
        conversation_id,
        {
            "type": "tool",
            "data": {
                "content": "Presented.",
                "tool_call_id": call_id,
                "name": "present",
                "status": "success",
                "type": "tool",
            },
        },
        record=raw,
        tool_call_id=call_id,
    )


@pytest.fixture
def ref(store: Store, workspace: Path, policy: Policy) -> DeliverableRef:
    record = declare(
        {
            "files": [
                {"path": "report.md", "description": "the report"},
                {"path": "data.csv", "description": "the data"},
            ]
        },
        workspace=workspace,
        mode=PermissionMode.ALLOW_EXTERNAL,
        policy=policy,
    )
    conversation = store.create_conversation("c", str(workspace))
    _present(store, conversation.id, record.to_json())
    return DeliverableRef(conversation.id, "call_1", 0)


def test_look_up_reads_the_trusted_entry_of_this_conversation(store, ref, workspace):
    lookup = look_up(store, ref)
    assert lookup.trusted
    assert lookup.entry is not None
    assert lookup.entry.resolved == str(workspace / "report.md")
    second = look_up(store, DeliverableRef(ref.conversation_id, ref.tool_call_id, 1))
    assert second.entry is not None
    assert second.entry.name == "data.csv"


def test_unchanged_file_checks_ok(store, ref, policy):
    check, entry, opened = check_deliverable(store, ref, policy)
    assert check.verdict is Verdict.OK
    assert entry is not None
    assert entry.name == "report.md"
    assert opened is None


def test_modified_file_checks_changed_and_is_still_allowed(
    store, ref, policy, workspace
):
    (workspace / "report.md").write_text("# report, edited since\n")
    check, _entry, _opened = check_deliverable(store, ref, policy)
    assert check.verdict is Verdict.CHANGED
    assert check.allowed


def test_tampered_record_is_untrusted(store, ref, policy, tmp_path):
    with sqlite3.connect(tmp_path / "data" / DATABASE_NAME) as conn:
        conn.execute(
            "UPDATE records SET raw = replace(raw, 'the report', 'the rapport')"
        )
    lookup = look_up(store, ref)
    assert lookup.entry is not None
    assert not lookup.trusted
    check, _entry, opened = check_deliverable(store, ref, policy)
    assert check.verdict is Verdict.UNTRUSTED
    assert opened is None


def test_ref_from_another_conversation_finds_no_record(store, ref, policy, workspace):
    other = store.create_conversation("other", str(workspace))
    foreign = DeliverableRef(other.id, ref.tool_call_id, ref.index)
    assert look_up(store, foreign).entry is None
    check, entry, _opened = check_deliverable(store, foreign, policy)
    assert check.verdict is Verdict.UNTRUSTED
    assert "no trusted record" in check.reason
    assert entry is None


def test_unknown_conversation_finds_no_record(store, ref, policy):
    missing = DeliverableRef("no-such-conversation", ref.tool_call_id, 0)
    lookup = look_up(store, missing)
    assert lookup.entry is None
    assert lookup.record is None
    assert check_deliverable(store, missing, policy)[0].verdict is Verdict.UNTRUSTED


def test_unsupported_record_version_has_no_entry(store, policy, workspace):
    conversation = store.create_conversation("c", str(workspace))
    _present(store, conversation.id, '{"version": 2, "files": []}')
    ref = DeliverableRef(conversation.id, "call_1", 0)
    lookup = look_up(store, ref)
    assert isinstance(lookup.record, UnsupportedRecord)
    assert lookup.entry is None
    check, entry, _opened = check_deliverable(store, ref, policy)
    assert check.verdict is Verdict.UNTRUSTED
    assert "not supported" in check.reason
    assert entry is None


@pytest.mark.parametrize("index", [2, -1, 99])
def test_index_out_of_range_has_no_entry(store, ref, policy, index):
    bad = DeliverableRef(ref.conversation_id, ref.tool_call_id, index)
    assert look_up(store, bad).entry is None
    assert check_deliverable(store, bad, policy)[0].verdict is Verdict.UNTRUSTED


def _fd_is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def test_keep_open_returns_the_verified_file_open(store, ref, policy):
    check, _entry, opened = check_deliverable(store, ref, policy, keep_open=True)
    assert check.verdict is Verdict.OK
    assert opened is not None
    try:
        assert opened.read() == b"# report\n"
    finally:
        opened.close()


def test_without_keep_open_no_descriptor_is_left_open(store, ref, policy):
    before = (
        set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    )
    _check, _entry, opened = check_deliverable(store, ref, policy)
    assert opened is None
    if before is not None:
        assert set(os.listdir("/proc/self/fd")) <= before


def test_refused_check_returns_nothing_open_even_with_keep_open(
    store, ref, policy, workspace
):
    (workspace / "report.md").unlink()
    check, _entry, opened = check_deliverable(store, ref, policy, keep_open=True)
    assert check.verdict is Verdict.MISSING
    assert opened is None


def test_workspace_only_mode_refuses_an_external_file(
    store, policy, workspace, tmp_path
):
    outside = tmp_path / "outside.txt"
    outside.write_text("elsewhere\n")
    record = declare(
        {"files": [{"path": str(outside), "description": "outside"}]},
        workspace=workspace,
        mode=PermissionMode.ALLOW_EXTERNAL,
        policy=policy,
    )
    conversation = store.create_conversation("c", str(workspace))
    _present(store, conversation.id, record.to_json())
    ref = DeliverableRef(conversation.id, "call_1", 0)
    allowed = check_deliverable(store, ref, policy, mode=PermissionMode.ALLOW_EXTERNAL)
    assert allowed[0].verdict is Verdict.OK
    refused = check_deliverable(store, ref, policy, mode=PermissionMode.WORKSPACE_ONLY)
    assert refused[0].verdict is Verdict.DENIED
    assert "workspace-only" in refused[0].reason


def test_a_remote_entry_is_never_checked_or_opened_on_this_computer(
    workspace: Path, policy: Policy
) -> None:
    from dataclasses import replace

    from app.core.records import RemoteOrigin

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
