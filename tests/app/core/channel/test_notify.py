"""The channel's protocol on its own: frames, requests, tokens and paths."""

from __future__ import annotations

import json
import os
import socket
import stat
import struct
import threading
from contextlib import suppress
from pathlib import Path

import pytest

from app.core.channel.files import channel_paths, read_token, write_token
from app.core.channel.notify import (
    MAX_MESSAGE,
    SEND_ATTEMPTS,
    ChangedNotice,
    FolderRequest,
    FrameReader,
    MessageError,
    OpenRequest,
    ViewRequest,
    encode_frame,
    parse_request,
    reply_frame,
    request_message,
    send,
)

TOKEN = "ab" * 32


@pytest.mark.parametrize(
    "request_",
    [
        ChangedNotice("0123456789abcdef0123456789abcdef"),
        OpenRequest(None),
        OpenRequest("c1"),
        ViewRequest(("/tmp/a.txt", "/tmp/b c.txt"), "/tmp"),
        ViewRequest(("/tmp/a.txt",), None),
        FolderRequest("Claude Code", "Claude Code", "/home/me/other", "/home/me/p"),
        FolderRequest("An MCP client", "An MCP client (calls itself “x”)", "/a", "/b"),
    ],
)
def test_every_request_survives_its_frame(request_: object) -> None:
    assert isinstance(
        request_, ChangedNotice | OpenRequest | ViewRequest | FolderRequest
    )
    framed = encode_frame(request_message(request_, TOKEN))
    reader = FrameReader()
    body = None
    for byte in framed:  # one byte at a time, as a slow peer would send it
        assert body is None
        body = reader.feed(bytes([byte]))

    assert body is not None
    assert parse_request(body, TOKEN) == request_


def test_a_frame_is_refused_from_its_header_when_too_long_or_empty() -> None:
    with pytest.raises(MessageError):
        FrameReader().feed(struct.pack(">I", MAX_MESSAGE + 1))
    with pytest.raises(MessageError):
        FrameReader().feed(struct.pack(">I", 0))
    with pytest.raises(MessageError):
        encode_frame({"paths": ["/" + "a" * MAX_MESSAGE]})


@pytest.mark.parametrize(
    "fields",
    [
        {"client": "", "label": "x", "folder": "/a", "boundary": "/b"},
        {"client": "x" * 201, "label": "x", "folder": "/a", "boundary": "/b"},
        {"client": "x", "label": "a\nb", "folder": "/a", "boundary": "/b"},
        {"client": "x", "label": 7, "folder": "/a", "boundary": "/b"},
        {"client": "x", "label": "x", "folder": "/", "boundary": "/b"},
        {"client": "x", "label": "x", "folder": "/a/../..", "boundary": "/b"},
        {"client": "x", "label": "x", "folder": "a", "boundary": "/b"},
        {"client": "x", "label": "x", "folder": "/a", "boundary": None},
        {"client": "x", "label": "x", "folder": "/a", "boundary": "/b", "y": 1},
    ],
)
def test_a_folder_request_outside_the_protocol_is_refused(
    fields: dict[str, object],
) -> None:
    body = json.dumps({"v": 1, "token": TOKEN, "kind": "folder", **fields})

    with pytest.raises(MessageError):
        parse_request(body.encode(), TOKEN)


def test_the_token_is_compared_whole() -> None:
    body = encode_frame(request_message(OpenRequest(None), TOKEN))[4:]
    with pytest.raises(MessageError, match="wrong token"):
        parse_request(body, "cd" * 32)


def test_a_token_file_is_fresh_private_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "x.token"
    first = write_token(path)
    second = write_token(path)

    assert first != second and len(second) == 64
    assert read_token(path) == second
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["x.token"]


def test_each_store_has_its_own_channel(tmp_path: Path) -> None:
    one, two = channel_paths(tmp_path / "one"), channel_paths(tmp_path / "two")

    assert one.socket != two.socket and one.folder == two.folder
    assert channel_paths(tmp_path / "one" / ".." / "one") == one


def test_without_a_window_there_is_nobody_to_tell(tmp_path: Path) -> None:
    assert send(tmp_path / "data", ChangedNotice("c1")) is None
    # A token left behind by a window that is gone, and no socket.
    paths = channel_paths(tmp_path / "data")
    write_token(paths.token)
    assert not os.path.exists(paths.socket)
    assert send(tmp_path / "data", ChangedNotice("c1")) is None


def _window_that_drops_first(path: Path, token: str, drops: int) -> list[bytes]:
    """A listening socket that hangs up on ``drops`` senders unread, then answers."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(os.fspath(path))
    server.listen(4)
    server.settimeout(10)  # the thread ends even if nobody comes back
    heard: list[bytes] = []

    def serve() -> None:
        with server, suppress(TimeoutError):
            for _ in range(drops):
                peer, _address = server.accept()
                peer.close()
            peer, _address = server.accept()
            with peer:
                reader = FrameReader()
                body = None
                while body is None:
                    body = reader.feed(peer.recv(4096))
                heard.append(body)
                peer.sendall(reply_frame())

    threading.Thread(target=serve, daemon=True).start()
    return heard


def test_a_request_the_window_dropped_unread_is_sent_again(tmp_path: Path) -> None:
    paths = channel_paths(tmp_path / "data")
    token = write_token(paths.token)
    heard = _window_that_drops_first(paths.socket, token, drops=2)

    reply = send(tmp_path / "data", ChangedNotice("c1"))

    assert reply is not None and reply.accepted
    assert [parse_request(body, token) for body in heard] == [ChangedNotice("c1")]


def test_a_window_that_never_reads_gets_a_bounded_number_of_tries(
    tmp_path: Path,
) -> None:
    paths = channel_paths(tmp_path / "data")
    token = write_token(paths.token)
    _window_that_drops_first(paths.socket, token, drops=SEND_ATTEMPTS)

    reply = send(tmp_path / "data", ChangedNotice("c1"))

    assert reply is not None and not reply.accepted
    assert "did not answer" in reply.error
