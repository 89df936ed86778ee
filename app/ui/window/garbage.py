"""Python's cycle collector, run on the GUI thread only.

The collector runs on whichever thread allocates past its threshold. A cycle
that holds a Qt object living on the GUI thread (a settings object, a text
document, an event loop) is then destroyed on a worker, where Qt must not
touch it. A run of the test suite, watched for it, found such cycles freed on
the PDF thread and on the SSH thread. So once the application exists, the
automatic collector is turned off and a timer on the GUI thread runs the
collections it would have run: by the same thresholds, and a full collection
only once the objects moved to the oldest generation since the last one
number a quarter of those it kept (CPython's own rule, which keeps full passes
over a big heap rare). A worker building a large value may hold collections
off meanwhile (``app.formats.collection``).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer

from app.formats.collection import paused

CHECK_INTERVAL_MS = 100
"""How often the GUI thread looks whether a collection is due (a cheap count)."""


class GuiThreadCollector(QObject):
    """Runs due collections from a timer on the thread it lives on."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        self._kept = 0
        """Objects the last full collection kept."""
        self._moved = 0
        """Objects moved to the oldest generation since that collection."""
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.CoarseTimer)
        self._timer.setInterval(CHECK_INTERVAL_MS)
        self._timer.timeout.connect(self.collect_due)
        self.started = False

    def start(self) -> None:
        """Turn the automatic collector off and collect from the timer instead.

        What exists now (the modules imported so far, mostly) is moved out of
        the collector's sight first: the timer's first pass would otherwise
        walk all of it on the GUI thread, and start-up took 30-140 ms longer.
        """
        gc.freeze()
        gc.disable()
        self._timer.start()
        self.started = True
        # Should the application go, the interpreter collects by itself again.
        self.destroyed.connect(lambda *_: gc.enable())

    def collect_due(self) -> int | None:
        """Run the collection that is due, if any; returns its generation."""
        counts = gc.get_count()
        if self.thresholds[0] == 0:
            return None  # collection was turned off before we started
        if paused():
            return None  # a worker is building a large value: after it
        for generation in (2, 1, 0):
            if counts[generation] <= self.thresholds[generation]:
                continue
            if generation == 2:
                if self._moved < self._kept // 4:
                    continue
                gc.collect(2)
                self._kept, self._moved = len(gc.get_objects(2)), 0
            elif generation == 1:
                young = len(gc.get_objects(0)) + len(gc.get_objects(1))
                self._moved += max(0, young - gc.collect(1))
            else:
                gc.collect(0)
            return generation
        return None


def collect_on_gui_thread(application: QCoreApplication) -> GuiThreadCollector:
    """Turn the automatic collector off and collect from ``application``'s thread.

    Safe to call more than once: the application keeps one collector.
    """
    for found in application.findChildren(GuiThreadCollector):
        if isinstance(found, GuiThreadCollector) and found.started:
            return found
    collector = GuiThreadCollector(application)
    collector.start()
    return collector
