"""The agent's tools: fixed contract, present, show_image and workspace access."""

from __future__ import annotations

import json
import os
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from app.agent.tools import TOOL_ORDER, AgentSession, PermissionSetting, make_tools
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.public_files import LinkRegistry
from app.core.trust.records import Record, parse_record
from app.workspace.choose import local_workspace
from app.workspace.local import LocalWorkspace


def call(session: AgentSession, name: str, **args: Any) -> ToolMessage:
    tools: dict[str, BaseTool] = {t.name: t for t in make_tools(session)}
    result = tools[name].invoke(
        {"type": "tool_call", "id": f"call-{name}", "name": name, "args": args}
    )
    assert isinstance(result, ToolMessage)
    return result


def test_tools_come_in_a_fixed_order_with_identical_schemas(
    session: AgentSession, tmp_path: Path
) -> None:
    other = AgentSession(
        workspace=local_workspace(tmp_path),
        permission=PermissionSetting(PermissionMode.ALLOW_EXTERNAL),
        links=LinkRegistry(ttl=1),
    )
    first = [convert_to_openai_tool(t) for t in make_tools(session)]
    second = [convert_to_openai_tool(t) for t in make_tools(other)]

    assert [t["function"]["name"] for t in first] == list(TOOL_ORDER)
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


# -- present ----------------------------------------------------------------------


def test_present_gives_the_model_short_text_and_keeps_the_record_as_artifact(
    session: AgentSession, workspace: Path
) -> None:
    result = call(
        session,
        "present",
        files=[
            {"path": "report/index.html", "description": "The report"},
            {"path": "notes.md", "description": "Notes"},
        ],
    )

    assert result.status == "success"
    assert result.content == (
        "Presented 2 files: report/index.html, notes.md. "
        "They appear as cards under your answer."
    )
    record = parse_record(result.artifact)
    assert isinstance(record, Record)
    assert [f.resolved for f in record.files] == [
        str(workspace.resolve() / "report" / "index.html"),
        str(workspace.resolve() / "notes.md"),
    ]
    assert str(workspace.resolve()) not in str(result.content)


def test_present_failure_is_an_error_naming_every_failing_entry(
    session: AgentSession, workspace: Path
) -> None:
    (workspace / ".env").write_text("KEY=1")
    result = call(
        session,
        "present",
        files=[
            {"path": "report/indx.html", "description": "typo"},
            {"path": "notes.md", "description": "fine"},
            {"path": ".env", "description": "secret"},
            {"path": "report", "description": "a folder"},
        ],
    )

    assert result.status == "error"
    assert result.artifact is None
    first_line, hint = str(result.content).split("\n")
    error = json.loads(first_line)
    assert [(e["path"], e["reason"]) for e in error["entries"]] == [
        ("report/indx.html", "missing"),
        (".env", "forbidden"),
        ("report", "directory"),
    ]
    assert "call present again" in hint


