"""``deliverables mcp`` over stdio, driven by the SDK's client as a real subprocess."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool

from app.agent.tools import AgentSession, make_tools
from app.core.store import Store
from app.core.trust.records import Record, parse_record
from app.workspace.choose import local_workspace

from .conftest import Server, connect, files


def in_app_tools(workspace: Path) -> dict[str, Any]:
    return {
        tool.name: tool
        for tool in make_tools(AgentSession(workspace=local_workspace(workspace)))
    }


def canonical(value: object) -> str:
    # Key order kept: this is a byte-for-byte comparison, not a semantic one.
    return json.dumps(value, ensure_ascii=False)


def test_the_server_answers_initialize_and_imports_neither_qt_nor_langchain(
    server: Server, tmp_path: Path
) -> None:
    server.modules = tmp_path / "modules.txt"

    async def main() -> types.ServerCapabilities:
        async with connect(server) as client:
            assert client.server_info is not None
            assert client.server_info.name == "deliverables"
            return client.server_capabilities

    capabilities = anyio.run(main)

    assert capabilities.tools is not None and capabilities.tools.list_changed
    modules = server.modules.read_text().split()
    assert "mcp.server.mcpserver" in modules  # the probe saw the server run
    heavy = [
        name
        for name in modules
        if name.split(".")[0] in ("PySide6", "shiboken6", "langchain", "langgraph")
        or name.startswith(("langchain_core", "app.ui", "previewers"))
    ]
    assert heavy == []


def test_tools_list_is_the_in_app_definition_byte_for_byte(
    server: Server, workspace: Path, tmp_path: Path
) -> None:
    server.wire = tmp_path / "wire.jsonl"

    async def main() -> None:
        async with connect(server) as client:
            await client.list_tools()
        (workspace / "public").mkdir()
        (workspace / "public" / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")
        async with connect(server) as client:
            await client.list_tools()

    anyio.run(main)

    listings = [
        message["result"]["tools"]
        for message in server.wire_messages()
        if "tools" in message.get("result", {})
    ]
    assert [[t["name"] for t in listing] for listing in listings] == [
        ["present"],
        ["present", "show_image"],
    ]
    ours = in_app_tools(workspace)
    for entry in listings[1]:
        tool = ours[entry["name"]]
        assert entry["description"] == tool.description
        assert canonical(entry["inputSchema"]) == canonical(tool.args_schema)
        sent = convert_to_openai_tool(tool)["function"]
        assert canonical(entry["inputSchema"]) == canonical(sent["parameters"])
        assert set(entry) == {"name", "description", "inputSchema"}


def test_present_stores_a_trusted_turn_in_the_clients_conversation(
    server: Server, workspace: Path
) -> None:
    async def main() -> list[types.CallToolResult]:
        async with connect(server, roots=[workspace.as_uri()]) as client:
            first = await client.call_tool(
                "present", files(("notes.md", "Notes"), ("report/index.html", "Report"))
            )
            second = await client.call_tool("present", files(("data.csv", "Data")))
            return [first, second]

    first, second = anyio.run(main)

    assert not first.is_error
    assert first.content[0].text == (  # type: ignore[union-attr]
        "Presented 2 files: notes.md, report/index.html. "
        "They appear as cards in the Deliverables app."
    )
    assert first.structured_content == {
        "presented": ["notes.md", "report/index.html"],
        "count": 2,
    }
    with Store(server.data_dir) as store:
        (conversation,) = store.conversations()
        assert conversation.title == f"Claude Code — {workspace}"
        assert conversation.workspace == str(workspace.resolve())
        history = store.messages(conversation.id)
    # One turn per presentation: who, the call, its result, who presented.
    assert [m.message["type"] for m in history] == ["human", "ai", "tool", "ai"] * 2
    assert history[0].message["data"]["content"] == "From Claude Code"
    assert history[3].message["data"]["content"] == "Presented by Claude Code."
    records = [m.record for m in history if m.record is not None]
    assert len(records) == 2 and all(r.trusted for r in records)
    record = parse_record(records[0].raw)
    assert isinstance(record, Record)
    assert [f.resolved for f in record.files] == [
        str(workspace.resolve() / "notes.md"),
        str(workspace.resolve() / "report" / "index.html"),
    ]
    assert second.structured_content == {"presented": ["data.csv"], "count": 1}


def test_a_failed_present_names_every_failing_entry_and_stores_nothing(
    server: Server, workspace: Path, tmp_path: Path
) -> None:
    (workspace / ".env").write_text("TOKEN=secret")
    (workspace / "folder").mkdir()
    os.symlink(workspace / "notes.md", workspace / "link.md")
    os.mkfifo(workspace / "pipe")
    outside = tmp_path / "outside.txt"
    outside.write_text("elsewhere")
    call = files(
        ("missing.md", "gone"),
        (".env", "secrets"),
        (str(outside), "outside"),
        ("folder", "a folder"),
        ("link.md", "a link"),
        ("pipe", "a pipe"),
        ("notes.md", "notes"),
        ("./notes.md", "notes again"),
    )

    async def main() -> list[types.CallToolResult]:
        async with connect(server) as client:
            return [
                await client.call_tool("present", call),
                await client.call_tool("present", {"files": []}),
                await client.call_tool("present", files(*[("notes.md", "n")] * 9)),
                await client.call_tool("present", {"files": [{"path": "notes.md"}]}),
                await client.call_tool("present", None),
            ]

    results = anyio.run(main)

    assert all(result.is_error for result in results)
    text = results[0].content[0].text  # type: ignore[union-attr]
    error = json.loads(text.splitlines()[0])
    assert {e["path"]: e["reason"] for e in error["entries"]} == {
        "missing.md": "missing",
        ".env": "forbidden",
        str(outside): "forbidden",
        "folder": "directory",
        "link.md": "symlink",
        "pipe": "not_regular",
        "./notes.md": "duplicate",
    }
    assert text.splitlines()[1].startswith("Nothing was presented.")
    reasons = [json.loads(r.content[0].text.splitlines()[0]) for r in results[1:]]  # type: ignore[union-attr]
    assert reasons[0]["reason"] == "empty"
    assert reasons[1]["reason"] == "too_many"
    assert reasons[2]["entries"][0]["reason"] == "invalid"
    assert reasons[3]["reason"] == "invalid"
    with Store(server.data_dir) as store:
        assert store.conversations() == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read every file")
def test_an_unreadable_file_is_refused(server: Server, workspace: Path) -> None:
    locked = workspace / "locked.txt"
    locked.write_text("x")
    locked.chmod(0)

    async def main() -> types.CallToolResult:
        async with connect(server) as client:
            return await client.call_tool("present", files(("locked.txt", "locked")))

    result = anyio.run(main)

    error = json.loads(result.content[0].text.splitlines()[0])  # type: ignore[union-attr]
    assert result.is_error and error["entries"][0]["reason"] == "unreadable"


def test_show_image_comes_and_goes_with_the_public_folder(
    server: Server, workspace: Path
) -> None:
    public = workspace / "public"

    async def main() -> tuple[list[list[str]], types.CallToolResult]:
        listed: list[list[str]] = []
        changes = [0]
        changed = anyio.Event()

        async def on_message(message: object) -> None:
            nonlocal changed
            if isinstance(message, types.ToolListChangedNotification):
                changes[0] += 1
                changed.set()

        async with connect(server, on_message=on_message) as client:
            listed.append([t.name for t in (await client.list_tools()).tools])
            public.mkdir()
            (public / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(16))
            with anyio.fail_after(30):
                await changed.wait()
            changed = anyio.Event()
            listed.append([t.name for t in (await client.list_tools()).tools])
            shown = await client.call_tool(
                "show_image", {"filename": "chart.png", "caption": "The chart"}
            )
            (public / "chart.png").unlink()
            with anyio.fail_after(30):
                await changed.wait()
            listed.append([t.name for t in (await client.list_tools()).tools])
        return listed, shown

    listed, shown = anyio.run(main)

    assert listed == [["present"], ["present", "show_image"], ["present"]]
    assert not shown.is_error
    reply = json.loads(shown.content[0].text)  # type: ignore[union-attr]
    assert reply["filename"] == "chart.png" and reply["caption"] == "The chart"
    assert "path" not in reply  # the resolved path stays with the host
    with Store(server.data_dir) as store:
        (conversation,) = store.conversations()
        history = store.messages(conversation.id)
    assert [
        m.message["data"].get("name") for m in history if m.message["type"] == "tool"
    ] == ["show_image"]
    assert history[-1].message["data"]["content"] == "Shown by Claude Code."


def test_show_image_refuses_a_file_that_is_not_a_public_image(
    server: Server, workspace: Path
) -> None:
    (workspace / "public").mkdir()
    (workspace / "public" / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")

    async def main() -> list[types.CallToolResult]:
        async with connect(server) as client:
            return [
                await client.call_tool("show_image", {"filename": "notes.pdf"}),
                await client.call_tool("show_image", {"filename": "other.png"}),
                await client.call_tool("show_image", {"filename": "x.png", "y": 1}),
            ]

    results = anyio.run(main)

    details = [json.loads(r.content[0].text)["details"] for r in results]  # type: ignore[union-attr]
    assert all(r.is_error for r in results)
    assert [d["rejection_reason"] for d in details] == [
        "unsupported extension",
        "not found in public files",
        "invalid arguments",
    ]
    assert details[1]["available_image_files"] == ["chart.png"]


def test_show_image_suggests_only_tools_the_server_offers(
    server: Server, workspace: Path
) -> None:
    (workspace / "public").mkdir()
    (workspace / "public" / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")

    async def main() -> tuple[list[str], list[types.CallToolResult]]:
        async with connect(server) as client:
            offered = [t.name for t in (await client.list_tools()).tools]
            return offered, [
                await client.call_tool("show_image", {"filename": name})
                for name in ("notes.pdf", "other.png", "")
            ]

    offered, results = anyio.run(main)

    details = [json.loads(r.content[0].text)["details"] for r in results]  # type: ignore[union-attr]
    suggested = [d.get("suggested_tool") for d in details]
    assert suggested[0] == "present"
    assert all(tool is None or tool in offered for tool in suggested), suggested


# Every field a record holds beyond what the agent itself sent.
RECORD_KEYS = (
    "resolved",
    "scope",
    "size",
    "mtime_ns",
    "device",
    "inode",
    "kind",
    "declared_at",
    "workspace",
    "version",
    "record",
)


def tool_results(server: Server) -> list[dict[str, Any]]:
    """The results of every tools/call, as the server wrote them."""
    results = []
    for message in server.wire_messages():
        result = message.get("result")
        if isinstance(result, dict) and "content" in result:
            results.append(result)
    return results


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_no_record_field_or_value_is_on_the_wire(
    server: Server, workspace: Path, tmp_path: Path, mode: str
) -> None:
    server.wire = tmp_path / "wire.jsonl"
    (workspace / "public").mkdir()
    (workspace / "public" / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    presented = files(
        ("notes.md", "Quarterly notes"), ("report/index.html", "The full report page")
    )

    async def main() -> None:
        async with connect(server, roots=[workspace.as_uri()], mode=mode) as client:
            assert not (await client.call_tool("present", presented)).is_error
            assert not (
                await client.call_tool("show_image", {"filename": "chart.png"})
            ).is_error
            failed = await client.call_tool("present", files(("gone.md", "x")))
            assert failed.is_error

    anyio.run(main)

    with Store(server.data_dir) as store:
        (conversation,) = store.conversations()
        history = store.messages(conversation.id)
    (stored,) = [m.record for m in history if m.record is not None]
    assert stored is not None and stored.trusted
    record = parse_record(stored.raw)
    assert isinstance(record, Record)
    secrets = {record.workspace, record.declared_at, conversation.id}
    for entry in record.files:
        secrets |= {entry.resolved, str(entry.inode), str(entry.mtime_ns)}
        secrets.add(entry.description)  # the record's, not part of the reply
    secrets |= {m.message["data"]["tool_call_id"] for m in history if m.record}

    present, shown, failure = tool_results(server)
    for result in (present, shown, failure):
        text = json.dumps(result, ensure_ascii=False)
        leaked = [value for value in secrets if value in text]
        assert leaked == [], leaked
        assert set(result) <= {
            "content",
            "structuredContent",
            "isError",
            "_meta",
            "resultType",
        }
        assert str(workspace.resolve()) not in text
        # The only _meta is the SDK's own stamp of who answered (2026 protocol).
        assert set(result.get("_meta", {})) <= {"io.modelcontextprotocol/serverInfo"}
    assert present["structuredContent"] == {
        "presented": ["notes.md", "report/index.html"],
        "count": 2,
    }
    present_text = json.dumps({k: v for k, v in present.items() if k != "_meta"})
    for key in RECORD_KEYS:
        assert f'"{key}"' not in present_text
