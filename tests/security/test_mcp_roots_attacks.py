"""An MCP client cannot widen its workspace with roots, nor name itself into trust.

Every attack is made by the SDK's own client against a real ``deliverables
mcp`` subprocess in workspace-only mode: the client starts in its project,
then changes its roots to reach a file outside it. The server must refuse the
call with the reason and store nothing; only the user's approval in the
window lets a client past the folder the user set.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from anyio.from_thread import start_blocking_portal
from mcp.client.client import Client
from mcp.shared.exceptions import MCPDeprecationWarning
from PySide6.QtCore import Qt

from app.core.store import Store
from app.core.trust.records import Record, parse_record
from app.ui.channel.live_updates import LiveUpdates
from app.ui.window.main_window import MainWindow
from tests.app.mcp.conftest import Server, files

WAIT_MS = 20_000


class MovingRoots:
    """A client whose roots the test changes mid-session, as a hostile one would."""

    def __init__(self, server: Server, roots: list[str], name: str) -> None:
        self.server = server
        self.roots = roots
        self.name = name
        self.served: list[list[str]] = []

    async def list_roots(self, _context: Any) -> types.ListRootsResult:
        self.served.append(list(self.roots))
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in self.roots])

    def client(self) -> Client:
        return Client(
            self.server.params(),
            mode="legacy",
            list_roots_callback=self.list_roots,
            client_info=types.Implementation(name=self.name, version="1.0"),
            read_timeout_seconds=60,
        )

    async def move_to(self, client: Client, roots: list[str]) -> None:
        """Declare ``roots`` and wait until the server has read them."""
        self.roots = roots
        with warnings.catch_warnings():
            # Deprecated by the 2026 protocol; the clients of today still
            # speak the one with roots, and so does this one.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.send_roots_list_changed()
        with anyio.fail_after(30):
            while roots not in self.served:
                await anyio.sleep(0.02)


def text_of(result: types.CallToolResult) -> str:
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    return content.text


def stored_paths(data_dir: Path) -> list[str]:
    with Store(data_dir) as store:
        paths = []
        for conversation in store.conversations():
            for message in store.messages(conversation.id):
                if message.record is not None:
                    record = parse_record(message.record.raw)
                    assert isinstance(record, Record)
                    paths += [entry.resolved for entry in record.files]
    return paths


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A harmless-looking file the client should not be able to present."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    target = folder / "plans.md"
    target.write_text("not part of the project")
    return target


def widen(server: Server, project: Path, roots: list[str], path: Path) -> str:
    """Start in the project, move the roots, present ``path``; the refusal."""
    moving = MovingRoots(server, [project.as_uri()], "claude-code")

    async def main() -> types.CallToolResult:
        async with moving.client() as client:
            first = await client.call_tool("present", files(("notes.md", "Notes")))
            assert not first.is_error, first.content
            await moving.move_to(client, roots)
            return await client.call_tool("present", files((str(path), "Plans")))

    result = anyio.run(main)
    assert result.is_error, "the file outside the project was presented"
    return text_of(result)


@pytest.mark.parametrize(
    "root",
    [
        "file:///",
        # Decodes to PROJ/../../ (the project's grandparent), the %2F hiding
        # the separators from anything that reads the raw URI.
        "file://localhost{project}/..%2F..%2F",
        "file://{project}/%2E%2E%2F%2E%2E",
    ],
)
def test_a_root_of_everything_or_of_hidden_steps_is_refused(
    tmp_path: Path, project: Path, outside: Path, root: str
) -> None:
    server = Server(data_dir=tmp_path / "data", cwd=project)
    uri = root.format(project=project.as_posix())

    reason = widen(server, project, [uri], outside)

    assert "is refused" in reason
    assert stored_paths(server.data_dir) == [str(project.resolve() / "notes.md")]


def test_roots_cannot_move_the_workspace_outside_the_folder_the_user_set(
    tmp_path: Path, project: Path, outside: Path
) -> None:
    server = Server(data_dir=tmp_path / "data", cwd=project)

    reason = widen(server, project, [outside.parent.as_uri()], outside)

    assert f"root {outside.parent.resolve()} is outside {project.resolve()}" in reason
    assert "approve" in reason
    assert stored_paths(server.data_dir) == [str(project.resolve() / "notes.md")]


def test_roots_cannot_widen_past_the_workspace_option_either(
    tmp_path: Path, project: Path, outside: Path
) -> None:
    server = Server(
        data_dir=tmp_path / "data",
        cwd=tmp_path,  # the folder it starts in holds everything ...
        args=["--workspace", str(project)],  # ... but the user said this one
    )

    reason = widen(server, project, [tmp_path.as_uri()], outside)

    assert f"is outside {project.resolve()}" in reason
    assert stored_paths(server.data_dir) == [str(project.resolve() / "notes.md")]


def test_a_server_started_in_the_file_systems_root_bounds_nothing(
    tmp_path: Path, project: Path, outside: Path
) -> None:
    # Some clients start their servers in "/": then every folder would lie
    # inside the folder it started in, and roots could pick any of them.
    server = Server(data_dir=tmp_path / "data", cwd=Path("/"))
    moving = MovingRoots(server, [outside.parent.as_uri()], "claude-code")

    async def main() -> list[types.CallToolResult]:
        async with moving.client() as client:
            by_root = await client.call_tool("present", files((str(outside), "P")))
            await moving.move_to(client, [])
            by_cwd = await client.call_tool("present", files((str(outside), "P")))
            return [by_root, by_cwd]

    by_root, by_cwd = anyio.run(main)

    assert by_root.is_error, "a root chose its workspace under a server in /"
    assert "needs approval" in text_of(by_root)
    assert by_cwd.is_error, "the file system's root served as the workspace"
    assert "without --workspace" in text_of(by_cwd)
    assert stored_paths(server.data_dir) == []


def test_a_root_that_links_out_of_the_project_is_judged_where_it_leads(
    tmp_path: Path, project: Path, outside: Path
) -> None:
    (project / "door").symlink_to(outside.parent)
    server = Server(data_dir=tmp_path / "data", cwd=project)

    reason = widen(server, project, [(project / "door").as_uri()], outside)

    assert f"root {outside.parent.resolve()} is outside" in reason


def test_a_client_calling_itself_claude_code_is_not_labelled_claude_code(
    tmp_path: Path, project: Path
) -> None:
    unnamed = Server(data_dir=tmp_path / "unnamed", cwd=project, client=None)
    named = Server(data_dir=tmp_path / "named", cwd=project, client="codex")

    async def main(server: Server) -> None:
        moving = MovingRoots(server, [project.as_uri()], "claude-code")
        async with moving.client() as client:
            result = await client.call_tool("present", files(("notes.md", "Notes")))
            assert not result.is_error

    for server in (unnamed, named):
        anyio.run(main, server)

    with Store(unnamed.data_dir) as store:
        (conversation,) = store.conversations()
        history = store.messages(conversation.id)
    label = "An MCP client (calls itself “claude-code”)"
    assert conversation.title.startswith(f"{label} — ")
    assert history[0].message["data"]["content"] == f"From {label}"
    with Store(named.data_dir) as store:
        (conversation,) = store.conversations()
    # What the user registered wins over what the client says it is.
    assert conversation.title.startswith("Codex — ")


# -- the user's approval is the one way past the boundary ----------------------


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> Iterator[tuple[MainWindow, LiveUpdates]]:
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    window = MainWindow(store, data_dir)
    qtbot.addWidget(window)
    live = LiveUpdates(window, store, data_dir)
    assert live.listen(), live.channel.problem
    window.refresh_conversations()
    window.show()
    yield window, live
    live.close()
    window.close()
    store.close()


def test_a_folder_approved_in_the_window_is_honoured_for_that_client_only(
    qtbot: Any,
    tmp_path: Path,
    project: Path,
    outside: Path,
    window: tuple[MainWindow, LiveUpdates],
) -> None:
    _main_window, live = window
    server = Server(data_dir=tmp_path / "data", cwd=project)
    moving = MovingRoots(server, [project.as_uri()], "claude-code")
    call = files((str(outside), "Plans"))

    with ExitStack() as stack:
        portal = stack.enter_context(start_blocking_portal())
        client = stack.enter_context(portal.wrap_async_context_manager(moving.client()))

        def run(coroutine: Any, *args: Any) -> Any:
            future: Future[Any] = portal.start_task_soon(coroutine, *args)
            qtbot.waitUntil(future.done, timeout=WAIT_MS)
            return future.result()

        run(moving.move_to, client, [outside.parent.as_uri()])
        refused = run(client.call_tool, "present", call)
        assert refused.is_error
        prompt = live.folder_requests
        qtbot.waitUntil(prompt.isVisible, timeout=WAIT_MS)
        assert prompt.text().startswith(
            f"Claude Code asks to work in {outside.parent.resolve()}, "
            f"outside {project.resolve()}"
        )

        with qtbot.waitSignal(prompt.approved):
            qtbot.mouseClick(prompt.approve_button, Qt.MouseButton.LeftButton)
        accepted = run(client.call_tool, "present", call)

    assert not accepted.is_error, text_of(accepted)
    assert str(outside.resolve()) in stored_paths(server.data_dir)
    # Another client (by the name the user gave it) is still kept inside.
    other = Server(data_dir=tmp_path / "data", cwd=project, client="codex")
    reason = widen(other, project, [outside.parent.as_uri()], outside)
    assert "is outside" in reason
