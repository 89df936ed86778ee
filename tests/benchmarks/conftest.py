"""Files the benchmarks share: one generated 1 GiB log for the whole session."""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

GIB = 1 << 30
MIB = 1 << 20
LEVELS = ("DEBUG", "INFO", "INFO", "INFO", "WARNING", "ERROR")


def log_block(seed: int = 1) -> bytes:
    """About 1 MiB of log lines of varied length."""
    rng = random.Random(seed)
    lines: list[str] = []
    size = 0
    while size < MIB:
        words = " ".join(
            f"item{rng.randint(0, 9_999)}" for _ in range(rng.randint(1, 30))
        )
        line = (
            f"2025-05-{rng.randint(1, 28):02d}T12:{rng.randint(0, 59):02d}:"
            f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z "
            f"{rng.choice(LEVELS):7} worker-{rng.randint(1, 8)} request done: {words}\n"
        )
        lines.append(line)
        size += len(line)
    return "".join(lines).encode()


def write_repeated(path: Path, block: bytes, total: int) -> None:
    chunk = block * max(1, (16 * MIB) // len(block))
    with open(path, "wb") as out:
        written = 0
        while written < total:
            written += out.write(chunk[: total - written])


@pytest.fixture(scope="session")
def gib_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A 1 GiB log cut mid-line at its end, written once per session."""
    folder = tmp_path_factory.mktemp("gib-log")
    if shutil.disk_usage(folder).free < 2 * GIB:
        pytest.skip("needs 2 GiB of free disk for the generated log")
    path = folder / "large.log"
    write_repeated(path, log_block(), GIB)
    yield path
    path.unlink()


def run_command(*args: str) -> tuple[float, str]:
    """Seconds a command took, and what it printed; the anchor a user would use."""
    began = time.perf_counter()
    # The C locale: byte-wise matching, the fastest the anchor can be.
    env = {**os.environ, "LC_ALL": "C"}
    done = subprocess.run(args, capture_output=True, text=True, check=False, env=env)
    elapsed = time.perf_counter() - began
    if done.returncode not in (0, 1):  # grep -c says 1 when nothing matched
        raise AssertionError(f"{args[0]} failed: {done.stderr.strip()}")
    return elapsed, done.stdout


def need_commands(*names: str) -> None:
    missing = [name for name in names if shutil.which(name) is None]
    if missing:
        pytest.skip(f"the anchor needs {', '.join(missing)}")


def versus(ours: list[float], anchor: list[float], name: str) -> str:
    """Ours against an anchor timed in the same rounds: best times and ratios."""
    ratios = [mine / theirs for mine, theirs in zip(ours, anchor, strict=True)]
    return (
        f"best {min(ours):.3f} s, {name} {min(anchor):.3f} s; ratio best "
        f"{min(ratios):.2f}, median {statistics.median(ratios):.2f} "
        f"({len(ratios)} rounds)"
    )
