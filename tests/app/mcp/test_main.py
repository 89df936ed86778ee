"""The workspace of a call: the client's root, else ``--workspace``, else the cwd."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from app.core.store import Store
from app.core.trust.records import Record, parse_record
from tests.remote.fixtures import SshHome

from .conftest import Server, connect, files


def folder_with_notes(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "notes.md").write_text(f"notes in {path.name}")
    return path


def present(
    server: Server, arguments: dict[str, object], roots: list[str] | None = None
) -> types.CallToolResult:
    async def main() -> types.CallToolResult:
        async with connect(server, roots=roots) as client:
            return await client.call_tool("present", arguments)

    return anyio.run(main)


def presented_record(server: Server) -> Record:
    with Store(server.data_dir) as store:
        (conversation,) = store.conversations()
        (stored,) = [
            m.record for m in store.messages(conversation.id) if m.record is not None
        ]
    assert stored is not None
    record = parse_record(stored.raw)
    assert isinstance(record, Record)
    return record


@pytest.mark.parametrize(
    ("roots", "option", "expected"),
    [
        (True, True, "root"),  # the client's root wins over everything
        (True, False, "root"),  # ... inside the folder the user set
        (False, True, "option"),  # an explicit --workspace wins over the cwd
        (False, False, "cwd"),
    ],
)
def test_relative_paths_resolve_from_the_chosen_workspace(
    tmp_path: Path, roots: bool, option: bool, expected: str
) -> None:
    folders = {name: folder_with_notes(tmp_path / name) for name in ("option", "cwd")}
    # A root narrows the workspace to a folder inside the one the user set.
    boundary = folders["option" if option else "cwd"]
    folders["root"] = folder_with_notes(boundary / "root")
    server = Server(data_dir=tmp_path / "data", cwd=folders["cwd"])
    if option:
        server.args = ["--workspace", str(folders["option"])]

    result = present(
        server,
        files(("notes.md", "Notes")),
        roots=[folders["root"].as_uri()] if roots else None,
    )

    assert not result.is_error, result.content
    record = presented_record(server)
    assert record.workspace == str(folders[expected].resolve())
    assert record.files[0].resolved == str(folders[expected].resolve() / "notes.md")


def test_a_root_that_is_not_a_local_folder_is_refused_clearly(tmp_path: Path) -> None:
    # The SDK's client refuses to send such a root, so this client is raw
    # JSON-RPC: what a client that does not follow the protocol would send.
    server = Server(data_dir=tmp_path / "data", cwd=folder_with_notes(tmp_path / "cwd"))
    params = server.params()
    with subprocess.Popen(
        [params.command, *params.args],
        cwd=params.cwd,
        env={**os.environ, **(params.env or {})},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: [lines.put(line) for line in process.stdout or ()],
            daemon=True,
        ).start()

        def send(message: dict[str, object]) -> None:
            assert process.stdin is not None
            process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
            process.stdin.flush()

        def answer_to(request_id: int) -> dict[str, object]:
            while True:
                message = json.loads(lines.get(timeout=60))
                if message.get("method") == "roots/list":
                    roots = [{"uri": "https://example.com/repo"}]
                    send({"id": message["id"], "result": {"roots": roots}})
                elif message.get("id") == request_id and "result" in message:
                    return dict(message["result"])

        send(
            {
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"roots": {"listChanged": True}},
                    "clientInfo": {"name": "odd-client", "version": "1"},
                },
            }
        )
        answer_to(1)
        send({"method": "notifications/initialized"})
        call = {"name": "present", "arguments": files(("notes.md", "Notes"))}
        send({"id": 2, "method": "tools/call", "params": call})
        result = answer_to(2)
        process.stdin.close()
        process.wait(timeout=60)

    assert result["isError"] is True
    (content,) = result["content"]  # type: ignore[misc]
    assert "'https://example.com/repo'" in content["text"]
    assert "not local folders" in content["text"]
    with Store(server.data_dir) as store:
        assert store.conversations() == []


def test_files_outside_the_workspace_need_allow_external(tmp_path: Path) -> None:
    workspace = folder_with_notes(tmp_path / "proj")
    outside = folder_with_notes(tmp_path / "elsewhere") / "notes.md"
    strict = Server(data_dir=tmp_path / "strict", cwd=workspace)
    relaxed = Server(
        data_dir=tmp_path / "relaxed", cwd=workspace, args=["--mode", "allow-external"]
    )

    refused = present(strict, files((str(outside), "Elsewhere")))
    accepted = present(relaxed, files((str(outside), "Elsewhere")))

    error = json.loads(refused.content[0].text.splitlines()[0])  # type: ignore[union-attr]
    assert error["entries"][0]["reason"] == "forbidden"
    assert "workspace-only" in error["entries"][0]["detail"]
    assert not accepted.is_error
    assert presented_record(relaxed).files[0].scope == "external"


def test_an_ssh_workspace_is_presented_from_over_sftp(
    tmp_path: Path, ssh_home: SshHome
) -> None:
    remote = Path(os.path.realpath(folder_with_notes(tmp_path / "remote-ws")))
    (remote / ".env").write_text("API_KEY=secret\n")
    elsewhere = folder_with_notes(tmp_path / "cwd")
    server = Server(data_dir=tmp_path / "data", cwd=elsewhere)
    server.args = ["--workspace", ssh_home.address(remote)]

    result = present(server, files(("notes.md", "Notes")))

    assert not result.is_error, result.content
    record = presented_record(server)
    server_side = ssh_home.server
    expected = f"ssh://{server_side.user}@devbox:{server_side.port}{remote}"
    assert record.workspace == expected
    [entry] = record.files
    assert (entry.scope, entry.resolved) == ("remote", str(remote / "notes.md"))
    assert entry.remote is not None and entry.remote.host == "devbox"


def test_an_ssh_workspace_refuses_what_the_policy_denies(
    tmp_path: Path, ssh_home: SshHome
) -> None:
    remote = Path(os.path.realpath(folder_with_notes(tmp_path / "remote-ws")))
    (remote / ".env").write_text("API_KEY=secret\n")
    server = Server(data_dir=tmp_path / "data", cwd=folder_with_notes(tmp_path / "c"))
    server.args = ["--workspace", ssh_home.address(remote)]

    result = present(server, files((".env", "secrets")))

    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert '"reason": "forbidden"' in text
    assert "API_KEY" not in text
