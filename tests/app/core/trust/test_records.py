"""Record version 1 round trips; anything else is kept and never trusted."""

from __future__ import annotations

import json

import pytest

from app.core.trust.records import (
    REMOTE_RECORD_VERSION,
    FileEntry,
    Record,
    RemoteOrigin,
    UnsupportedRecord,
    parse_record,
)


def sample() -> Record:
    entry = FileEntry(
        path="a.md",
        resolved="/w/a.md",
        description="notes",
        scope="workspace",
        size=3,
        mtime_ns=1,
        device=2,
        inode=3,
        kind="markdown",
    )
    return Record(declared_at="2026-01-01T00:00:00Z", workspace="/w", files=(entry,))


def test_version_one_round_trips():
    record = sample()
    assert parse_record(record.to_json()) == record
    assert json.loads(record.to_json())["version"] == 1


@pytest.mark.parametrize(
    "raw",
    [
        '{"version": 2, "files": []}',
        '{"version": "1", "files": []}',
        '{"version": true}',
        "not json at all",
        "[1, 2]",
        '{"version": 1, "files": [{"path": "a"}], "workspace": "/w",'
        ' "declared_at": "x"}',
        '{"version": 1, "files": [], "workspace": "/w", "declared_at": "x"}',
    ],
)
def test_unknown_or_broken_records_are_unsupported_and_kept(raw):
    parsed = parse_record(raw)
    assert isinstance(parsed, UnsupportedRecord)
    assert parsed.raw == raw


def test_deeply_nested_record_does_not_crash():
    raw = "[" * 100_000 + "]" * 100_000
    assert isinstance(parse_record(raw), UnsupportedRecord)


def test_boolean_is_not_a_size():
    data = json.loads(sample().to_json())
    data["files"][0]["size"] = True
    assert isinstance(parse_record(json.dumps(data)), UnsupportedRecord)


# -- remote entries ---------------------------------------------------------------


def remote_sample() -> Record:
    entry = FileEntry(
        path="out/report.html",
        resolved="/srv/work/out/report.html",
        description="the report",
        scope="remote",
        size=10,
        mtime_ns=1_700_000_000_000_000_000,
        device=0,
        inode=0,
        kind="html",
        remote=RemoteOrigin(user="me", host="devbox", port=2222, mode=0o100644),
    )
    return Record(
        declared_at="2026-01-01T00:00:00Z",
        workspace="ssh://me@devbox:2222/srv/work",
        files=(entry,),
        version=REMOTE_RECORD_VERSION,
    )


def test_a_local_record_reads_exactly_as_before_remote_entries_existed():
    assert sample().to_json() == (
        "{\n"
        '  "declared_at": "2026-01-01T00:00:00Z",\n'
        '  "files": [\n'
        "    {\n"
        '      "description": "notes",\n'
        '      "device": 2,\n'
        '      "inode": 3,\n'
        '      "kind": "markdown",\n'
        '      "mtime_ns": 1,\n'
        '      "path": "a.md",\n'
        '      "resolved": "/w/a.md",\n'
        '      "scope": "workspace",\n'
        '      "size": 3\n'
        "    }\n"
        "  ],\n"
        '  "version": 1,\n'
        '  "workspace": "/w"\n'
        "}"
    )


def test_a_remote_record_is_version_two_and_round_trips_with_its_coordinate():
    record = remote_sample()
    data = json.loads(record.to_json())
    assert data["version"] == 2
    assert data["files"][0]["remote"] == {
        "user": "me",
        "host": "devbox",
        "port": 2222,
        "mode": 0o100644,
    }
    assert parse_record(record.to_json()) == record


def _edited(change) -> str:
    data = json.loads(remote_sample().to_json())
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize(
    "change",
    [
        # a version 1 entry would be checked on the local disk: never remote
        lambda d: d.update(version=1),
        lambda d: d["files"][0].pop("remote") and d.update(version=1),
        # a version 2 entry is remote, with its whole origin
        lambda d: d["files"][0].update(scope="workspace"),
        lambda d: d["files"][0].pop("remote"),
        lambda d: d["files"][0]["remote"].pop("host"),
        lambda d: d["files"][0]["remote"].update(port="22"),
        lambda d: d["files"][0]["remote"].update(mode=True),
        lambda d: d.update(version=3),
    ],
)
def test_remote_records_that_do_not_hold_together_are_unsupported(change):
    raw = _edited(change)
    parsed = parse_record(raw)
    assert isinstance(parsed, UnsupportedRecord)
    assert parsed.raw == raw


def test_the_store_macs_a_remote_record_like_any_other(tmp_path):
    from app.core.store import Store

    raw = remote_sample().to_json()
    message = {"type": "tool", "data": {"tool_call_id": "c1", "content": "ok"}}
    with Store(tmp_path / "data") as store:
        conversation = store.create_conversation("t", "ssh://me@devbox:2222/srv/work")
        store.append_message(conversation.id, message, raw, "c1")
        stored = store.record(conversation.id, "c1")
        assert stored is not None and stored.trusted and stored.raw == raw
        other = store.create_conversation("other", "/w")
        assert store.record(other.id, "c1") is None
    import sqlite3

    with sqlite3.connect(tmp_path / "data" / "deliverables.sqlite3") as db:
        db.execute("UPDATE records SET raw = replace(raw, '2222', '22')")
    with Store(tmp_path / "data") as store:
        stored = store.record(conversation.id, "c1")
        assert stored is not None and not stored.trusted
