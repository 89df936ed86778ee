"""The window and the MCP server: opened on the first presentation, then live."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from PySide6.QtCore import QEvent, QObject

from app.core.channel.notify import OpenRequest, send
from app.core.chat.blocks import AssistantTextBlock, DeliverableBlock
from app.core.store import Store
from app.core.trust.records import Record, parse_record
from app.ui.channel.live_updates import LiveUpdates
from app.ui.window.main_window import MainWindow

from .conftest import REPO_ROOT, Server, connect, files, server_env


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


WAIT_MS = 20_000  # generous: CI machines are shared; speed is a benchmark's job


class PaintCounter(QObject):
    """Counts paints of a widget, to know a change was drawn, not only modelled."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


class Live:
    """A window listening on its store's channel, and an MCP client beside it."""

    def __init__(self, window: MainWindow, store: Store, portal: BlockingPortal):
        self.window = window
        self.store = store
        self.portal = portal
        self.client: Any = None

    def call(self, name: str, arguments: dict[str, Any]) -> Future[Any]:
        """Start a tool call on the client's thread; Qt keeps running meanwhile."""
        return self.portal.start_task_soon(self.client.call_tool, name, arguments)

    def cards(self) -> dict[str, DeliverableBlock]:
        model = self.window.chat.chat_model()
        blocks = [model.block(row) for row in range(model.rowCount())]
        return {
            b.entry.name: b
            for b in blocks
            if isinstance(b, DeliverableBlock) and b.entry is not None
        }


@pytest.fixture
def live(qtbot: Any, server: Server, workspace: Path) -> Iterator[Live]:
    with ExitStack() as stack:
        store = Store(server.data_dir)
        stack.callback(store.close)
        window = MainWindow(store, server.data_dir)
        qtbot.addWidget(window)
        updates = LiveUpdates(window, store, server.data_dir)
        assert updates.listen(), updates.channel.problem
        stack.callback(updates.close)
        window.refresh_conversations()
        window.show()
        qtbot.waitExposed(window)
        portal = stack.enter_context(start_blocking_portal())
        result = Live(window, store, portal)
        result.client = stack.enter_context(
            portal.wrap_async_context_manager(
                connect(server, roots=[workspace.as_uri()])
            )
        )
        yield result
        window.close()


def wait_for(qtbot: Any, future: Future[Any]) -> Any:
    qtbot.waitUntil(future.done, timeout=WAIT_MS)
    return future.result()


def test_presented_files_appear_as_cards_in_the_open_window(
    live: Live, qtbot: Any
) -> None:
    painter = PaintCounter()
    live.window.chat.viewport().installEventFilter(painter)

    result = wait_for(
        qtbot,
        live.call("present", files(("notes.md", "Notes"), ("data.csv", "Data"))),
    )
    assert not result.is_error
    qtbot.waitUntil(lambda: len(live.cards()) == 2, timeout=WAIT_MS)
    painted = painter.count
    qtbot.waitUntil(lambda: painter.count > painted, timeout=WAIT_MS)

    window = live.window
    assert set(live.cards()) == {"notes.md", "data.csv"}
    assert window.windowTitle().startswith("Claude Code — ")
    model = window.chat.chat_model()
    texts = [model.block(r) for r in range(model.rowCount())]
    assert AssistantTextBlock("Presented by Claude Code.", True) in texts
    listed = window.conversations.model().index(0, 0).data()
    assert listed.startswith("Claude Code — ")


def test_a_file_swapped_for_a_link_after_presenting_is_refused_at_the_action(
    live: Live, qtbot: Any, workspace: Path, tmp_path: Path
) -> None:
    wait_for(qtbot, live.call("present", files(("notes.md", "Notes"))))
    qtbot.waitUntil(lambda: "notes.md" in live.cards(), timeout=WAIT_MS)
    ref = live.cards()["notes.md"].ref
    secret = tmp_path / "elsewhere.txt"
    secret.write_text("not what was presented")
    (workspace / "notes.md").unlink()
    os.symlink(secret, workspace / "notes.md")

    with qtbot.waitSignal(live.window.file_actions.refused) as refused:
        assert not live.window.file_actions.perform("open", ref)

    assert "symbolic link" in refused.args[0]
    assert live.window.workspace.tab_count() == 0


