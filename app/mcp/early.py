"""Answering a client's ``initialize`` before the MCP SDK has loaded.

Importing the SDK's server takes most of a second, and clients give a server
a deadline to answer ``initialize``. So ``deliverables mcp`` reads the first
message itself, with nothing of the SDK imported, and answers it at once with
what the SDK's server answers: the same capabilities, server info and
negotiated version. The SDK then gets the same message first, as if nothing
had been read, and its own answer, which the client already has, is dropped
(and compared: a difference is reported on stderr). Everything else, the
session's state included, is the SDK's.

Only the handshake versions in ``HANDSHAKE_VERSIONS`` are answered early; any
other first message is simply handed on.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

SERVER_NAME = "deliverables"
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The SDK's handshake versions (``mcp_types.version``): each is answered as asked."""
_CAPABILITIES = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": True},
}
_HEAD_LIMIT = 1024 * 1024
"""A first message longer than this is handed on unanswered."""


@dataclass(frozen=True)
class EarlyStart:
    """What was read before the SDK loaded, and the answer already written."""

    head: bytes
    """The bytes read from standard input, to be read again by the SDK."""
    answered: Any = None
    """The id of the ``initialize`` answered early, or None."""
    answer: dict[str, Any] | None = None


def initialize_answer(message: object) -> dict[str, Any] | None:
    """The SDK server's answer to ``message`` if it is an ``initialize`` we know."""
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    params = message.get("params")
    request_id = message.get("id")
    if not isinstance(params, dict) or not isinstance(request_id, (int, str)):
        return None
    version = params.get("protocolVersion")
    if version not in HANDSHAKE_VERSIONS:
        return None
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {
            "capabilities": _CAPABILITIES,
            "protocolVersion": version,
            "serverInfo": {"name": SERVER_NAME, "version": ""},
        },
    }


def answer_first_message(stdin: int = 0, stdout: int = 1) -> EarlyStart:
    """Read the input up to its first line end; answer it if it is ``initialize``."""
    head = b""
    while b"\n" not in head and len(head) < _HEAD_LIMIT:
        chunk = os.read(stdin, 64 * 1024)
        if not chunk:
            break
        head += chunk
    line, newline, _ = head.partition(b"\n")
    if not newline:
        return EarlyStart(head)
    try:
        message = json.loads(line)
    except ValueError:
        return EarlyStart(head)
    answer = initialize_answer(message)
    if answer is None:
        return EarlyStart(head)
    data = (json.dumps(answer, separators=(",", ":")) + "\n").encode()
    while data:
        data = data[os.write(stdout, data) :]
    return EarlyStart(head, answer["id"], answer)


class ReplayedInput:
    """Lines for the SDK's reader: what was read early, then the rest of the input."""

    def __init__(self, head: bytes, rest: Any) -> None:
        self._head = head
        self._rest = rest

    async def __aiter__(self) -> AsyncIterator[str]:
        if self._head:
            text = self._head.decode("utf-8", "replace")
            lines = text.splitlines(keepends=True)
            if lines and not lines[-1].endswith("\n"):
                # A partial line: the rest of it comes from the input.
                first = await self._rest.readline()
                lines[-1] += first
            for line in lines:
                yield line
        async for line in self._rest:
            yield line


class AnsweredOutput:
    """The SDK's writer: drops its answer to the ``initialize`` already answered."""

    def __init__(self, early: EarlyStart, out: Any) -> None:
        self._early = early
        self._out = out
        self._waiting = early.answer is not None

    async def write(self, text: str) -> None:
        if self._waiting and self._is_answer(text):
            self._waiting = False
            return
        await self._out.write(text)

    async def flush(self) -> None:
        await self._out.flush()

    def _is_answer(self, text: str) -> bool:
        try:
            message = json.loads(text)
        except ValueError:
            return False
        if not isinstance(message, dict) or "method" in message:
            return False
        if message.get("id") != self._early.answered:
            return False
        if message != self._early.answer:
            print(
                "deliverables: the early answer to initialize was not the SDK's: "
                f"{text.strip()}",
                file=sys.stderr,
            )
        return True


@contextmanager
def wire() -> Iterator[tuple[io.TextIOWrapper, io.TextIOWrapper]]:
    """The connection's input and output, with descriptors 0 and 1 turned away.

    As the SDK's own transport does: while serving, descriptor 0 reads the
    null device and 1 writes to stderr, so nothing a handler or a child
    process prints can land on the connection. Both are put back after.
    POSIX only (``fcntl``), as the early answer is.
    """
    import fcntl

    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    reader = io.TextIOWrapper(
        os.fdopen(wire_in, "rb", closefd=False), encoding="utf-8", errors="replace"
    )
    writer = io.TextIOWrapper(
        os.fdopen(wire_out, "wb", closefd=False), encoding="utf-8"
    )
    try:
        yield reader, writer
    finally:
        with suppress(OSError):  # the client is gone; nothing to tell it
            writer.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)
