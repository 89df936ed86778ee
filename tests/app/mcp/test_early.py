"""``initialize`` answered before the SDK loads, as the SDK would; the rest is its."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from app.mcp.early import (
    HANDSHAKE_VERSIONS,
    AnsweredOutput,
    EarlyStart,
    answer_first_message,
    initialize_answer,
)

REPO_ROOT = Path(__file__).resolve().parents[3]


def initialize(version: str, request_id: int | str = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def serve(tmp_path: Path, messages: list[dict[str, Any]], *, one_write: bool = False):
    """Run ``deliverables mcp``, send ``messages``, and read one answer per request."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HOME": str(tmp_path)}
    command = [sys.executable, "-m", "app", "mcp", "--data-dir", str(tmp_path / "d")]
    with subprocess.Popen(
        command,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        lines = [json.dumps(message).encode() + b"\n" for message in messages]
        if one_write:  # the first read gets more than the first message
            lines = [b"".join(lines)]
        for line in lines:
            process.stdin.write(line)
            process.stdin.flush()
        answers = [
            json.loads(process.stdout.readline())
            for message in messages
            if "id" in message
        ]
        process.stdin.close()
        rest = process.stdout.read()
        errors = process.stderr.read().decode() if process.stderr else ""
        process.wait(timeout=60)
    return answers, rest, errors


def test_the_versions_answered_early_are_the_sdks_handshake_versions():
    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_the_early_answer_is_the_sdks_and_the_session_goes_on(tmp_path, version):
    answers, rest, errors = serve(tmp_path, [initialize(version), INITIALIZED, TOOLS])
    assert answers[0] == initialize_answer(initialize(version))
    assert answers[0]["result"]["protocolVersion"] == version
    names = {tool["name"] for tool in answers[1]["result"]["tools"]}
    assert "present" in names
    assert rest == b""  # the SDK's own answer to initialize was not sent twice
    assert "not the SDK's" not in errors


def test_messages_read_with_the_first_one_reach_the_sdk(tmp_path):
    answers, rest, errors = serve(
        tmp_path,
        [initialize("2025-06-18", "first"), INITIALIZED, TOOLS],
        one_write=True,
    )
    assert answers[0]["id"] == "first" and "capabilities" in answers[0]["result"]
    assert answers[1]["id"] == 2 and answers[1]["result"]["tools"]
    assert rest == b""
    assert "not the SDK's" not in errors


def test_another_first_message_is_answered_by_the_sdk(tmp_path):
    unknown = initialize("1999-01-01", 7)
    assert initialize_answer(unknown) is None
    answers, _, _ = serve(tmp_path, [unknown, INITIALIZED, TOOLS])
    # The SDK answers an unknown version with one of its own.
    assert answers[0]["id"] == 7
    assert answers[0]["result"]["protocolVersion"] in HANDSHAKE_VERSIONS


def test_a_first_line_that_is_not_json_is_handed_on(tmp_path):
    read, write = os.pipe()
    os.write(write, b"not json\n")
    out_read, out_write = os.pipe()
    early = answer_first_message(read, out_write)
    os.close(out_write)
    assert early == EarlyStart(b"not json\n")
    assert os.read(out_read, 100) == b""
    for fd in (read, write, out_read):
        os.close(fd)


class _Collected:
    def __init__(self) -> None:
        self.text = ""

    async def write(self, text: str) -> None:
        self.text += text

    async def flush(self) -> None:
        pass


def test_an_sdk_answer_unlike_the_early_one_is_reported(capsys):
    message = initialize("2025-11-25", 3)
    answer = initialize_answer(message)
    assert answer is not None
    out = _Collected()
    output = AnsweredOutput(EarlyStart(b"", 3, answer), out)
    changed = {**answer, "result": {**answer["result"], "serverInfo": {"name": "x"}}}
    asyncio.run(output.write(json.dumps(changed) + "\n"))
    asyncio.run(output.write(json.dumps({"jsonrpc": "2.0", "id": 3, "result": {}})))
    assert "not the SDK's" in capsys.readouterr().err
    assert out.text == json.dumps({"jsonrpc": "2.0", "id": 3, "result": {}})
