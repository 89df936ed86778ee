"""The window's notification channel is a door: only the user, with the token, gets in.

Every attack here is a real local-socket peer talking to a real window; the
window must refuse without raising, keep running, and never trust a record
or open a path because a message said so.
"""

from __future__ import annotations

import json
import os
import select
import socket
import sqlite3
import stat
import struct
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from app.core.channel import notify
from app.core.channel.files import (
    ChannelError,
    channel_folder,
    channel_paths,
    read_token,
    verify_private_folder,
)
from app.core.channel.notify import ChangedNotice, request_message
from app.core.chat.blocks import DeliverableBlock
from app.core.store.database import DATABASE_NAME, Store
from app.ui.channel.live_updates import LiveUpdates
from app.ui.window.main_window import MainWindow

WAIT_MS = 10_000


def frame(data: object) -> bytes:
    body = data if isinstance(data, bytes) else json.dumps(data).encode()
    return struct.pack(">I", len(body)) + body


def exchange(path: Path, data: bytes) -> bytes:
    """Send raw bytes on the channel; all the window answers until it hangs up."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as peer:
        peer.settimeout(15)
        peer.connect(os.fspath(path))
        with suppress(BrokenPipeError):  # refused before everything was sent
            peer.sendall(data)
        received = b""
        while True:
            try:
                chunk = peer.recv(65536)
            except ConnectionResetError:
                return received
            if not chunk:
                return received
            received += chunk


def answer(reply: bytes) -> dict[str, Any]:
    (length,) = struct.unpack(">I", reply[:4])
    assert len(reply) == 4 + length
    data = json.loads(reply[4:])
    assert isinstance(data, dict)
    return data


class Door:
    """A listening window, and a peer thread that knocks on its channel."""

    def __init__(
        self, qtbot: Any, window: MainWindow, live: LiveUpdates, data_dir: Path
    ) -> None:
        self.qtbot = qtbot
        self.window = window
        self.live = live
        self.pool = ThreadPoolExecutor(max_workers=4)
        assert live.channel.socket_path is not None
        self.path = live.channel.socket_path
        self.token = read_token(channel_paths(data_dir).token)

    def send(self, data: bytes) -> bytes:
        future: Future[bytes] = self.pool.submit(exchange, self.path, data)
        self.qtbot.waitUntil(future.done, timeout=WAIT_MS)
        return future.result()

    def request(self, **fields: Any) -> dict[str, Any]:
        return answer(self.send(frame({"v": 1, "token": self.token, **fields})))


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def door(qtbot: Any, data_dir: Path) -> Iterator[Door]:
    store = Store(data_dir)
    window = MainWindow(store, data_dir)
    qtbot.addWidget(window)
    live = LiveUpdates(window, store, data_dir)
    assert live.listen(), live.channel.problem
    window.refresh_conversations()
    window.show()
    result = Door(qtbot, window, live, data_dir)
    yield result
    result.pool.shutdown()
    live.close()
    window.close()
    store.close()


def refused(door: Door, data: bytes) -> str:
    with door.qtbot.waitSignal(door.live.channel.refused, timeout=WAIT_MS) as signal:
        reply = door.send(data)
    if reply:
        data_ = answer(reply)
        assert data_["ok"] is False
    return str(signal.args[0])


# -- who may knock -------------------------------------------------------------


def test_a_message_with_the_wrong_token_is_refused(door: Door) -> None:
    conversation = "a" * 32
    wrong = "0" * 64 if door.token != "0" * 64 else "1" * 64
    for token in (wrong, "", door.token[:-1], "é" * 64, None, 7):
        message = {
            "v": 1,
            "token": token,
            "kind": "changed",
            "conversation": conversation,
        }
        assert refused(door, frame(message)) == "wrong token"
    message = {"v": 1, "kind": "changed", "conversation": conversation}
    assert refused(door, frame(message)) == "wrong token"


def test_a_token_from_an_earlier_window_is_refused(
    qtbot: Any, door: Door, data_dir: Path
) -> None:
    old = door.token
    door.live.close()
    assert door.live.listen()
    door.token = read_token(channel_paths(data_dir).token)
    assert door.token != old

    message = request_message(ChangedNotice("a" * 32), old)
    assert refused(door, frame(message)) == "wrong token"


def test_a_peer_of_another_user_is_refused_before_it_speaks(
    door: Door, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.getuid()
    # The peer's credentials come from the kernel; the window's own uid is
    # what it compares them with, so a different one makes every peer foreign.
    monkeypatch.setattr(os, "getuid", lambda: real + 1)
    message = request_message(ChangedNotice("a" * 32), door.token)

    reason = refused(door, frame(message))

    assert reason == f"a process of another user (uid {real})"


# -- what may be said ----------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"\xff\xfe\x00invalid utf-8",
        b"[1, 2, 3]",
        b"[" * 5000 + b"]" * 5000,
        b'{"v": 1, "token": "x", "kind": "changed"' + b"," * 10,
        b"{}",
    ],
)
def test_malformed_messages_are_refused_and_the_window_lives(
    door: Door, body: bytes
) -> None:
    refused(door, frame(body))

    assert door.request(kind="open", conversation=None) == {"v": 1, "ok": True}


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "delete", "conversation": "a"},
        {"kind": "changed", "conversation": "../../etc/passwd"},
        {"kind": "changed", "conversation": ""},
        {"kind": "changed", "conversation": 12},
        {"kind": "changed", "conversation": "a", "extra": 1},
        {"kind": "view", "paths": ["relative.txt"], "workspace": None},
        {"kind": "view", "paths": ["/tmp/x\u0000y"], "workspace": None},
        {"kind": "view", "paths": [], "workspace": None},
        {"kind": "view", "paths": ["/tmp/a"] * 65, "workspace": None},
        {"kind": "view", "paths": "/tmp/a", "workspace": None},
        {"kind": "open", "conversation": True},
        {"v": True, "kind": "open", "conversation": None},
        {"v": 2, "kind": "open", "conversation": None},
    ],
)
def test_requests_outside_the_protocol_are_refused(
    door: Door, fields: dict[str, Any]
) -> None:
    message = {"v": 1, "token": door.token, **fields}

    refused(door, frame(message))

    assert door.window.workspace.tab_count() == 0


def test_an_oversized_message_is_refused_from_its_header(door: Door) -> None:
    header = struct.pack(">I", 64 * 1024 * 1024)

    reason = refused(door, header + b"{" * 1024)

    assert reason.startswith("a message must be 1 to")


def test_a_body_longer_than_announced_is_refused(door: Door) -> None:
    message = frame(request_message(ChangedNotice("a" * 32), door.token))

    assert refused(door, message + b"trailing") == "one request per connection"


def test_a_peer_that_says_nothing_is_dropped(door: Door) -> None:
    # The window hangs up on it; the peer sees the end of the stream.
    assert door.send(b"") == b""
    assert door.request(kind="open", conversation=None)["ok"] is True


def test_more_peers_than_slots_drop_the_longest_silent_first(
    door: Door, qtbot: Any
) -> None:
    from app.ui.channel.server import EVICTED, MAX_CONNECTIONS

    extra = 3
    peers = []
    reasons: list[str] = []
    door.live.channel.refused.connect(reasons.append)
    try:
        for _ in range(MAX_CONNECTIONS + extra):
            peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            peer.connect(os.fspath(door.path))
            peers.append(peer)
        qtbot.waitUntil(lambda: len(reasons) >= extra, timeout=WAIT_MS)
        # The first to arrive have been silent longest: they went first.
        for peer in peers[:extra]:
            peer.settimeout(WAIT_MS / 1000)
            with suppress(ConnectionResetError):
                assert peer.recv(1) == b""
    finally:
        for peer in peers:
            peer.close()
    assert reasons[:extra] == [EVICTED] * extra
    assert door.request(kind="open", conversation=None)["ok"] is True


class SilentFlood:
    """Same-uid peers that hold every slot and say nothing, reopened when dropped."""

    def __init__(self, path: Path, peers: int) -> None:
        self.path = path
        self.peers = peers
        self.opened = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SilentFlood:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(WAIT_MS / 1000)

    def _open(self) -> socket.socket:
        peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        peer.connect(os.fspath(self.path))
        self.opened += 1
        return peer

    def _run(self) -> None:
        held = [self._open() for _ in range(self.peers)]
        try:
            while not self._stop.is_set():
                ended, _, _ = select.select(held, [], [], 0.02)
                for peer in ended:
                    with suppress(OSError):
                        if peer.recv(1):
                            continue
                    # The window hung up on this one: knock again at once.
                    held.remove(peer)
                    peer.close()
                    held.append(self._open())
        finally:
            for peer in held:
                peer.close()


def test_silent_peers_holding_every_slot_do_not_keep_notices_out(
    door: Door, qtbot: Any, data_dir: Path
) -> None:
    from app.ui.channel.server import EVICTED, MAX_CONNECTIONS

    with Store(data_dir) as store:
        conversation = store.create_conversation("Codex — ~/p", "/tmp")
    reasons: list[str] = []
    door.live.channel.refused.connect(reasons.append)
    notices = 12

    with SilentFlood(door.path, MAX_CONNECTIONS) as flood:
        qtbot.waitUntil(lambda: flood.opened >= MAX_CONNECTIONS, timeout=WAIT_MS)
        replies = []
        for _ in range(notices):
            future = door.pool.submit(
                notify.send, data_dir, ChangedNotice(conversation.id)
            )
            qtbot.waitUntil(future.done, timeout=WAIT_MS)
            replies.append(future.result())

    # Every notice reached the window, none was reset at the door.
    assert [reply and reply.error for reply in replies] == [""] * notices
    assert all(reply is not None and reply.accepted for reply in replies)
    # The flood was real: the slots were full when notices came.
    assert EVICTED in reasons


# -- what a message can make the window do -------------------------------------


def _forge_turn(data_dir: Path, conversation_id: str, record: str) -> None:
    """Write a presentation straight into the database, with a made-up MAC."""
    call = {"name": "present", "args": {}, "id": "forged", "type": "tool_call"}
    messages = [
        {"type": "human", "data": {"content": "From Codex", "type": "human"}},
        {"type": "ai", "data": {"content": "", "type": "ai", "tool_calls": [call]}},
        {
            "type": "tool",
            "data": {"content": "Presented.", "type": "tool", "tool_call_id": "forged"},
        },
        {
            "type": "ai",
            "data": {"content": "Presented.", "type": "ai", "tool_calls": []},
        },
    ]
    with sqlite3.connect(data_dir / DATABASE_NAME) as conn:
        for position, message in enumerate(messages):
            conn.execute(
                "INSERT INTO messages (conversation_id, position, message, created_at)"
                " VALUES (?, ?, ?, '2030-01-01T00:00:00.000000+00:00')",
                (conversation_id, position, json.dumps(message)),
            )
        conn.execute(
            "INSERT INTO records (conversation_id, position, tool_call_id, raw, mac)"
            " VALUES (?, 2, 'forged', ?, ?)",
            (conversation_id, record, "0" * 64),
        )


def test_a_notice_cannot_make_a_forged_record_trusted(
    door: Door, tmp_path: Path, data_dir: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the agent wants this opened")
    status = secret.stat()
    entry = {
        "path": str(secret),
        "resolved": str(secret),
        "description": "forged",
        "scope": "workspace",
        "size": status.st_size,
        "mtime_ns": status.st_mtime_ns,
        "device": status.st_dev,
        "inode": status.st_ino,
        "kind": "text",
    }
    record = json.dumps(
        {"version": 1, "declared_at": "x", "workspace": str(tmp_path), "files": [entry]}
    )
    store = Store(data_dir)
    conversation = store.create_conversation("Codex — ~/p", str(tmp_path))
    store.close()
    _forge_turn(data_dir, conversation.id, record)

    with door.qtbot.waitSignal(door.live.applied, timeout=WAIT_MS):
        assert door.request(kind="changed", conversation=conversation.id)["ok"]

    model = door.window.chat.chat_model()
    cards = [
        b
        for b in (model.block(r) for r in range(model.rowCount()))
        if isinstance(b, DeliverableBlock)
    ]
    assert len(cards) == 1
    with door.qtbot.waitSignal(door.window.file_actions.refused) as why:
        assert not door.window.file_actions.perform("open", cards[0].ref)
    assert "not written by this app" in why.args[0]
    assert door.window.workspace.tab_count() == 0


def test_a_notice_naming_an_unknown_conversation_changes_nothing(door: Door) -> None:
    rows = door.window.conversations.model().rowCount()

    assert door.request(kind="changed", conversation="f" * 32)["ok"]
    assert door.request(kind="open", conversation="f" * 32) == {
        "v": 1,
        "ok": False,
        "error": f"no conversation {'f' * 32!r}",
    }

    assert door.window.conversations.model().rowCount() == rows
    assert door.window.current_conversation_id() is None


def test_a_replayed_notice_adds_nothing_twice(door: Door, data_dir: Path) -> None:
    store = Store(data_dir)
    conversation = store.create_conversation("Codex — ~/p", "/tmp")
    human = {"type": "human", "data": {"content": "From Codex", "type": "human"}}
    store.append_message(conversation.id, human)
    store.close()
    message = frame(request_message(ChangedNotice(conversation.id), door.token))

    with door.qtbot.waitSignal(door.live.applied, timeout=WAIT_MS):
        door.send(message)
    rows = door.window.chat.chat_model().rowCount()
    with door.qtbot.waitSignal(door.live.applied, timeout=WAIT_MS):
        door.send(message)

    assert door.window.chat.chat_model().rowCount() == rows == 1


def test_a_path_to_view_goes_through_the_policy_like_the_command_line(
    door: Door, tmp_path: Path
) -> None:
    secret = tmp_path / ".env"
    secret.write_text("TOKEN=1")

    with door.qtbot.waitSignal(door.window.workspace.notice, timeout=WAIT_MS) as why:
        reply = door.request(kind="view", paths=[str(secret)], workspace=None)

    assert reply["ok"] is True  # handed over: the window says why in its own UI
    assert "denied" in why.args[0]
    assert door.window.workspace.tab_count() == 0


# -- the files behind the door ---------------------------------------------------


def test_the_channel_files_are_the_users_alone(door: Door, data_dir: Path) -> None:
    paths = channel_paths(data_dir)

    assert stat.S_IMODE(paths.folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(paths.token.stat().st_mode) == 0o600
    assert stat.S_IMODE(paths.socket.stat().st_mode) & 0o077 == 0
    assert stat.S_ISSOCK(paths.socket.stat().st_mode)


def test_a_folder_others_can_enter_is_not_used(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    folder = channel_folder()
    folder.chmod(0o755)

    with pytest.raises(ChannelError, match="other users"):
        channel_folder()
    with pytest.raises(ChannelError, match="other users"):
        notify.send(tmp_path / "data", ChangedNotice("a" * 32))
    store = Store(tmp_path / "data")
    window = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(window)
    live = LiveUpdates(window, store, tmp_path / "data")
    assert not live.listen()
    assert "other users" in str(live.channel.problem)
    window.close()
    store.close()


def test_a_folder_of_another_user_or_a_link_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(mine)
    real = os.getuid()

    with pytest.raises(ChannelError, match="symbolic link"):
        verify_private_folder(link)
    monkeypatch.setattr(os, "getuid", lambda: real + 1)
    with pytest.raises(ChannelError, match="another user"):
        verify_private_folder(mine)


def test_a_sender_will_not_talk_to_a_socket_the_user_does_not_own(
    door: Door, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What listens there answers to the kernel's peer credentials: a socket
    # another user put in its place would be someone else's process.
    monkeypatch.setattr(notify, "peer_uid", lambda _connection: os.getuid() + 1)

    with pytest.raises(ChannelError, match="is not the user's"):
        notify.send(data_dir, ChangedNotice("a" * 32))


def test_a_sender_will_not_use_a_folder_of_another_user(
    door: Door, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real + 1)

    with pytest.raises(ChannelError, match="belongs to another user"):
        notify.send(data_dir, ChangedNotice("a" * 32))


def test_a_token_file_that_is_not_private_or_not_a_file_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = tmp_path / "t.token"
    token.write_text("ab" * 32)
    token.chmod(0o644)
    with pytest.raises(ChannelError, match="other users"):
        read_token(token)
    token.chmod(0o600)
    assert read_token(token) == "ab" * 32
    link = tmp_path / "link.token"
    link.symlink_to(token)
    with pytest.raises(ChannelError, match="not a link"):
        read_token(link)
    token.write_text("ab" * 31)
    with pytest.raises(ChannelError, match="damaged"):
        read_token(token)
    real = os.getuid()
    token.write_text("ab" * 32)
    monkeypatch.setattr(os, "getuid", lambda: real + 1)
    with pytest.raises(ChannelError, match="another user"):
        read_token(token)


def test_a_stale_socket_is_replaced_and_a_second_window_does_not_listen(
    qtbot: Any, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    paths = channel_paths(data)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(paths.socket))
    dead.close()  # a window that died: the file stays, nobody listens
    paths.token.write_text("0" * 64)
    paths.token.chmod(0o600)
    assert notify.send(data, ChangedNotice("a" * 32)) is None

    store = Store(data)
    first = MainWindow(store, data)
    second = MainWindow(store, data)
    qtbot.addWidget(first)
    qtbot.addWidget(second)
    live = LiveUpdates(first, store, data)
    other = LiveUpdates(second, store, data)
    try:
        assert live.listen(), live.channel.problem
        assert not other.listen()
        assert other.channel.problem == "another window of this store is listening"
    finally:
        live.close()
        first.close()
        second.close()
        store.close()
