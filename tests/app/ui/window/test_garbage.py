"""Cyclic garbage holding Qt objects is destroyed on the GUI thread, never a worker."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.formats.collection import collector_paused
from app.ui.window.garbage import (
    CHECK_INTERVAL_MS,
    GuiThreadCollector,
    collect_on_gui_thread,
)


class _Cycle:
    """A reference cycle holding a Qt object, as a closure or a slot can make."""

    def __init__(self, record: list[str]) -> None:
        self.me = self
        self.qt = QObject()
        # Direct: the thread recorded is the one that destroys the object.
        self.qt.destroyed.connect(
            lambda *_: record.append(threading.current_thread().name),
            Qt.ConnectionType.DirectConnection,
        )


def _drop_a_cycle(record: list[str]) -> None:
    _Cycle(record)


def _allocate_on_a_worker(count: int) -> list[list[int]]:
    """Build and keep many tracked objects on a worker, as a parsing job does."""
    kept: list[list[int]] = []

    def work() -> None:
        kept.extend([n] for n in range(count))

    worker = threading.Thread(target=work, name="worker")
    worker.start()
    worker.join()
    return kept


@pytest.fixture
def automatic_collection() -> Iterator[None]:
    """The interpreter's own collector, as before the application existed."""
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_without_it_a_worker_destroys_the_gui_threads_object(
    qapp: QApplication, automatic_collection: None
) -> None:
    # The hazard itself: the automatic collector runs on the allocating thread.
    gc.collect()
    record: list[str] = []
    _drop_a_cycle(record)
    parsed = _allocate_on_a_worker(10_000)
    assert record == ["worker"]
    assert len(parsed) == 10_000


def test_the_cycle_is_destroyed_on_the_gui_thread(
    qtbot: QtBot, qapp: QApplication
) -> None:
    collect_on_gui_thread(qapp)
    assert not gc.isenabled()
    # Earlier tests' objects are gone first: the count that makes a collection
    # due is allocations less deallocations, and their deaths would lower it.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    record: list[str] = []
    _drop_a_cycle(record)
    parsed = _allocate_on_a_worker(100_000)
    assert record == []  # the worker ran no collection
    qtbot.waitUntil(lambda: record != [], timeout=20 * CHECK_INTERVAL_MS)
    assert record == [threading.main_thread().name]
    assert len(parsed) == 100_000


def test_one_collector_per_application(qapp: QApplication) -> None:
    collector = collect_on_gui_thread(qapp)
    assert collect_on_gui_thread(qapp) is collector
    started = [
        found for found in qapp.findChildren(GuiThreadCollector) if found.started
    ]
    assert started == [collector]


class FakeCollector:
    """Stands in for the interpreter's collector: set counts and sizes, read
    the collections asked for."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counts = (0, 0, 0)
        self.sizes = {0: 1000, 1: 1000, 2: 1000}
        self.collected: list[int] = []
        monkeypatch.setattr(gc, "get_count", lambda: self.counts)
        monkeypatch.setattr(gc, "collect", self.collect)
        monkeypatch.setattr(gc, "get_objects", self.objects)

    def collect(self, generation: int = 2) -> int:
        self.collected.append(generation)
        return 0

    def objects(self, generation: int | None = None) -> list[None]:
        return [None] * self.sizes[2 if generation is None else generation]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeCollector:
    return FakeCollector(monkeypatch)


@pytest.fixture
def collector(qapp: QApplication) -> Iterator[GuiThreadCollector]:
    """A collector not started, with CPython's default thresholds."""
    made = GuiThreadCollector(qapp)
    made.thresholds = (700, 10, 10)
    yield made
    made.deleteLater()


def test_collections_follow_the_interpreters_thresholds(
    collector: GuiThreadCollector, fake: FakeCollector
) -> None:
    assert collector.collect_due() is None and fake.collected == []
    fake.counts = (701, 3, 0)
    assert collector.collect_due() == 0
    fake.counts = (701, 11, 0)
    assert collector.collect_due() == 1
    # The oldest generation is due by count, and nothing was kept yet.
    fake.counts = (701, 11, 11)
    assert collector.collect_due() == 2
    assert fake.collected == [0, 1, 2]


def test_a_full_collection_waits_for_a_quarter_of_the_heap(
    collector: GuiThreadCollector, fake: FakeCollector
) -> None:
    fake.sizes = {0: 100, 1: 0, 2: 1_000_000}
    fake.counts = (701, 11, 11)
    assert collector.collect_due() == 2  # it keeps a million objects
    # Later collections move 100 objects at a time to the oldest generation:
    # the full pass waits until they number 250,000.
    for _ in range(3):
        assert collector.collect_due() == 1
    fake.sizes[0] = 250_000
    assert collector.collect_due() == 1
    assert collector.collect_due() == 2
    assert fake.collected == [2, 1, 1, 1, 1, 2]


def test_no_collection_while_a_worker_holds_a_pause(
    collector: GuiThreadCollector, fake: FakeCollector
) -> None:
    fake.counts = (701, 0, 0)
    with collector_paused():
        assert collector.collect_due() is None
    assert collector.collect_due() == 0
    assert fake.collected == [0]


def test_the_apps_application_collects_on_its_thread() -> None:
    script = (
        "import gc\n"
        "from app.ui.window.application import create_application\n"
        "from app.ui.window.garbage import GuiThreadCollector\n"
        "app = create_application()\n"
        "print(gc.isenabled(), len(app.findChildren(GuiThreadCollector)),\n"
        "      gc.get_freeze_count() > 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    # Off, one collector, and the start-up objects out of its sight.
    assert done.stdout.split() == ["False", "1", "True"]
