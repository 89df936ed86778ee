"""Save a PNG of the window once its active view has loaded, then quit."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QTimer
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QApplication, QWidget

CANNOT_SAVE_EXIT = 2

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
    application quits with status 0 either way, as the PNG shows what a user
    saw, and with status 2 (the reason on standard error) when the PNG cannot
    be written.
    """
    deadline = time.monotonic() + wait_ms / 1000

    def finish(in_time: bool) -> None:
        QApplication.processEvents()
        problem = save_png(window.grab(), path)
        if on_done is not None:
            on_done(in_time)
        elif problem is not None:
            print(
                f"deliverables: cannot save the screenshot {path}: {problem}",
                file=sys.stderr,
            )
            QApplication.exit(CANNOT_SAVE_EXIT)
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


def save_png(pixmap: QPixmap, path: Path) -> str | None:
    """Write ``pixmap`` to ``path`` as PNG; why not, or ``None`` once written."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not pixmap.save(buffer, "PNG"):
        return "the window could not be encoded as PNG"
    try:
        path.write_bytes(bytes(buffer.data().data()))
    except OSError as error:
        return error.strerror or str(error)
    return None
