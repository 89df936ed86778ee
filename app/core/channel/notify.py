"""The notification channel's protocol: frames, requests, replies and a sender.

One connection carries one request and one reply. A frame is a 4-byte
big-endian length and that many bytes of UTF-8 JSON, at most ``MAX_MESSAGE``.
Every request carries the window's token. Requests only ever say *that*
something happened or *what* the user asked for; the window acts on none of
it without its own checks (it rereads the store, it checks paths like a
command-line ``view``).
"""

from __future__ import annotations

import hmac
import json
import os
import re
import socket
import struct
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from app.core.channel.files import ChannelError, channel_paths, read_token
from app.core.trust.paths import folder_path_problem

PROTOCOL: Final = 1
HEADER: Final = 4
MAX_MESSAGE: Final = 16 * 1024
MAX_PATHS: Final = 64
MAX_PATH_TEXT: Final = 4096
MAX_LABEL: Final = 200
SEND_TIMEOUT: Final = 2.0  # seconds for one whole exchange with the window
SEND_ATTEMPTS: Final = 8  # a request the window dropped unread is sent again
_ID: Final = re.compile(r"[0-9A-Za-z_-]{1,64}")
_PEERCRED: Final = getattr(socket, "SO_PEERCRED", None)


class MessageError(ValueError):
    """A frame or request that is refused; the text says why, briefly."""


@dataclass(frozen=True)
class ChangedNotice:
    """A conversation was written to the store by another process."""

    conversation_id: str


@dataclass(frozen=True)
class OpenRequest:
    """``deliverables open`` was run again: show the window (and a conversation)."""

    conversation_id: str | None


@dataclass(frozen=True)
class ViewRequest:
    """``deliverables view`` was run again: open these absolute paths."""

    paths: tuple[str, ...]
    workspace: str | None


@dataclass(frozen=True)
class FolderRequest:
    """An MCP client asks to work in ``folder``, outside the ``boundary`` it has.

    ``client`` is the name the user gave the client, which an approval is
    kept under; ``label`` is how to name it to the user (with what the
    client calls itself when the user gave no name). Only the user's answer
    in the window approves anything.
    """

    client: str
    label: str
    folder: str
    boundary: str


Request = ChangedNotice | OpenRequest | ViewRequest | FolderRequest


