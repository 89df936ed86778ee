"""Nothing of a record reaches the model: the server's raw stdout, checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from app.core.store import Store
from app.core.trust.records import Record, parse_record

from .conftest import Server, connect, files

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
