"""What the server did to files: inotify opens in a folder, bytes a process read."""

from __future__ import annotations

import ctypes
import os
import struct
from pathlib import Path

IN_ACCESS = 0x001
IN_OPEN = 0x020
_EVENT = struct.Struct("iIII")


class OpenWatch:
    """Records every open of a file directly in ``folder``, by any process.

    The kernel reports opens, not who made them; in these tests only the
    sshd serving the request touches the folder.
    """

    def __init__(self, folder: Path) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        watch = self._libc.inotify_add_watch(
            self._fd, os.fsencode(folder), IN_OPEN | IN_ACCESS
        )
        if watch < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch")

    def events(self) -> list[tuple[str, int]]:
        """(name, mask) of each event so far; reading drains them."""
        found: list[tuple[str, int]] = []
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return found
            offset = 0
            while offset < len(data):
                _wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size
                name = data[offset : offset + length].rstrip(b"\0").decode()
                offset += length
                found.append((name, mask))

    def opened(self) -> set[str]:
        return {name for name, mask in self.events() if mask & IN_OPEN and name}

    def close(self) -> None:
        os.close(self._fd)


def bytes_read(pids: list[int]) -> int:
    """How many bytes these processes have read so far (``rchar``), summed."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/io") as handle:
                for line in handle:
                    if line.startswith("rchar:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total
