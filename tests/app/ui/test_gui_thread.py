"""Background results reach the GUI thread, and never a receiver that is gone."""

from __future__ import annotations

import threading
from concurrent.futures import Future

import pytest
from PySide6.QtCore import QObject, QThread, QThreadPool
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.ui.gui_thread import run, when_done


def _gui_thread() -> QThread:
    app = QApplication.instance()
    assert app is not None
    return app.thread()


def test_work_runs_off_the_gui_thread_and_its_answer_arrives_on_it(
    qtbot: QtBot,
) -> None:
    receiver = QObject()
    worked_on: list[QThread] = []
    arrived: list[tuple[int, QThread]] = []

    def work() -> int:
        worked_on.append(QThread.currentThread())
        return 42

    run(
        receiver,
        work,
        lambda done: arrived.append((done.result(), QThread.currentThread())),
    )
    qtbot.waitUntil(lambda: bool(arrived))
    assert arrived == [(42, _gui_thread())]
    assert worked_on[0] is not _gui_thread()


def test_what_the_work_raised_is_raised_again_by_result(qtbot: QtBot) -> None:
    receiver = QObject()
    arrived: list[Future[int]] = []

    def work() -> int:
        raise OSError("the disk went away")

    run(receiver, work, arrived.append)
    qtbot.waitUntil(lambda: bool(arrived))
    with pytest.raises(OSError, match="the disk went away"):
        arrived[0].result()


def test_a_receiver_deleted_before_the_answer_hears_nothing(qtbot: QtBot) -> None:
    receiver = QObject()
    release = threading.Event()
    finished = threading.Event()
    arrived: list[Future[str]] = []

    def work() -> str:
        release.wait(5)
        return "late"

    future = run(receiver, work, arrived.append)
    future.add_done_callback(lambda _: finished.set())
    receiver.deleteLater()
    qtbot.waitUntil(lambda: not _alive(receiver))
    release.set()
    assert finished.wait(5)
    QApplication.processEvents()
    QApplication.processEvents()
    assert arrived == []


def test_a_future_ended_on_another_thread_is_handed_over_on_the_gui_thread(
    qtbot: QtBot,
) -> None:
    receiver = QObject()
    future: Future[str] = Future()
    arrived: list[tuple[str, QThread]] = []
    when_done(
        receiver,
        future,
        lambda done: arrived.append((done.result(), QThread.currentThread())),
    )
    threading.Thread(target=future.set_result, args=("listed",)).start()
    qtbot.waitUntil(lambda: bool(arrived))
    assert arrived == [("listed", _gui_thread())]


def test_a_job_cancelled_while_it_waits_never_runs(qtbot: QtBot) -> None:
    pool = QThreadPool()
    pool.setMaxThreadCount(1)
    receiver = QObject()
    release = threading.Event()
    ran: list[str] = []
    arrived: list[Future[None]] = []
    run(receiver, lambda: release.wait(5), lambda _: None, pool=pool)
    waiting = run(receiver, lambda: ran.append("ran"), arrived.append, pool=pool)
    assert waiting.cancel()
    release.set()
    qtbot.waitUntil(lambda: bool(arrived))
    pool.waitForDone(5000)
    assert arrived[0].cancelled()
    assert ran == []


def test_many_answers_share_one_carrier_per_receiver(qtbot: QtBot) -> None:
    receiver = QObject()
    arrived: list[int] = []
    for number in range(20):
        run(receiver, lambda n=number: n, lambda done: arrived.append(done.result()))
    qtbot.waitUntil(lambda: len(arrived) == 20)
    assert sorted(arrived) == list(range(20))
    assert len(receiver.children()) == 1


def _alive(thing: QObject) -> bool:
    try:
        thing.objectName()
    except RuntimeError:
        return False
    return True
