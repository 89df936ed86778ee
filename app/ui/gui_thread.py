"""Results of background work handed to the GUI thread: the one way there.

Work either runs on a thread pool (``run``) or already runs elsewhere and ends
in a ``concurrent.futures.Future`` (``when_done``: the SSH loop, a diff). Either
way its ``Future`` reaches ``done`` by a queued signal on the receiver's
thread, and never after the receiver is gone: a closed dialog, tab or pane
hears nothing of work it started. ``done`` reads the answer with
``future.result()``, which raises what the work raised, or checks
``future.cancelled()``. A receiver that must also ignore answers to older
requests keeps its own generation number, as it would with any signal.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from contextlib import suppress
from typing import Final, TypeVar

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal, Slot

T = TypeVar("T")

_CARRIER_NAME: Final = "gui-thread carrier"


class _Carrier(QObject):
    """Lives on the receiver's thread as its child; dies with it."""

    arrived = Signal(object, object)  # done, future

    def __init__(self, receiver: QObject) -> None:
        super().__init__(receiver)
        self.setObjectName(_CARRIER_NAME)
        self.arrived.connect(self._hand_over, Qt.ConnectionType.QueuedConnection)

    @Slot(object, object)
    def _hand_over(
        self, done: Callable[[Future[object]], None], future: Future[object]
    ) -> None:
        done(future)


def _carrier(receiver: QObject) -> _Carrier:
    found = receiver.findChild(
        _Carrier, _CARRIER_NAME, Qt.FindChildOption.FindDirectChildrenOnly
    )
    return found if found is not None else _Carrier(receiver)


def when_done(
    receiver: QObject, future: Future[T], done: Callable[[Future[T]], None]
) -> None:
    """Call ``done(future)`` on ``receiver``'s thread once ``future`` ends.

    Call this on the receiver's thread. A cancelled future is delivered too.
    """
    carrier = _carrier(receiver)

    def hand_over(ended: Future[T]) -> None:
        # The receiver, and its carrier with it, may have been deleted.
        with suppress(RuntimeError):
            carrier.arrived.emit(done, ended)

    future.add_done_callback(hand_over)


class _Job(QRunnable):
    def __init__(self, work: Callable[[], object], future: Future[object]) -> None:
        super().__init__()
        self._parts: tuple[Callable[[], object], Future[object]] | None = (
            work,
            future,
        )

    def run(self) -> None:
        # The job lets go of the work and its answer before it answers: the
        # pool deletes the job on the worker later, and the answer's last
        # reference must be the GUI side's, so it is freed there.
        assert self._parts is not None
        work, future = self._parts
        self._parts = None
        if not future.set_running_or_notify_cancel():
            return
        try:
            result = work()
        except BaseException as error:  # handed to ``done`` through the future
            future.set_exception(error)
        else:
            future.set_result(result)


def run(
    receiver: QObject,
    work: Callable[[], T],
    done: Callable[[Future[T]], None],
    *,
    pool: QThreadPool | None = None,
) -> Future[T]:
    """Run ``work`` on ``pool`` (the global one by default); hand its end to ``done``.

    The returned future may be cancelled while the job waits for a thread; a
    job already running is not interrupted (its answer is still delivered).
    """
    future: Future[T] = Future()
    when_done(receiver, future, done)
    job = _Job(work, future)  # type: ignore[arg-type]
    (pool or QThreadPool.globalInstance()).start(job)
    return future