def filler_turn(call_id: str) -> list[tuple[dict[str, Any], str | None, str | None]]:
    def message(kind: str, content: str, **data: Any) -> dict[str, Any]:
        return {"type": kind, "data": {"content": content, "type": kind, **data}}

    return [
        (message("human", f"Question {call_id}"), None, None),
        (
            message("ai", "An answer\n\nwith a few lines\n\nof text.", tool_calls=[]),
            None,
            None,
        ),
    ]


def test_new_turns_keep_the_place_of_a_reader_scrolled_up(
    live: Live, qtbot: Any
) -> None:
    wait_for(qtbot, live.call("present", files(("notes.md", "Notes"))))
    qtbot.waitUntil(lambda: bool(live.cards()), timeout=WAIT_MS)
    conversation_id = live.window.current_conversation_id()
    assert conversation_id is not None
    for turn in range(40):
        live.store.append_messages(conversation_id, filler_turn(str(turn)))
    live.window.refresh_from_store(conversation_id)
    bar = live.window.chat.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=WAIT_MS)
    bar.setValue(0)
    rows = live.window.chat.chat_model().rowCount()

    wait_for(qtbot, live.call("present", files(("data.csv", "Data"))))
    qtbot.waitUntil(lambda: "data.csv" in live.cards(), timeout=WAIT_MS)

    assert live.window.chat.chat_model().rowCount() > rows
    assert bar.value() == 0  # what the reader was reading did not move
    bar.setValue(bar.maximum())
    wait_for(qtbot, live.call("present", files(("report/index.html", "Report"))))
    qtbot.waitUntil(lambda: "index.html" in live.cards(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=WAIT_MS)


def test_a_conversation_not_shown_only_updates_the_list(live: Live, qtbot: Any) -> None:
    other = live.store.create_conversation("Something else", "/tmp")
    live.store.append_messages(other.id, filler_turn("x"))
    live.window.refresh_conversations()
    live.window.show_conversation(other.id)
    rows = live.window.chat.chat_model().rowCount()

    wait_for(qtbot, live.call("present", files(("notes.md", "Notes"))))

    listing = live.window.conversations.model()
    qtbot.waitUntil(lambda: listing.rowCount() == 2, timeout=WAIT_MS)
    assert listing.index(0, 0).data().startswith("Claude Code — ")
    assert live.window.current_conversation_id() == other.id
    assert live.window.chat.chat_model().rowCount() == rows


def run_cli(qtbot: Any, *args: str) -> tuple[int, str]:
    """Run ``deliverables ARGS`` while this window keeps answering; (code, stderr)."""
    env = {**os.environ, **server_env(), "QT_QPA_PLATFORM": "offscreen"}
    with subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        qtbot.waitUntil(lambda: process.poll() is not None, timeout=WAIT_MS)
        _out, err = process.communicate()
    return process.returncode, err


def test_a_second_open_hands_its_request_to_the_window_and_exits(
    live: Live, qtbot: Any, server: Server
) -> None:
    wait_for(qtbot, live.call("present", files(("notes.md", "Notes"))))
    (conversation,) = live.store.conversations()
    other = live.store.create_conversation("Earlier", "/tmp")
    live.window.show_conversation(other.id)

    code, err = run_cli(
        qtbot,
        "open",
        "--data-dir",
        str(server.data_dir),
        "--conversation",
        conversation.id,
    )

    assert code == 0, err
    assert live.window.current_conversation_id() == conversation.id


def test_a_second_view_opens_its_files_in_the_window(
    live: Live, qtbot: Any, server: Server, workspace: Path
) -> None:
    code, err = run_cli(
        qtbot, "view", str(workspace / "notes.md"), "--data-dir", str(server.data_dir)
    )

    assert code == 0, err
    qtbot.waitUntil(lambda: live.window.workspace.tab_count() == 1, timeout=WAIT_MS)


def test_the_record_behind_a_live_card_is_the_one_the_store_trusts(
    live: Live, qtbot: Any, workspace: Path
) -> None:
    wait_for(qtbot, live.call("present", files(("notes.md", "Notes"))))
    qtbot.waitUntil(lambda: bool(live.cards()), timeout=WAIT_MS)
    block = live.cards()["notes.md"]
    stored = live.store.record(block.ref.conversation_id, block.ref.tool_call_id)
    assert stored is not None and stored.trusted
    record = parse_record(stored.raw)
    assert isinstance(record, Record)
    assert record.files[0] == block.entry


def test_presented_without_a_window_the_next_start_shows_it(
    qtbot: Any, server: Server, workspace: Path
) -> None:
    async def main() -> None:
        async with connect(server, roots=[workspace.as_uri()]) as client:
            result = await client.call_tool("present", files(("notes.md", "Notes")))
            assert not result.is_error

    anyio.run(main)  # no window listens: the notice has nobody to reach

    with Store(server.data_dir) as store:
        window = MainWindow(store, server.data_dir)
        qtbot.addWidget(window)
        window.refresh_conversations()
        window.show_conversation(store.conversations()[-1].id)
        model = window.chat.chat_model()
        names = [
            block.entry.name
            for block in (model.block(row) for row in range(model.rowCount()))
            if isinstance(block, DeliverableBlock) and block.entry is not None
        ]
        window.close()
    assert names == ["notes.md"]


def test_an_import_from_the_command_line_appears_in_the_open_window(
    live: Live, qtbot: Any, server: Server, tmp_path: Path
) -> None:
    from tests.app.importers.transcripts import ClaudeSession, text

    session = ClaudeSession(str(tmp_path / "repo"))
    session.user("Summarise the logs")
    session.assistant(text("Summarised."))
    transcript = session.write(tmp_path / "claude" / "s.jsonl")
    listing = live.window.conversations.model()
    assert listing.rowCount() == 0

    code, err = run_cli(
        qtbot, "import", str(transcript), "--data-dir", str(server.data_dir)
    )

    assert code == 0, err
    (conversation,) = live.store.conversations()
    # No GUI action in between: the window learned it over its channel.
    qtbot.waitUntil(
        lambda: live.window.current_conversation_id() == conversation.id,
        timeout=WAIT_MS,
    )
    assert listing.rowCount() == 1


def test_a_view_into_a_window_in_use_opens_beside_and_keeps_the_layout(
    live: Live, qtbot: Any, server: Server, workspace: Path, tmp_path: Path
) -> None:
    wait_for(qtbot, live.call("present", files(("notes.md", "Notes"))))
    qtbot.waitUntil(lambda: bool(live.cards()), timeout=WAIT_MS)
    window = live.window
    conversation_id = window.current_conversation_id()
    assert conversation_id is not None
    window.file_actions.perform("open", live.cards()["notes.md"].ref)
    assert window.workspace.tab_count() == 1
    root = window.workspace.tree.tree_model.root
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "asked.txt").write_text("asked for\n")

    code, err = run_cli(
        qtbot, "view", str(elsewhere / "asked.txt"), "--data-dir", str(server.data_dir)
    )

    assert code == 0, err
    qtbot.waitUntil(lambda: window.workspace.tab_count() == 2, timeout=WAIT_MS)
    page = window.workspace.tabs.current_page()
    assert page is not None and page.path == str(elsewhere / "asked.txt")
    # What the user had stays: the panes, the conversation, its tree.
    assert not window.is_viewer()
    assert window.chat_column.isVisible()
    assert window.conversations_panel.isVisible()
    assert window.current_conversation_id() == conversation_id
    assert window.workspace.tree.tree_model.root == root


def test_a_second_view_into_a_viewer_keeps_its_folder_and_tabs(
    live: Live, qtbot: Any, server: Server, workspace: Path, tmp_path: Path
) -> None:
    window = live.window
    assert window.view_files([str(workspace / "notes.md")], workspace) == []
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "asked.txt").write_text("asked for\n")

    code, err = run_cli(
        qtbot, "view", str(elsewhere / "asked.txt"), "--data-dir", str(server.data_dir)
    )

    assert code == 0, err
    qtbot.waitUntil(lambda: window.workspace.tab_count() == 2, timeout=WAIT_MS)
    assert window.is_viewer()
    # The tree still shows the folder of the tabs it had.
    assert window.workspace.tree.tree_model.root == str(workspace.resolve())
