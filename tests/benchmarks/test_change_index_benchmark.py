"""Benchmark: what recording a change adds to write_file and to its store append."""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import pytest

from app.core.changes.edits import describe_write, read_before
from app.core.store import Store
from app.core.store.change_rows import NewChange
from app.core.trust.beneath import Beneath

ROUNDS = 40
SIZES = (4 << 10, 64 << 10, 1 << 20)


def _content(size: int, variant: int) -> bytes:
    line = f"line of text {variant:>4} in a file the agent rewrites\n".encode()
    return (line * (size // len(line) + 1))[:size]


def _plain(beneath: Beneath, data: bytes) -> float:
    start = time.perf_counter()
    target = beneath.locate_for_write("notes.md")
    try:
        beneath.write(target, data)
    finally:
        os.close(target.folder_fd)
    return time.perf_counter() - start


def _recorded(beneath: Beneath, data: bytes) -> tuple[float, float, NewChange]:
    """The write as write_file does it now; also the recording's own time."""
    start = time.perf_counter()
    target = beneath.locate_for_write("notes.md")
    try:
        begin = time.perf_counter()
        before = read_before(target.folder_fd, target.name)
        recording = time.perf_counter() - begin
        identity = beneath.write(target, data)
    finally:
        os.close(target.folder_fd)
    begin = time.perf_counter()
    change = describe_write(
        "notes.md", target.real_path, before, data, identity, tool="write_file"
    )
    stored = NewChange(change.to_json(), change.text_before)
    recording += time.perf_counter() - begin
    return time.perf_counter() - start, recording, stored


def _ms(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1e3


@pytest.mark.benchmark
def test_change_index_cost_per_write_file_figures(
    tmp_path: Path, report: list[str]
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    beneath = Beneath(str(root))
    for size in SIZES:
        plain: list[float] = []
        recorded: list[float] = []
        recording: list[float] = []
        _plain(beneath, _content(size, 0))
        for n in range(ROUNDS):
            # Interleaved, so both see the same disk and the same load.
            plain.append(_plain(beneath, _content(size, 2 * n)))
            total, own, _ = _recorded(beneath, _content(size, 2 * n + 1))
            recorded.append(total)
            recording.append(own)
        report.append(
            f"write_file {size >> 10:>5} KiB rewrite: plain write {_ms(plain):.2f} ms, "
            f"with the change recorded {_ms(recorded):.2f} ms; recording itself "
            f"{_ms(recording):.3f} ms median, {max(recording) * 1e3:.3f} ms max "
            "(target <= 1 ms)"
        )


@pytest.mark.benchmark
def test_store_append_with_a_change_figures(tmp_path: Path, report: list[str]) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    beneath = Beneath(str(root))
    _plain(beneath, _content(64 << 10, 0))
    _, _, change = _recorded(beneath, _content(64 << 10, 1))
    message = {"type": "tool", "data": {"content": "Wrote", "tool_call_id": "c"}}
    with Store(tmp_path / "data") as store:
        cid = store.create_conversation("bench", str(root)).id
        bare: list[float] = []
        with_change: list[float] = []
        for n in range(ROUNDS):
            start = time.perf_counter()
            store.append_message(
                cid, {**message, "data": {**message["data"], "tool_call_id": f"a{n}"}}
            )
            bare.append(time.perf_counter() - start)
            start = time.perf_counter()
            store.append_message(
                cid,
                {**message, "data": {**message["data"], "tool_call_id": f"b{n}"}},
                changes=[change],
            )
            with_change.append(time.perf_counter() - start)
    report.append(
        f"store append of a write_file result: {_ms(bare):.2f} ms bare, "
        f"{_ms(with_change):.2f} ms with its change and 64 KiB of text before"
    )
