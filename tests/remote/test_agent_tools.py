"""The agent's tools on an ssh:// workspace answer as on the same folder locally."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from app.agent.tools import (
    SYSTEM_PROMPT,
    TOOL_ORDER,
    AgentSession,
    make_tools,
)
from app.core.trust.policy import Policy, load_policy
from app.core.trust.records import REMOTE_RECORD_VERSION, Record, parse_record
from app.remote.workspace import RemoteWorkspace
from app.workspace.choose import local_workspace, ssh_workspace
from tests.remote.fixtures import manager as manager
from tests.remote.fixtures import remote_root as remote_root
from tests.remote.fixtures import ssh_home as ssh_home
from tests.remote.fixtures import sshd as sshd
from tests.remote.fixtures import workspace as workspace

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


@pytest.fixture
def tree(remote_root: Path, tmp_path: Path) -> Path:
    (remote_root / "data.csv").write_text("a,b\n1,2\n")
    (remote_root / ".env").write_text("KEY=1")
    (remote_root / "sub" / "deeper").mkdir(parents=True)
    (remote_root / "sub" / "deeper" / "file.txt").write_text("deep")
    (remote_root / "big.txt").write_text("x" * (300 * 1024))
    (remote_root / "blob.bin").write_bytes(b"\0\1\2")
    (remote_root / "link.md").symlink_to(remote_root / "notes.md")
    (remote_root / "folder-link").symlink_to(remote_root / "report")
    (remote_root / "escape").symlink_to(tmp_path)
    (tmp_path / "outside.txt").write_text("outside")
    (remote_root / "public").mkdir()
    (remote_root / "public" / "logo.png").write_bytes(PNG)
    (remote_root / "public" / "readme.txt").write_text("not an image")
    return remote_root


@pytest.fixture
def sessions(
    workspace: RemoteWorkspace, tree: Path, tmp_path: Path
) -> tuple[AgentSession, AgentSession]:
    """The same folder as a local session and as an ssh:// session."""

    def policy() -> Policy:
        return load_policy(user_file=tmp_path / "none.toml", home=workspace.home)

    local = AgentSession(workspace=local_workspace(tree), policy_loader=policy)
    remote = AgentSession(workspace=ssh_workspace(workspace), policy_loader=policy)
    return local, remote


def call(session: AgentSession, name: str, **args: Any) -> ToolMessage:
    tools: dict[str, BaseTool] = {t.name: t for t in make_tools(session)}
    result = tools[name].invoke(
        {"type": "tool_call", "id": f"call-{name}", "name": name, "args": args}
    )
    assert isinstance(result, ToolMessage)
    return result


def both(
    sessions: tuple[AgentSession, AgentSession], name: str, **args: Any
) -> tuple[ToolMessage, ToolMessage]:
    local, remote = sessions
    return call(local, name, **args), call(remote, name, **args)


def test_schemas_and_prompt_are_byte_identical_for_a_remote_workspace(
    sessions: tuple[AgentSession, AgentSession],
) -> None:
    local, remote = sessions
    first = [convert_to_openai_tool(t) for t in make_tools(local)]
    second = [convert_to_openai_tool(t) for t in make_tools(remote)]
    assert [t["function"]["name"] for t in second] == list(TOOL_ORDER)
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    assert "ssh" not in SYSTEM_PROMPT


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"path": "."},
        {"path": "sub"},
        {"path": "missing"},
        {"path": "../x"},
        {"path": "notes.md"},
        {"path": ".env"},
        {"path": "escape"},
    ],
)
def test_list_files_answers_alike(
    sessions: tuple[AgentSession, AgentSession], args: dict[str, str]
) -> None:
    local, remote = both(sessions, "list_files", **args)
    assert (remote.status, remote.content) == (local.status, local.content)


def test_list_files_shows_what_the_local_walk_shows(
    sessions: tuple[AgentSession, AgentSession],
) -> None:
    _local, remote = both(sessions, "list_files")
    lines = str(remote.content).splitlines()
    assert "link.md (symbolic link)" in lines
    assert "sub/deeper/file.txt (4 bytes)" in lines
    assert not any(
        line.startswith((".env", "folder-link", "escape/")) for line in lines
    )


