"""Handing a local workspace's files to the desktop's apps: its ``native``."""

from __future__ import annotations

import os
from pathlib import Path

from app.core.filetype import HEAD_SIZE
from app.core.trust.display_names import plain_file_name
from app.core.trust.native_open import make_private_copy, native_open_refusal
from app.core.trust.safeio import VerifiedFile


class LocalNative:
    """What ``LocalWorkspace.native`` offers: judged refusals and private copies."""

    def refusal(self, name: str, opened: VerifiedFile) -> str | None:
        try:
            mode = os.fstat(opened.fd).st_mode
            head = opened.read(HEAD_SIZE)
        except OSError as error:
            return f"it cannot be read: {error}"
        return native_open_refusal(name, mode, head)

    def refusal_by_name(self, name: str, path: str) -> str | None:
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            mode = 0
        # Name and permission bits only: the bytes are read at the action.
        return native_open_refusal(name, mode, b"")

    def private_copy(
        self, name: str, opened: VerifiedFile, *, limit: int = 0o400
    ) -> Path:
        # The copy keeps the real name (the desktop picks the app by it), less
        # any hidden characters.
        return make_private_copy(opened, plain_file_name(name), limit=limit)


NATIVE = LocalNative()
"""Stateless: every local workspace shares it."""
