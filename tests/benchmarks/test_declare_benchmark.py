"""Figures for validating 8 files and revalidating one entry, against bare lstat."""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
from pathlib import Path

import pytest

from app.core.trust.declare import declare
from app.core.trust.policy import PermissionMode, load_policy
from app.core.trust.revalidate import revalidate

pytestmark = pytest.mark.benchmark

ROUNDS = 2000


def _read_bytes_so_far() -> int | None:
    """Bytes this thread has read through read syscalls (Linux only).

    The thread's count, not the process's: the check runs on this thread, and
    threads other tests left behind (audio clients, watchers) read meanwhile.
    """
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/io") as handle:
            for line in handle:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _times(action, rounds: int = ROUNDS) -> list[float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        action()
        samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def _summary(samples: list[float]) -> str:
    p95 = statistics.quantiles(samples, n=20)[-1]
    return f"median {statistics.median(samples):7.1f} us, p95 {p95:7.1f} us"


def test_validate_and_revalidate_figures(tmp_path: Path, report: list[str]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    names = [f"dir{i % 3}/file{i}.csv" for i in range(8)]
    for name in names:
        (workspace / name).parent.mkdir(exist_ok=True)
        (workspace / name).write_bytes(b"x" * 100_000)
    arguments = {"files": [{"path": n, "description": "data"} for n in names]}
    policy = load_policy(workspace=workspace)
    mode = PermissionMode.WORKSPACE_ONLY

    def validate() -> None:
        declare(arguments, workspace=workspace, mode=mode, policy=policy)

    def baseline() -> None:
        for name in names:
            os.lstat(os.path.join(workspace, name))

    validate()
    # Reading the counter is itself a read: measure that cost and take it off.
    first, second = _read_bytes_so_far(), _read_bytes_so_far()
    counter_cost = (second - first) if first is not None and second else 0
    before = _read_bytes_so_far()
    validate_times = _times(validate)
    after = _read_bytes_so_far()
    baseline_times = _times(baseline)
    entry = declare(arguments, workspace=workspace, mode=mode, policy=policy).files[0]
    revalidate_times = _times(lambda: revalidate(entry, policy, trusted=True))
    policy_times = _times(lambda: load_policy(workspace=workspace), rounds=500)

    validate_median = statistics.median(validate_times)
    base_median = statistics.median(baseline_times)
    report.append(f"present check, 8 files:      {_summary(validate_times)}")
    report.append(f"baseline 8 x lstat:          {_summary(baseline_times)}")
    report.append(f"ratio check / lstat:         {validate_median / base_median:.1f}")
    report.append(f"revalidate one entry:        {_summary(revalidate_times)}")
    report.append(f"load current policy:         {_summary(policy_times)}")
    if before is not None and after is not None:
        read = after - before - counter_cost
        report.append(f"bytes read during {ROUNDS} checks: {read}")
        assert read == 0, "the present check read file contents"
    elif sys.platform.startswith("linux"):
        pytest.fail("/proc/self/io is unreadable")
    assert entry.size == 100_000