@pytest.mark.parametrize(
    "path",
    [
        "notes.md",
        "big.txt",
        "blob.bin",
        "missing.md",
        "../outside.txt",
        ".env",
        "report",
        "link.md",
        "escape/outside.txt",
        "sub/deeper/file.txt",
        "",
    ],
)
def test_read_file_answers_alike(
    sessions: tuple[AgentSession, AgentSession], path: str
) -> None:
    local, remote = both(sessions, "read_file", path=path)
    assert (remote.status, remote.content) == (local.status, local.content)


def test_read_file_never_opens_a_fifo(
    sessions: tuple[AgentSession, AgentSession], tree: Path
) -> None:
    os.mkfifo(tree / "pipe")
    local, remote = both(sessions, "read_file", path="pipe")
    assert remote.status == "error"
    assert (remote.status, remote.content) == (local.status, local.content)


@pytest.mark.parametrize(
    "path",
    [
        "new/dir/made.md",
        "notes.md",
        ".env",
        "../out.md",
        "dir/",
        "link.md",
        "escape/planted.md",
        "report",
    ],
)
def test_write_file_answers_and_acts_alike(
    sessions: tuple[AgentSession, AgentSession],
    tree: Path,
    tmp_path: Path,
    path: str,
) -> None:
    local, remote = sessions
    content = "written\n"
    remote_answer = call(remote, "write_file", path=path, content=content)
    remote_effect = snapshot_of(tree, tmp_path)
    local_answer = call(local, "write_file", path=path, content=content + "!")
    local_effect = snapshot_of(tree, tmp_path)
    assert (remote_answer.status, remote_answer.content) == (
        local_answer.status,
        str(local_answer.content).replace("9 bytes", "8 bytes"),
    )
    assert remote_effect.keys() == local_effect.keys()
    assert not (tmp_path / "planted.md").exists()
    assert (tree / "notes.md").read_text() in ("# Notes\n", "written\n!")