def encode_frame(message: Mapping[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode()
    if len(body) > MAX_MESSAGE:
        raise MessageError(f"the message is longer than {MAX_MESSAGE} bytes")
    return struct.pack(">I", len(body)) + body


class FrameReader:
    """Collects one frame from pieces; refuses oversized or trailing data at once."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._length: int | None = None

    def feed(self, data: bytes) -> bytes | None:
        """Add received bytes; return the body once complete, else ``None``."""
        self._buffer += data
        if self._length is None and len(self._buffer) >= HEADER:
            (length,) = struct.unpack(">I", bytes(self._buffer[:HEADER]))
            # Decided from the header alone, before any body is buffered.
            if not 0 < length <= MAX_MESSAGE:
                raise MessageError(f"a message must be 1 to {MAX_MESSAGE} bytes")
            self._length = length
        if self._length is None or len(self._buffer) < HEADER + self._length:
            return None
        if len(self._buffer) > HEADER + self._length:
            raise MessageError("one request per connection")
        return bytes(self._buffer[HEADER:])


def _identifier(value: object) -> str:
    if not isinstance(value, str) or _ID.fullmatch(value) is None:
        raise MessageError("a conversation id is 1 to 64 letters, digits, - or _")
    return value


def _absolute_path(value: object) -> str:
    if (
        not isinstance(value, str)
        or not value
        or len(value) > MAX_PATH_TEXT
        or "\0" in value
        or not os.path.isabs(value)
    ):
        raise MessageError("each path must be an absolute path")
    return value


def _label(value: object) -> str:
    if (
        not isinstance(value, str)
        or not 0 < len(value) <= MAX_LABEL
        or not value.isprintable()
    ):
        raise MessageError(f"a client's name is 1 to {MAX_LABEL} printable characters")
    return value


def _folder(value: object) -> str:
    folder = _absolute_path(value)
    if folder_path_problem(folder) is not None:
        raise MessageError("a folder must be a plain absolute path")
    return folder


def _fields(data: dict[str, Any], allowed: set[str]) -> None:
    extra = set(data) - allowed - {"v", "token", "kind"}
    if extra:
        raise MessageError("unexpected fields")


def request_message(request: Request, token: str) -> dict[str, Any]:
    """The JSON object for ``request``, carrying ``token``."""
    head: dict[str, Any] = {"v": PROTOCOL, "token": token}
    if isinstance(request, ChangedNotice):
        return {**head, "kind": "changed", "conversation": request.conversation_id}
    if isinstance(request, OpenRequest):
        return {**head, "kind": "open", "conversation": request.conversation_id}
    if isinstance(request, FolderRequest):
        return {
            **head,
            "kind": "folder",
            "client": request.client,
            "label": request.label,
            "folder": request.folder,
            "boundary": request.boundary,
        }
    paths = list(request.paths)
    return {**head, "kind": "view", "paths": paths, "workspace": request.workspace}


def parse_request(body: bytes, token: str) -> Request:
    """The request in a frame's ``body``, or ``MessageError`` saying why not."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise MessageError("not a JSON message") from error
    if not isinstance(data, dict):
        raise MessageError("not a JSON object")
    given = data.get("token")
    # Bytes, not str: compare_digest refuses non-ASCII text, and a peer may
    # send anything; the length check inside it does not leak the token.
    if not isinstance(given, str) or not hmac.compare_digest(
        given.encode("utf-8", "replace"), token.encode("ascii")
    ):
        raise MessageError("wrong token")
    version = data.get("v")
    if version != PROTOCOL or isinstance(version, bool):
        raise MessageError("unknown protocol version")
    kind = data.get("kind")
    if kind == "changed":
        _fields(data, {"conversation"})
        return ChangedNotice(_identifier(data.get("conversation")))
    if kind == "open":
        _fields(data, {"conversation"})
        conversation = data.get("conversation")
        return OpenRequest(None if conversation is None else _identifier(conversation))
    if kind == "view":
        _fields(data, {"paths", "workspace"})
        paths = data.get("paths")
        if not isinstance(paths, list) or not 1 <= len(paths) <= MAX_PATHS:
            raise MessageError(f"view needs 1 to {MAX_PATHS} paths")
        workspace = data.get("workspace")
        return ViewRequest(
            tuple(_absolute_path(path) for path in paths),
            None if workspace is None else _absolute_path(workspace),
        )
    if kind == "folder":
        _fields(data, {"client", "label", "folder", "boundary"})
        return FolderRequest(
            _label(data.get("client")),
            _label(data.get("label")),
            _folder(data.get("folder")),
            _folder(data.get("boundary")),
        )
    raise MessageError("unknown kind of request")


def reply_frame(error: str | None = None) -> bytes:
    """The window's answer: accepted, or refused with a short reason."""
    if error is None:
        return encode_frame({"v": PROTOCOL, "ok": True})
    return encode_frame({"v": PROTOCOL, "ok": False, "error": error[:500]})


def peer_uid(connection: socket.socket) -> int | None:
    """The uid of the process at the other end, where the system says (Linux)."""
    if _PEERCRED is None:
        return None
    data = connection.getsockopt(socket.SOL_SOCKET, _PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", data)
    return int(uid)


@dataclass(frozen=True)
class Reply:
    accepted: bool
    error: str


class _UnansweredError(OSError):
    """The window hung up before it read the request: sending again is safe."""


def send(data_dir: Path | str, request: Request) -> Reply | None:
    """Deliver ``request`` to the window of the store in ``data_dir``.

    ``None`` when no window listens (there is nothing to tell). Raises
    ``ChannelError`` when the channel's files or its peer are not the user's.
    A window whose slots are all taken drops its longest-silent peer, which
    may be a sender that has connected but not yet written: such a request
    was never read, so it is sent again (``SEND_ATTEMPTS`` times at most,
    within ``SEND_TIMEOUT``).
    """
    if not hasattr(socket, "AF_UNIX"):
        return None  # no local sockets here: windows learn at their next start
    paths = channel_paths(data_dir)
    try:
        token = read_token(paths.token)
    except FileNotFoundError:
        return None
    message = request_message(request, token)
    deadline = time.monotonic() + SEND_TIMEOUT
    attempts = 0
    while True:
        attempts += 1
        try:
            return _deliver(paths.socket, message, deadline)
        except _UnansweredError as error:
            if attempts >= SEND_ATTEMPTS or time.monotonic() >= deadline:
                return Reply(False, f"the window did not answer ({error})")
        except OSError as error:
            # A window that hangs or drops the line did not take the request.
            return Reply(False, f"the window did not answer ({error})")


def _deliver(path: Path, message: dict[str, Any], deadline: float) -> Reply | None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(max(deadline - time.monotonic(), 0.05))
        try:
            connection.connect(os.fspath(path))
        except (FileNotFoundError, ConnectionRefusedError):
            return None  # a token left by a window that is gone
        except OSError as error:
            raise ChannelError(
                f"The channel socket {path} cannot be used: {error}."
            ) from error
        uid = peer_uid(connection)
        if uid is not None and uid != os.getuid():
            raise ChannelError(f"The channel socket {path} is not the user's.")
        return _exchange(connection, message)


def _exchange(connection: socket.socket, message: dict[str, Any]) -> Reply:
    try:
        connection.sendall(encode_frame(message))
    except (BrokenPipeError, ConnectionResetError) as error:
        raise _UnansweredError(str(error)) from error
    reader = FrameReader()
    heard = False
    while True:
        try:
            chunk = connection.recv(4096)
        except ConnectionResetError as error:
            if heard:
                raise
            raise _UnansweredError(str(error)) from error
        if not chunk:
            if not heard:
                raise _UnansweredError("the window hung up before answering")
            return Reply(False, "the window closed the connection")
        heard = True
        try:
            body = reader.feed(chunk)
        except MessageError as error:
            return Reply(False, f"the window's answer was refused: {error}")
        if body is not None:
            return _parse_reply(body)


def _parse_reply(body: bytes) -> Reply:
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return Reply(False, "the window's answer was not JSON")
    if not isinstance(data, dict) or data.get("ok") is not True:
        error = data.get("error") if isinstance(data, dict) else None
        return Reply(False, error if isinstance(error, str) else "refused")
    return Reply(True, "")
