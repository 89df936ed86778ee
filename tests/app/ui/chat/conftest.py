"""Fixtures for the chat view: a workspace with a public image, demo-like messages."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QColor, QImage

from app.core.store import StoredMessage, StoredRecord
from app.core.trust.policy import Policy, load_policy

CID = "conv-1"
ANSWER = "## Done\n\nRevenue grew **47 %**.\n\n- North leads.\n- Refunds are low."


def record_json(workspace: Path, names: list[str], scope: str = "workspace") -> str:
    files = [
        {
            "path": name,
            "resolved": str(workspace / name),
            "description": f"Description of {name}",
            "scope": scope,
            "size": 2048 * (i + 1),
            "mtime_ns": 1,
            "device": 1,
            "inode": i + 1,
            "kind": "html",
        }
        for i, name in enumerate(names)
    ]
    data = {
        "version": 1,
        "declared_at": "x",
        "workspace": str(workspace),
        "files": files,
    }
    return json.dumps(data)


class Messages:
    """Builds LangChain-shaped stored messages."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.items: list[StoredMessage] = []

    def add(
        self, kind: str, rec: StoredRecord | None = None, **data: Any
    ) -> StoredMessage:
        stored = StoredMessage(len(self.items), CID, {"type": kind, "data": data}, rec)
        self.items.append(stored)
        return stored

    def human(self, text: str) -> None:
        self.add("human", content=text)

    def call(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        calls = [{"id": call_id, "name": name, "args": args}]
        self.add("ai", content="", tool_calls=calls)

    def result(
        self,
        call_id: str,
        name: str,
        content: str,
        raw: str | None = None,
        status: str = "success",
    ) -> None:
        rec = StoredRecord(call_id, raw, True) if raw is not None else None
        self.add(
            "tool", rec, content=content, tool_call_id=call_id, name=name, status=status
        )

    def answer(self, text: str) -> None:
        self.add("ai", content=text, tool_calls=[])

    def present(self, call_id: str, names: list[str], scope: str = "workspace") -> None:
        self.call(call_id, "present", {"files": [{"path": n} for n in names]})
        raw = record_json(self.workspace, names, scope)
        self.result(call_id, "present", f"Presented {len(names)} files.", raw=raw)

    def image(self, call_id: str, filename: str, mime: str = "image/png") -> None:
        self.call(call_id, "show_image", {"filename": filename})
        content = {
            "action": "image",
            "filename": filename,
            "src_url": "public://t/x",
            "mime": mime,
            "size": 1,
            "alt_text": f"Alt of {filename}",
            "caption": "A caption",
        }
        self.result(call_id, "show_image", json.dumps(content))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "public").mkdir(parents=True)
    image = QImage(800, 400, QImage.Format.Format_RGB32)
    image.fill(QColor("#3366cc"))
    assert image.save(str(root / "public" / "logo.png"), "PNG")
    return root


@pytest.fixture
def policy(workspace: Path, tmp_path: Path) -> Callable[[], Policy]:
    return lambda: load_policy(workspace=workspace, user_file=tmp_path / "none.toml")


@pytest.fixture
def demo_messages(workspace: Path) -> Messages:
    m = Messages(workspace)
    m.human("Please analyse the sales data.")
    m.call("c1", "list_files", {"path": "."})
    m.result(
        "c1", "list_files", "data/sales.csv (10 bytes)\nreport/index.html (20 bytes)"
    )
    m.call("c2", "present", {"files": [{"path": "report/indx.html"}]})
    m.result(
        "c2", "present", "present failed: 'report/indx.html' is missing", status="error"
    )
    m.present("c3", ["index.html", "summary.md", "data.csv"])
    m.answer(ANSWER)
    m.human("Show me the logo")
    m.image("c4", "logo.png")
    m.answer("Here is the logo.")
    return m


@pytest.fixture
def new_messages(workspace: Path) -> Callable[[], Messages]:
    return lambda: Messages(workspace)
