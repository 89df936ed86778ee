"""Benchmark: importing a 200 MB Claude Code session (throughput, peak memory)."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from app.core.store import Store
from app.importers.session import import_transcript

from ..app.importers.transcripts import ClaudeSession, text, tool_use

SIZE = 200 << 20


def _module(turn: int) -> str:
    return "".join(
        f"def function_{turn}_{n}(value):\n    return value * {n}  # step {n}\n"
        for n in range(120)
    )


def realistic_session(path: Path, cwd: str, size: int) -> int:
    """A coding session of about ``size`` bytes in the shape Claude Code writes:
    a prompt, a thought, a Read with the file's text, an Edit whose result holds
    the whole original file, a file-history snapshot and an answer, per turn."""
    s = ClaudeSession(cwd)
    source = _module(0)
    numbered = "".join(
        f"{n:>6}\u2192{line}\n" for n, line in enumerate(source.splitlines(), 1)
    )
    target = f"{cwd}/src/module_NUMBER.py"
    s.user("Please make function_0_3 in module NUMBER handle None values")
    s.assistant(
        {
            "type": "thinking",
            "thinking": "I should read the module first. " * 20,
            "signature": "EuYBCkQIBxgCKkA" + "x" * 1200,
        },
        text("Let me look at the module."),
        message_id="msg_aNUMBER",
    )
    s.assistant(
        tool_use("toolu_rNUMBER", "Read", file_path=target), message_id="msg_aNUMBER"
    )
    s.result(
        "toolu_rNUMBER",
        numbered,
        {
            "type": "text",
            "file": {
                "filePath": target,
                "content": source,
                "numLines": 240,
                "startLine": 1,
                "totalLines": 240,
            },
        },
    )
    old, new = (
        "    return value * 3  # step 3\n",
        "    if value is None:\n        return None\n    return value * 3  # step 3\n",
    )
    s.assistant(
        tool_use(
            "toolu_eNUMBER", "Edit", file_path=target, old_string=old, new_string=new
        )
    )
    s.result(
        "toolu_eNUMBER",
        f"The file {target} has been updated.",
        {
            "filePath": target,
            "oldString": old,
            "newString": new,
            "originalFile": source,
            "structuredPatch": [
                {
                    "oldStart": 7,
                    "oldLines": 1,
                    "newStart": 7,
                    "newLines": 3,
                    "lines": [
                        "-" + old.rstrip("\n"),
                        "+    if value is None:",
                        "+        return None",
                        "+" + old.rstrip("\n"),
                    ],
                }
            ],
            "userModified": False,
            "replaceAll": False,
        },
    )
    s.add(
        {
            "type": "file-history-snapshot",
            "messageId": "msg_aNUMBER",
            "snapshot": {
                "trackedFileBackups": {target: {"backupFileName": "h@v1", "version": 1}}
            },
            "isSnapshotUpdate": False,
        }
    )
    s.assistant(text("function_0_3 now returns None for None. " * 8))
    template = "\n".join(s.lines) + "\n"
    turns = written = 0
    with path.open("w") as out:
        while written < size:
            chunk = template.replace("NUMBER", str(turns))
            out.write(chunk)
            written += len(chunk)
            turns += 1
    return turns


@pytest.mark.benchmark
def test_import_of_a_200_mb_session_figures(tmp_path: Path, report: list[str]) -> None:
    path = tmp_path / "session.jsonl"
    turns = realistic_session(path, str(tmp_path / "repo"), SIZE)
    size = path.stat().st_size
    with path.open("rb") as opened:
        lines = sum(1 for _ in opened)

    with Store(tmp_path / "data") as store:
        start = time.perf_counter()
        first = import_transcript(store, str(path))
        seconds = time.perf_counter() - start
        # Again under tracemalloc (slower): every Python allocation is counted,
        # so the peak is the import's own growth, whatever ran before.
        tracemalloc.start()
        try:
            again = import_transcript(store, str(path))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()

    assert first.turns == again.turns == turns
    assert first.conversation_id == again.conversation_id
    report.append(
        f"import: {size / 1e6:.0f} MB, {lines} lines, {turns} turns in "
        f"{seconds:.2f} s = {size / 1e6 / seconds:.1f} MB/s (target >= 50); "
        f"{size / lines / 1024:.1f} KiB per line"
    )
    report.append(
        f"import: peak memory growth {peak / (1 << 20):.1f} MiB (target <= 64), "
        "re-import of the same session"
    )
