"""A client asking for a folder beyond its boundary: shown, kept only on Approve."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from app.core.channel import notify
from app.core.channel.notify import FolderRequest, Reply
from app.core.store import Store
from app.ui.channel.live_updates import LiveUpdates
from app.ui.window.main_window import MainWindow

WAIT_MS = 10_000


@dataclass
class Window:
    qtbot: Any
    window: MainWindow
    live: LiveUpdates
    store: Store
    data_dir: Path
    pool: ThreadPoolExecutor

    def send(self, request: FolderRequest) -> Reply | None:
        """Send over the real channel, as the MCP server does."""
        future = self.pool.submit(notify.send, self.data_dir, request)
        self.qtbot.waitUntil(future.done, timeout=WAIT_MS)
        return future.result()


@pytest.fixture
def opened(qtbot: Any, tmp_path: Path) -> Iterator[Window]:
    data_dir = tmp_path / "data"
    store = Store(data_dir)
    window = MainWindow(store, data_dir)
    qtbot.addWidget(window)
    live = LiveUpdates(window, store, data_dir)
    assert live.listen(), live.channel.problem
    window.show()
    with ThreadPoolExecutor(max_workers=1) as pool:
        yield Window(qtbot, window, live, store, data_dir, pool)
    live.close()
    window.close()
    store.close()


@pytest.fixture
def request_(tmp_path: Path) -> FolderRequest:
    (tmp_path / "proj").mkdir()
    (tmp_path / "elsewhere").mkdir()
    return FolderRequest(
        "Claude Code",
        "Claude Code",
        str(tmp_path / "elsewhere"),
        str(tmp_path / "proj"),
    )


def test_approve_keeps_the_folder_for_that_client(
    opened: Window, request_: FolderRequest
) -> None:
    reply = opened.send(request_)
    prompt = opened.live.folder_requests

    assert reply is not None and reply.accepted
    assert prompt.isVisible()
    assert prompt.text().startswith(
        f"Claude Code asks to work in {request_.folder}, outside {request_.boundary}"
    )
    # Asked again (the client calls again): still one question, nothing kept.
    opened.send(request_)
    assert opened.store.approved_folders("Claude Code") == []

    with opened.qtbot.waitSignal(prompt.approved):
        opened.qtbot.mouseClick(prompt.approve_button, Qt.MouseButton.LeftButton)

    assert opened.store.approved_folders("Claude Code") == [request_.folder]
    assert opened.store.approved_folders("Codex") == []
    assert not prompt.isVisible()
    assert request_.folder in opened.window.notice_bar.text()


def test_ignore_keeps_nothing_and_the_next_request_is_shown(
    opened: Window, request_: FolderRequest, tmp_path: Path
) -> None:
    (tmp_path / "third").mkdir()
    second = FolderRequest("Codex", "Codex", str(tmp_path / "third"), request_.boundary)
    opened.send(request_)
    opened.send(second)
    prompt = opened.live.folder_requests

    with opened.qtbot.waitSignal(prompt.ignored):
        opened.qtbot.mouseClick(prompt.ignore_button, Qt.MouseButton.LeftButton)

    assert opened.store.approved_folders("Claude Code") == []
    assert prompt.isVisible() and prompt.current() == second


def test_the_clients_words_are_shown_as_plain_text(
    opened: Window, request_: FolderRequest
) -> None:
    label = 'An MCP client (calls itself "<img src=/etc/passwd>")'
    opened.send(
        FolderRequest("An MCP client", label, request_.folder, request_.boundary)
    )

    prompt = opened.live.folder_requests
    assert prompt.text().startswith(label)
    (text,) = [
        child for child in prompt.findChildren(QLabel) if child.text() == prompt.text()
    ]
    assert text.textFormat() == Qt.TextFormat.PlainText


@pytest.mark.parametrize("folder", ["/", "/tmp/../etc", "relative"])
def test_a_folder_that_is_not_plain_is_refused_at_the_door(
    opened: Window, request_: FolderRequest, folder: str
) -> None:
    bad = FolderRequest(request_.client, request_.label, folder, request_.boundary)

    reply = opened.send(bad)

    assert reply is not None and not reply.accepted
    assert not opened.live.folder_requests.isVisible()
