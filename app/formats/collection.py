"""A pause of the cyclic garbage collector while a worker builds a large value.

Every container a parser creates counts towards a collection, and a 10 MB JSON
document set off hundreds of them: most of its parse time, spent walking
objects that are all still in use. While any thread holds a pause, no
collection runs: the automatic collector is off (and back on after the last
pause ends, if it was on), and the GUI thread's collector (``app.ui.window.garbage``)
asks ``paused()`` and waits too.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class CollectorPause:
    """Counts the pauses held, in any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0
        self._was_enabled = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._active == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if self._active == 0 and self._was_enabled:
                    gc.enable()

    def active(self) -> bool:
        return self._active > 0


collector_paused = CollectorPause()
"""Hold with ``with collector_paused():`` around building a large value."""


def paused() -> bool:
    """Whether some thread holds a pause now."""
    return collector_paused.active()
