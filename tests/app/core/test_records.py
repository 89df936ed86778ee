"""Record version 1 round trips; anything else is kept and never trusted."""

from __future__ import annotations

import json

import pytest

from app.core.records import FileEntry, Record, UnsupportedRecord, parse_record


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
