"""A checked version held in a sealed memory file, read as an opened file."""

from __future__ import annotations

from app.core.trust.safeio import VerifiedFile
from app.formats.text_pages import FencedReader, ReaderFile


class SnapshotFile(ReaderFile):
    """A verified snapshot in a sealed memory file, read like an opened file.

    Previews reach it through its descriptor (audio and video duplicate it)
    or through a fenced reader that names no local path, so nothing ever
    looks up a remote path on this computer.
    """

    def __init__(self, memory: VerifiedFile) -> None:
        super().__init__(FencedReader(memory, None), on_close=memory.close)
        self.fd = memory.fd

    def close(self) -> None:
        self.fd = -1
        super().close()
