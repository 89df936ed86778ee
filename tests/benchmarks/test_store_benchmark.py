"""Benchmark of the session store: appends with records and history replay."""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

import pytest

from app.core.store.database import SYNCHRONOUS, Store

APPENDS = 500
HISTORY = 1_000
READS = 20


def tool_message(call_id: str) -> dict[str, Any]:
    return {
        "type": "tool",
        "data": {
            "content": "Presented 1 file.",
            "type": "tool",
            "tool_call_id": call_id,
        },
    }


def record(n: int) -> str:
    entry = {
        "path": f"reports/quarterly-{n}.pdf",
        "resolved": f"/home/user/work/reports/quarterly-{n}.pdf",
        "description": "Quarterly report " + "with figures " * 20,
        "scope": "workspace",
        "size": 123_456,
        "mtime_ns": 1_700_000_000_000_000_000,
        "device": 64_769,
        "inode": 1_000_000 + n,
        "kind": "pdf",
    }
    text = json.dumps({"version": 1, "files": [entry] * 3, "note": ""})
    # Pad inside the JSON so the record stays valid and exactly 2,000 characters.
    return text[:-2] + "x" * (2_000 - len(text)) + text[-2:]


def micros(seconds: list[float]) -> tuple[float, float]:
    """Median and 95th percentile in microseconds."""
    ordered = sorted(s * 1e6 for s in seconds)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.95) - 1]


@pytest.mark.benchmark
def test_store_append_and_replay_figures(tmp_path: Path, report: list[str]) -> None:
    baseline_db = sqlite3.connect(tmp_path / "baseline.sqlite3", isolation_level=None)
    baseline_db.execute("PRAGMA journal_mode = WAL")
    baseline_db.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
    baseline_db.execute("CREATE TABLE t (message TEXT NOT NULL, raw TEXT NOT NULL)")

    with Store(tmp_path / "store") as store:
        cid = store.create_conversation("bench", "/w").id
        store_times: list[float] = []
        baseline_times: list[float] = []
        # Interleaved samples, so load on a shared machine hits both sides alike
        # and the ratio of medians stays meaningful.
        for n in range(APPENDS):
            message, raw = tool_message(f"call-{n}"), record(n)
            start = time.perf_counter()
            store.append_message(cid, message, record=raw, tool_call_id=f"call-{n}")
            store_times.append(time.perf_counter() - start)

            start = time.perf_counter()
            baseline_db.execute("BEGIN")
            baseline_db.execute(
                "INSERT INTO t VALUES (?, ?)", (json.dumps(message), raw)
            )
            baseline_db.execute("COMMIT")
            baseline_times.append(time.perf_counter() - start)

        for n in range(APPENDS, HISTORY):
            store.append_message(
                cid,
                tool_message(f"call-{n}"),
                record=record(n),
                tool_call_id=f"call-{n}",
            )
        read_times: list[float] = []
        for _ in range(READS):
            start = time.perf_counter()
            history = store.messages(cid)
            read_times.append(time.perf_counter() - start)

    baseline_db.close()

    assert [m.position for m in history] == list(range(HISTORY))
    assert all(m.record is not None and m.record.trusted for m in history)
    assert history[7].record is not None
    assert history[7].record.raw == record(7)
    assert len(record(7)) == 2_000

    store_median, store_p95 = micros(store_times)
    base_median, base_p95 = micros(baseline_times)
    read_median, read_p95 = micros(read_times)
    report.append(
        f"store benchmark (synchronous={SYNCHRONOUS}, sqlite {sqlite3.sqlite_version})"
    )
    report.append(
        f"  append message + 2 KB record: median {store_median:8.1f} us,"
        f" p95 {store_p95:8.1f} us  (n={APPENDS})"
    )
    report.append(
        f"  baseline bare INSERT+COMMIT:  median {base_median:8.1f} us,"
        f" p95 {base_p95:8.1f} us  (n={APPENDS})"
    )
    report.append(
        f"  ratio of medians store/baseline: {store_median / base_median:.2f}"
    )
    report.append(
        f"  replay {HISTORY} messages with records: median {read_median / 1000:.2f} ms,"
        f" p95 {read_p95 / 1000:.2f} ms  (n={READS})"
    )
