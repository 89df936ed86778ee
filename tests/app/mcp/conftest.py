"""Drive ``deliverables mcp`` as a real subprocess with the SDK's own client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.remote.fixtures import (  # noqa: F401 - fixtures are found by name
    ssh_home,
    sshd,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
TEE = HERE / "wire_tee.py"
PROBE = HERE / "module_probe.py"

_PASSED_ON = (
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "TMPDIR",
)


def server_env() -> dict[str, str]:
    """The test's private home and runtime folder, and this tree's code."""
    env = {name: os.environ[name] for name in _PASSED_ON if name in os.environ}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return env


@dataclass
class Server:
    """How to start one ``deliverables mcp`` for a test."""

    data_dir: Path
    cwd: Path
    args: list[str] = field(default_factory=list)
    client: str | None = "claude-code"  # --client: what the user registered
    wire: Path | None = None  # record what the server writes on stdout here
    modules: Path | None = None  # write the modules it imported here at exit

    def params(self) -> StdioServerParameters:
        tail = ["mcp", "--data-dir", str(self.data_dir), *self.args]
        if self.client is not None:
            tail += ["--client", self.client]
        if self.modules is not None:
            command = [sys.executable, str(PROBE), str(self.modules), *tail]
        else:
            command = [sys.executable, "-m", "app", *tail]
        if self.wire is not None:
            command = [sys.executable, str(TEE), str(self.wire), "--", *command]
        return StdioServerParameters(
            command=command[0], args=command[1:], env=server_env(), cwd=self.cwd
        )

    def wire_messages(self) -> list[dict[str, Any]]:
        assert self.wire is not None
        lines = self.wire.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]


MessageHandler = Callable[[Any], Awaitable[None]]


@asynccontextmanager
async def connect(
    server: Server,
    *,
    roots: list[str] | None = None,
    client: str = "claude-code",
    on_message: MessageHandler | None = None,
    mode: str = "legacy",
) -> AsyncIterator[Client]:
    """An initialised SDK client on ``server``; ``roots`` as file:// URIs.

    ``legacy`` is the initialize handshake every client documented in the
    README speaks today.
    """
    callback = None
    if roots is not None:
        declared = [types.Root(uri=uri) for uri in roots]

        async def callback(_context: Any) -> types.ListRootsResult:
            return types.ListRootsResult(roots=declared)

    async with Client(
        server.params(),
        mode=mode,
        list_roots_callback=callback,
        message_handler=on_message,
        client_info=types.Implementation(name=client, version="1.0"),
        read_timeout_seconds=60,
    ) as session:
        yield session


def files(*entries: tuple[str, str]) -> dict[str, Any]:
    return {"files": [{"path": p, "description": d} for p, d in entries]}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "report").mkdir(parents=True)
    (root / "report" / "index.html").write_text("<h1>Report</h1>")
    (root / "notes.md").write_text("# Notes\n")
    (root / "data.csv").write_text("a,b\n1,2\n")
    return root


@pytest.fixture
def server(tmp_path: Path, workspace: Path) -> Server:
    return Server(data_dir=tmp_path / "data", cwd=workspace)
