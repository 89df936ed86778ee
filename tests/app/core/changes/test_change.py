"""Change records: JSON round trip, unknown versions kept, facts about content."""

from __future__ import annotations

import json

import pytest

from app.core.changes.change import (
    MAX_TEXT_BEFORE,
    Before,
    BeforeState,
    FileChange,
    Operation,
    UnsupportedChange,
    count_lines,
    parse_change,
)


def change(**overrides: object) -> FileChange:
    values: dict[str, object] = {
        "path": "notes.md",
        "resolved": "/ws/notes.md",
        "operation": Operation.MODIFIED,
        "tool": "write_file",
        "changed_at": "2026-01-01T00:00:00Z",
        "before": Before.TEXT,
        "size_before": 8,
        "size_after": 12,
        "lines_before": 1,
        "lines_after": 2,
        "sha256_after": "ab" * 32,
        "device": 1,
        "inode": 2,
        "mtime_ns": 3,
        "text_before": "# Notes\n",
    }
    values.update(overrides)
    return FileChange(**values)  # type: ignore[arg-type]


def test_a_change_round_trips_through_json_with_its_text_kept_apart() -> None:
    original = change()
    raw = original.to_json()

    assert "text_before" not in json.loads(raw)
    assert "# Notes" not in raw
    assert parse_change(raw, "# Notes\n") == original
    assert parse_change(raw, "# Notes\n").text_before == "# Notes\n"  # type: ignore[union-attr]
    assert parse_change(raw).text_before is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "raw",
    [
        '{"version": 2, "path": "x", "future": [1, 2]}',
        '{"version": true}',
        "[1, 2]",
        "not json at all",
        '{"version": 1, "path": "x"}',
        change().to_json().replace('"modified"', '"renamed"'),
        change().to_json().replace('"size_after": 12', '"size_after": true'),
    ],
)
def test_anything_but_a_valid_version_one_is_kept_byte_for_byte_unsupported(
    raw: str,
) -> None:
    parsed = parse_change(raw)
    assert isinstance(parsed, UnsupportedChange)
    assert parsed.raw == raw


@pytest.mark.parametrize(
    ("data", "lines"),
    [(b"", 0), (b"a", 1), (b"a\n", 1), (b"a\nb", 2), (b"\n\n", 2), (b"a\r\nb\r\n", 2)],
)
def test_lines_are_counted_as_an_editor_counts_them(data: bytes, lines: int) -> None:
    assert count_lines(data) == lines


def test_the_state_before_keeps_text_but_not_binary_or_large_files() -> None:
    text = BeforeState.of_bytes("héllo\nworld".encode(), 12)
    binary = BeforeState.of_bytes(b"PNG\0\1", 5)
    latin = BeforeState.of_bytes(b"caf\xe9", 4)
    large = BeforeState.of_bytes(b"", MAX_TEXT_BEFORE + 1)

    assert (text.before, text.text, text.lines) == (Before.TEXT, "héllo\nworld", 2)
    assert (binary.before, binary.text, binary.size) == (Before.BINARY, None, 5)
    assert latin.before is Before.BINARY
    assert (large.before, large.text, large.size) == (
        Before.TOO_LARGE,
        None,
        MAX_TEXT_BEFORE + 1,
    )
