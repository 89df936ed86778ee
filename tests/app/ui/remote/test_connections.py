"""A window's SSH connections: made once, answered on the GUI thread, closed whole."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import ClassVar

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

import app.remote.manager as manager_module
from app.ssh.errors import Failure, RemoteError
from app.ui.gui_thread import when_done
from app.ui.remote.connections import RemoteConnections


class _Workspace:
    def __init__(self, address: str) -> None:
        self.address = address


class _Manager:
    """Stands in for the SSH loop: each address answers when the test says."""

    made: ClassVar[list[_Manager]] = []

    def __init__(self, prompter: object = None) -> None:
        self.asked: list[str] = []
        self.pending: dict[str, Future[object]] = {}
        self.closed = False
        _Manager.made.append(self)

    def open_workspace(self, address: str) -> Future[object]:
        self.asked.append(address)
        future: Future[object] = Future()
        self.pending[address] = future
        return future

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def connections(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> RemoteConnections:
    _Manager.made.clear()
    monkeypatch.setattr(manager_module, "RemoteManager", _Manager)
    window = QWidget()
    qtbot.addWidget(window)
    return RemoteConnections(window)


ADDRESS = "ssh://devbox/home/me/work"


def _answer_from_another_thread(future: Future[object], answer: object) -> None:
    def settle() -> None:
        if isinstance(answer, BaseException):
            future.set_exception(answer)
        else:
            future.set_result(answer)

    worker = threading.Thread(target=settle)
    worker.start()
    worker.join()


def test_nothing_connects_until_asked_and_asking_twice_connects_once(
    qtbot: QtBot, connections: RemoteConnections
) -> None:
    assert _Manager.made == []
    assert connections.connect_to(ADDRESS) is None
    assert connections.connect_to(ADDRESS) is None
    [manager] = _Manager.made
    assert manager.asked == [ADDRESS]

    workspace = _Workspace(ADDRESS)
    with qtbot.waitSignal(connections.connected, timeout=5000) as blocker:
        _answer_from_another_thread(manager.pending[ADDRESS], workspace)
    address, held = blocker.args
    # Held as one Workspace over the connection: every caller gets that one.
    assert (address, held.address, held.remote) == (ADDRESS, ADDRESS, workspace)
    assert connections.workspace_for(ADDRESS) is held
    assert connections.connect_to(ADDRESS) is held
    assert manager.asked == [ADDRESS]


def test_a_failed_connection_says_why_and_the_next_ask_tries_again(
    qtbot: QtBot, connections: RemoteConnections
) -> None:
    connections.connect_to(ADDRESS)
    [manager] = _Manager.made
    refused = RemoteError(Failure.AUTH, "No key was accepted by devbox.")
    with qtbot.waitSignal(connections.failed, timeout=5000) as blocker:
        _answer_from_another_thread(manager.pending[ADDRESS], refused)
    assert blocker.args == ["No key was accepted by devbox."]
    assert connections.workspace_for(ADDRESS) is None
    connections.connect_to(ADDRESS)
    assert manager.asked == [ADDRESS, ADDRESS]


def test_closing_cancels_what_is_connecting_and_nothing_arrives_after(
    qtbot: QtBot, connections: RemoteConnections
) -> None:
    connections.connect_to(ADDRESS)
    [manager] = _Manager.made
    future = manager.pending[ADDRESS]
    heard: list[object] = []
    connections.connected.connect(lambda *args: heard.append(args))
    connections.failed.connect(heard.append)
    connections.close()
    assert future.cancelled()
    assert manager.closed
    # Handed over after the cancelled connection's end: once it is, that end
    # has been delivered too, and said nothing.
    marker: Future[None] = Future()
    marker.set_result(None)
    delivered: list[bool] = []
    when_done(connections, marker, lambda _done: delivered.append(True))
    qtbot.waitUntil(lambda: delivered == [True], timeout=5000)
    assert heard == []
    # The next connection makes a new manager.
    connections.connect_to(ADDRESS)
    assert len(_Manager.made) == 2
