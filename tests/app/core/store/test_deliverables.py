"""A card's record read again from the store, then checked by the trust kernel."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from app.core.store.database import DATABASE_NAME, Store
from app.core.store.deliverables import DeliverableRef, check_deliverable, look_up
from app.core.trust.declare import declare
from app.core.trust.policy import PermissionMode, Policy, builtin_rules
from app.core.trust.records import FileEntry, UnsupportedRecord
from app.core.trust.revalidate import Verdict


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
