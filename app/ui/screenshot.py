"""Save a PNG of the window once its active view has loaded, then quit."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QWidget

POLL_MS = 50
SETTLE_MS = 150  # one more round of layout and paint after loading finished


def screenshot_when_loaded(
    window: QWidget,
    path: Path,
    is_loaded: Callable[[], bool],
    wait_ms: int,
    on_done: Callable[[bool], None] | None = None,
) -> None:
    """Poll ``is_loaded`` for at most ``wait_ms``, then grab ``window`` to ``path``.

    ``on_done`` gets whether loading finished in time; by default the
    application quits with status 0 either way, as the PNG shows what a user saw.
    """
    deadline = time.monotonic() + wait_ms / 1000

    def finish(in_time: bool) -> None:
        QApplication.processEvents()
        window.grab().save(str(path), "PNG")
        if on_done is not None:
            on_done(in_time)
        else:
            QApplication.exit(0)

    def poll() -> None:
        if is_loaded():
            QTimer.singleShot(SETTLE_MS, lambda: finish(True))
        elif time.monotonic() >= deadline:
            finish(False)
        else:
            QTimer.singleShot(POLL_MS, poll)

    QTimer.singleShot(POLL_MS, poll)
