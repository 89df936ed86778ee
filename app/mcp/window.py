"""Telling the app's window what was stored, off the path of the agent's call."""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final

from app.core.channel.files import ChannelError
from app.core.channel.notify import ChangedNotice, FolderRequest, MessageError, send
from app.mcp.clients import installed_command

# Longest wait at exit for notices still queued (each send is bounded too).
DRAIN_S: Final = 5.0


def start_window(data_dir: Path, conversation_id: str) -> None:
    """Start the window on ``conversation_id``, detached from this server.

    Its output goes nowhere: this process's stdout is the MCP connection.
    """
    import subprocess

    command = [*installed_command(), "open", "--conversation", conversation_id]
    command += ["--data-dir", os.fspath(data_dir)]
    # Our own command as a list: no shell reads it.
    subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


class WindowNotifier:
    """Sends changed notices one after another from a thread of its own.

    The agent's call returns once its turn is stored; a window that is slow
    to answer delays nobody. Presenting never depends on the window: what is
    stored is shown at its next start anyway.
    """

    def __init__(
        self, data_dir: Path, open_window: Callable[[str], None] | None = None
    ) -> None:
        self._data_dir = data_dir
        self._open_window = open_window
        self._queue: queue.Queue[ChangedNotice | FolderRequest | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._warned = False

    def changed(self, conversation_id: str) -> None:
        self._put(ChangedNotice(conversation_id))

    def ask(self, request: FolderRequest) -> None:
        """Ask the user, in the window, to approve a folder for a client.

        A window that is not open is not started for it: the refused call
        tells the agent, and the next one asks again.
        """
        self._put(request)

    def _put(self, request: ChangedNotice | FolderRequest) -> None:
        with self._lock:
            if self._thread is None:
                # A daemon, so a server that ends without close() still ends;
                # close() is what delivers the last notices of a closing client.
                self._thread = threading.Thread(
                    target=self._run, name="window-notices", daemon=True
                )
                self._thread.start()
        self._queue.put(request)

    def close(self) -> None:
        """Deliver what is queued (within ``DRAIN_S``) and stop."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join(DRAIN_S)

    def _run(self) -> None:
        while (request := self._queue.get()) is not None:
            self._tell(request)

    def _tell(self, request: ChangedNotice | FolderRequest) -> None:
        try:
            reply = send(self._data_dir, request)
        except (ChannelError, MessageError, OSError) as error:
            if not self._warned:
                self._warned = True
                print(f"deliverables: window not told: {error}", file=sys.stderr)
            return
        opener = self._open_window
        if reply is None and opener is not None and isinstance(request, ChangedNotice):
            self._open_window = None
            opener(request.conversation_id)
