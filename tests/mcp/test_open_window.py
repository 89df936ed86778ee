"""``deliverables mcp --open`` starts the window on the first presentation."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import anyio
import pytest

from app.core.channel.notify import OpenRequest, send
from app.core.store import Store

from .conftest import REPO_ROOT, Server, connect, files


def fake_installation(folder: Path, log: Path) -> None:
    """A ``deliverables`` on PATH that notes its pid and runs this tree's app."""
    folder.mkdir()
    script = folder / "deliverables"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$$ $*" >> "{log}"\n'
        f'PYTHONPATH="{REPO_ROOT}" QT_QPA_PLATFORM=offscreen '
        f'exec "{sys.executable}" -m app "$@"\n'
    )
    script.chmod(0o755)


def test_the_first_presentation_starts_the_window_on_its_conversation(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "started.txt"
    fake_installation(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}/usr/bin:/bin")
    server.args = ["--open"]

    async def main() -> None:
        async with connect(server) as client:
            for name in ("notes.md", "data.csv"):
                result = await client.call_tool("present", files((name, name)))
                assert not result.is_error

    anyio.run(main)
    with Store(server.data_dir) as store:
        (conversation,) = store.conversations()

    deadline = time.monotonic() + 60
    while not log.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    (line,) = log.read_text().splitlines()  # started once, not per call
    pid, *argv = line.split()
    assert argv == [
        "open",
        "--conversation",
        conversation.id,
        "--data-dir",
        str(server.data_dir),
    ]
    try:
        # The window it started listens on the store's channel and knows the
        # conversation (it refuses to open one it does not have).
        reply = None
        while time.monotonic() < deadline:
            reply = send(server.data_dir, OpenRequest(conversation.id))
            if reply is not None:
                break
            time.sleep(0.1)
        assert reply is not None and reply.accepted, reply
    finally:
        os.kill(int(pid), signal.SIGTERM)