def snapshot_of(tree: Path, outside: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    for base in (tree, outside):
        for folder, _dirs, files in os.walk(base):
            for name in files:
                path = Path(folder, name)
                if not name.endswith(".tmp"):
                    found[str(path)] = path.lstat().st_mode
    return found


def test_write_file_keeps_the_mode_and_leaves_no_temporary_file(
    sessions: tuple[AgentSession, AgentSession], tree: Path
) -> None:
    _local, remote = sessions
    (tree / "notes.md").chmod(0o640)
    answer = call(remote, "write_file", path="notes.md", content="new")
    assert answer.status == "success"
    assert (tree / "notes.md").read_text() == "new"
    assert (tree / "notes.md").stat().st_mode & 0o777 == 0o640
    assert not [name for name in os.listdir(tree) if name.endswith(".tmp")]


def test_present_answers_alike_and_records_the_remote_file(
    sessions: tuple[AgentSession, AgentSession], workspace: RemoteWorkspace
) -> None:
    files = [{"path": "report/index.html", "description": "The report"}]
    local, remote = both(sessions, "present", files=files)
    assert (remote.status, remote.content) == (local.status, local.content)
    record = parse_record(remote.artifact)
    assert isinstance(record, Record) and record.version == REMOTE_RECORD_VERSION
    assert record.workspace == workspace.address
    failing = [
        {"path": "nope.md", "description": "d"},
        {"path": ".env", "description": "d"},
    ]
    local, remote = both(sessions, "present", files=failing)
    assert remote.status == "error" and remote.artifact is None
    assert remote.content == local.content


def test_show_image_works_from_the_remote_public_folder(
    sessions: tuple[AgentSession, AgentSession],
    workspace: RemoteWorkspace,
    tree: Path,
) -> None:
    local, remote = both(sessions, "show_image", filename="logo.png", caption="Logo")
    assert remote.status == "success"
    shown, expected = json.loads(str(remote.content)), json.loads(str(local.content))
    assert shown.pop("src_url").startswith("public://")
    expected.pop("src_url")
    assert shown == expected
    assert remote.artifact["data"] == PNG
    assert (
        remote.artifact["remote"]
        == workspace.place.coordinate(str(tree / "public" / "logo.png")).url()
    )
    assert "path" not in remote.artifact  # no local path exists to read


@pytest.mark.parametrize("name", ["missing.png", "readme.txt", "notes.md"])
def test_show_image_failures_answer_alike(
    sessions: tuple[AgentSession, AgentSession], name: str
) -> None:
    local, remote = both(sessions, "show_image", filename=name)
    assert (remote.status, remote.content) == (local.status, local.content)


def test_public_files_are_seen_remotely(
    sessions: tuple[AgentSession, AgentSession], tree: Path
) -> None:
    local, remote = sessions
    assert remote.has_public_files() and local.has_public_files()
    for name in os.listdir(tree / "public"):
        (tree / "public" / name).unlink()
    assert not remote.has_public_files()


def test_a_remote_session_has_no_local_folder(
    sessions: tuple[AgentSession, AgentSession],
) -> None:
    _local, remote = sessions
    with pytest.raises(TypeError):
        remote.root()


def test_an_agent_turn_on_a_remote_workspace_stores_a_trusted_remote_record(
    workspace: RemoteWorkspace, tree: Path, tmp_path: Path
) -> None:
    from app.agent.models import RecordingChatModel
    from app.agent.runner import AgentRunner
    from app.core.store import Store
    from app.core.store.deliverables import DeliverableRef
    from app.core.trust.revalidate import Verdict
    from app.remote.manager import RemoteManager
    from tests.app.agent.scripts import answer, present

    model = RecordingChatModel(
        replies=[present("call-1", "report/index.html"), answer("Done.")]
    )
    session = AgentSession(workspace=ssh_workspace(workspace))
    with Store(tmp_path / "data") as store:
        conversation = store.create_conversation("remote", workspace.address)
        AgentRunner(store, conversation.id, model, session).run("Make a report")
        stored = store.record(conversation.id, "call-1")
        assert stored is not None and stored.trusted
        record = parse_record(stored.raw)
        assert isinstance(record, Record) and record.version == REMOTE_RECORD_VERSION
        # The record never reached the model.
        assert stored.raw not in json.dumps([str(r) for r in model.requests])
        manager = RemoteManager()
        try:
            ref = DeliverableRef(conversation.id, "call-1", 0)
            check, _entry, _ws = manager.check_deliverable(store, ref).result(60)
        finally:
            manager.close()
        assert check.check.verdict is Verdict.OK


def test_list_files_walks_any_depth_on_the_host(
    sessions: tuple[AgentSession, AgentSession], tree: Path
) -> None:
    _local, remote = sessions
    deep = tree / "deep"
    deep.mkdir()
    fd = os.open(deep, os.O_RDONLY)
    try:
        for _ in range(1200):  # deeper than Python's recursion limit
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
        os.close(os.open("end.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    try:
        answer = call(remote, "list_files", path="deep")
        assert answer.status == "success"
        assert str(answer.content).endswith("/d/end.txt (0 bytes)")
    finally:
        # Removed here, bottom up: a recursive cleanup would hit the same limit.
        levels = [str(deep / "/".join(["d"] * depth)) for depth in range(1, 1201)]
        os.unlink(os.path.join(levels[-1], "end.txt"))
        for level in reversed(levels):
            os.rmdir(level)


def test_show_image_refuses_an_image_over_the_chat_limit_without_fetching_it(
    sessions: tuple[AgentSession, AgentSession], tree: Path
) -> None:
    _local, remote = sessions
    huge = tree / "public" / "huge.png"
    huge.write_bytes(PNG)
    os.truncate(huge, 33 * 1024 * 1024)
    answer = call(remote, "show_image", filename="huge.png")
    assert answer.status == "error"
    details = json.loads(str(answer.content))["details"]
    assert details["rejection_reason"] == "file too large"
    assert "32 MiB" in details["hint"]
