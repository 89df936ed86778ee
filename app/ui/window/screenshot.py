"""Save a PNG of the window once its active view has loaded, then quit."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QEvent, QIODevice, QObject, QTimer
from PySide6.QtGui import QImageWriter, QPixmap
from PySide6.QtWidgets import QApplication, QWidget

CANNOT_SAVE_EXIT = 2

POLL_MS = 50
SETTLE_MS = 150  # one more round of layout and paint after loading finished
FIRST_PAINT_KEY = "first-paint-ns"
"""The PNG text entry of a first-paint screenshot: when the paint had finished,
in nanoseconds of ``time.time_ns()``, so a start-up can be timed whole."""


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


class _FirstPaintWatcher(QObject):
    """Calls ``then`` once, after the first paint of the widget it watches."""

    def __init__(self, then: Callable[[], None]) -> None:
        super().__init__()
        self._then: Callable[[], None] | None = then

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self._then is not None:
            then, self._then = self._then, None
            # Queued: the children paint in the same pass, after the window.
            QTimer.singleShot(0, then)
        return False


def screenshot_at_first_paint(window: QWidget, path: Path) -> None:
    """Grab ``window`` to ``path`` as soon as it has first painted, then quit.

    What a start-up measurement needs: the PNG shows what the first frame
    held, and its ``FIRST_PAINT_KEY`` text says when that frame was done.
    The application exits 0, or 2 (the reason on standard error) when the
    PNG cannot be written.
    """

    def finish() -> None:
        painted_ns = time.time_ns()
        window.removeEventFilter(watcher)
        problem = save_png(window.grab(), path, {FIRST_PAINT_KEY: str(painted_ns)})
        if problem is not None:
            print(
                f"deliverables: cannot save the screenshot {path}: {problem}",
                file=sys.stderr,
            )
        QApplication.exit(0 if problem is None else CANNOT_SAVE_EXIT)

    watcher = _FirstPaintWatcher(finish)
    watcher.setParent(window)
    window.installEventFilter(watcher)


def save_png(
    pixmap: QPixmap, path: Path, texts: dict[str, str] | None = None
) -> str | None:
    """Write ``pixmap`` to ``path`` as PNG, with ``texts`` as its text entries;
    why not, or ``None`` once written."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QImageWriter(buffer, QByteArray(b"PNG"))
    for key, value in (texts or {}).items():
        writer.setText(key, value)
    if not writer.write(pixmap.toImage()):
        return "the window could not be encoded as PNG"
    try:
        path.write_bytes(bytes(buffer.data().data()))
    except OSError as error:
        return error.strerror or str(error)
    return None