def test_present_outside_the_workspace_depends_on_the_permission_mode(
    session: AgentSession, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    files = [{"path": str(outside), "description": "external"}]

    assert call(session, "present", files=files).status == "error"
    session.permission.set(PermissionMode.ALLOW_EXTERNAL)
    assert call(session, "present", files=files).status == "success"


# -- show_image -------------------------------------------------------------------


@pytest.fixture
def public(workspace: Path) -> Path:
    folder = workspace / "public"
    folder.mkdir()
    (folder / "logo.png").write_bytes(b"\x89PNG fake")
    (folder / "report.pdf").write_bytes(b"%PDF-1.7")
    return folder


def test_show_image_returns_a_live_short_lived_link_and_metadata(
    session: AgentSession, public: Path
) -> None:
    result = call(session, "show_image", filename="logo.png", caption="Our logo")

    assert result.status == "success"
    content = json.loads(str(result.content))
    assert content == {
        "action": "image",
        "filename": "logo.png",
        "src_url": content["src_url"],
        "mime": "image/png",
        "size": 9,
        "alt_text": "logo.png",
        "caption": "Our logo",
    }
    assert session.links.resolve(content["src_url"]) == public / "logo.png"
    assert result.artifact == {**content, "path": str(public.resolve() / "logo.png")}
    assert str(public.resolve()) not in str(result.content)


def test_show_image_of_a_non_image_suggests_present_and_lists_images(
    session: AgentSession, public: Path
) -> None:
    result = call(session, "show_image", filename="report.pdf")

    assert result.status == "error"
    error = json.loads(str(result.content))
    assert error["error"] == "show_image failed: not an image file."
    assert error["details"] == {
        "filename": "report.pdf",
        "rejection_reason": "unsupported extension",
        "available_image_files": ["logo.png"],
        "suggested_tool": "present",
        "hint": "Use present for .pdf files.",
    }


def test_show_image_of_a_missing_file_lists_the_available_images(
    session: AgentSession, public: Path
) -> None:
    result = call(session, "show_image", filename="photo.jpg")

    assert result.status == "error"
    details = json.loads(str(result.content))["details"]
    assert details["rejection_reason"] == "not found in public files"
    assert details["available_image_files"] == ["logo.png"]


@pytest.mark.parametrize("name", ["../report/index.html", "sub/logo.png"])
def test_show_image_refuses_anything_outside_the_public_folder(
    session: AgentSession, public: Path, name: str
) -> None:
    (public / "sub").mkdir()
    (public / "sub" / "logo.png").write_bytes(b"png")

    assert call(session, "show_image", filename=name).status == "error"


def test_show_image_refuses_alt_text_over_300_characters(
    session: AgentSession, public: Path
) -> None:
    result = call(session, "show_image", filename="logo.png", alt_text="a" * 301)

    assert result.status == "error"
    details = json.loads(str(result.content))["details"]
    assert details["rejection_reason"] == "alt_text too long"


# -- workspace tools --------------------------------------------------------------


def test_list_and_read_stay_inside_the_workspace(session: AgentSession) -> None:
    listing = call(session, "list_files")
    content = call(session, "read_file", path="notes.md")

    assert str(listing.content).splitlines() == [
        "data.csv (8 bytes)",
        "notes.md (8 bytes)",
        "report/index.html (15 bytes)",
    ]
    assert content.content == "# Notes\n"


@pytest.mark.parametrize("tool", ["read_file", "list_files"])
def test_dot_dot_escapes_are_refused(
    session: AgentSession, tmp_path: Path, tool: str
) -> None:
    (tmp_path / "secret.txt").write_text("top secret")

    path = "../secret.txt" if tool == "read_file" else ".."
    result = call(session, tool, path=path)

    assert result.status == "error"
    assert "outside the workspace" in str(result.content)


def test_symlink_escapes_are_refused(
    session: AgentSession, workspace: Path, tmp_path: Path
) -> None:
    (tmp_path / "secret.txt").write_text("top secret")
    os.symlink(tmp_path / "secret.txt", workspace / "innocent.txt")
    os.symlink(tmp_path, workspace / "up")

    assert call(session, "read_file", path="innocent.txt").status == "error"
    assert call(session, "read_file", path="up/secret.txt").status == "error"
    written = call(session, "write_file", path="up/new.txt", content="x")
    assert written.status == "error"
    assert not (tmp_path / "new.txt").exists()


def test_denied_paths_are_refused_and_not_listed(
    session: AgentSession, workspace: Path
) -> None:
    (workspace / ".env").write_text("API_KEY=secret")

    assert call(session, "read_file", path=".env").status == "error"
    assert call(session, "write_file", path=".env", content="x").status == "error"
    assert ".env" not in str(call(session, "list_files").content)
    assert (workspace / ".env").read_text() == "API_KEY=secret"


def test_write_creates_folders_and_refuses_a_final_symlink(
    session: AgentSession, workspace: Path, tmp_path: Path
) -> None:
    target = tmp_path / "outside.txt"
    target.write_text("original")
    os.symlink(target, workspace / "link.txt")

    created = call(session, "write_file", path="out/deep/new.md", content="# New")
    through_link = call(session, "write_file", path="link.txt", content="changed")

    assert created.status == "success"
    assert (workspace / "out" / "deep" / "new.md").read_text() == "# New"
    assert through_link.status == "error"
    assert target.read_text() == "original"


def test_read_file_caps_large_files_and_refuses_binary(
    session: AgentSession, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("x" * (300 * 1024))
    (workspace / "blob.bin").write_bytes(b"\0\1\2")

    big = str(call(session, "read_file", path="big.txt").content)

    assert big.endswith("[... truncated after 262144 bytes]")
    assert call(session, "read_file", path="blob.bin").status == "error"


class _PolicyUnreadable(LocalWorkspace):
    """A folder whose policy cannot be read, as on a host that stopped answering."""

    def policy(self) -> Future[Policy]:
        failed: Future[Policy] = Future()
        failed.set_exception(OSError("the host stopped answering"))
        return failed


def test_a_workspace_whose_policy_cannot_be_read_denies_everything(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.md").write_text("kept to myself")
    session = AgentSession(workspace=_PolicyUnreadable(tmp_path))

    reply = call(session, "read_file", path="notes.md")
    assert reply.status == "error" and "myself" not in str(reply.content)
    written = call(session, "write_file", path="new.md", content="x")
    assert written.status == "error" and not (tmp_path / "new.md").exists()
