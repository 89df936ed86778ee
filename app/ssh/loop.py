"""One asyncio loop on a worker thread, reached from any thread through futures."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from app.ssh.errors import Failure, RemoteError

_T = TypeVar("_T")

# How much longer a blocking wait lasts than the operation's own timeout: the
# operation reports its timeout itself, with a better message.
_GRACE_S = 2.0


async def bounded(
    coroutine: Coroutine[Any, Any, _T], timeout: float | None, what: str
) -> _T:
    """Await ``coroutine``, failing with a TIMEOUT ``RemoteError`` after ``timeout``."""
    if timeout is None:
        return await coroutine
    deadline = asyncio.timeout(timeout)
    try:
        async with deadline:
            return await coroutine
    except TimeoutError as error:
        if not deadline.expired():
            raise  # a timeout inside the operation, already worded by it
        raise RemoteError(
            Failure.TIMEOUT, f"{what} did not finish within {timeout:g} s."
        ) from error


class LoopThread:
    """Runs every SSH operation of the app on one event loop in one thread.

    ``submit`` may be called from any thread. It returns a
    ``concurrent.futures.Future``: wait on it with a timeout from a worker,
    cancel it (the coroutine is cancelled on the loop), or give it a
    done-callback. Done-callbacks run on the loop thread, so a GUI must only
    post from them (emit a signal with a queued connection), never touch
    widgets.
    """

    def __init__(self, name: str = "ssh-loop") -> None:
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._closed = False
        # Held while scheduling and while closing, so a coroutine is either
        # scheduled before the loop's stop (and cancelled cleanly) or refused.
        self._scheduling = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        self._ready.wait()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(self._ready.set)
        try:
            self._loop.run_forever()
        finally:
            # Whatever is still running is cancelled and allowed to clean up,
            # so no task is destroyed pending.
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            if pending:
                self._loop.run_until_complete(
                    asyncio.gather(*pending, return_exceptions=True)
                )
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def in_loop_thread(self) -> bool:
        return threading.get_ident() == self._thread.ident

    def submit(
        self,
        coroutine: Coroutine[Any, Any, _T],
        *,
        timeout: float | None,
        what: str,
    ) -> concurrent.futures.Future[_T]:
        """Schedule ``coroutine`` on the loop; its future fails after ``timeout``."""
        with self._scheduling:
            if not self._closed:
                future = asyncio.run_coroutine_threadsafe(
                    bounded(coroutine, timeout, what), self._loop
                )
                future.add_done_callback(lambda _done: self._forget(coroutine))
                return future
        coroutine.close()
        failed: concurrent.futures.Future[_T] = concurrent.futures.Future()
        failed.set_exception(
            RemoteError(Failure.CANCELLED, "The SSH connections were closed.")
        )
        return failed

    def _forget(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Close ``coroutine`` if its task ended before starting it.

        A task cancelled before its first step (the loop closing) never
        awaits what it was given. Only the loop thread starts coroutines, so
        only there is "not started yet" still true when it is closed.
        """
        if self.in_loop_thread() and (
            inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED
        ):
            coroutine.close()

    def call(
        self,
        coroutine: Coroutine[Any, Any, _T],
        *,
        timeout: float | None,
        what: str,
    ) -> _T:
        """Run ``coroutine`` and wait for it: for worker threads only, never the GUI.

        Raises ``RuntimeError`` on the loop thread itself, where waiting would
        deadlock.
        """
        if self.in_loop_thread():
            coroutine.close()
            raise RuntimeError("a blocking wait on the SSH loop thread would deadlock")
        future = self.submit(coroutine, timeout=timeout, what=what)
        try:
            return future.result(None if timeout is None else timeout + _GRACE_S)
        except concurrent.futures.TimeoutError as error:
            future.cancel()
            raise RemoteError(
                Failure.TIMEOUT, f"{what} did not finish in time."
            ) from error
        except concurrent.futures.CancelledError as error:
            raise RemoteError(Failure.CANCELLED, f"{what} was cancelled.") from error

    def close(self, timeout: float = 5.0) -> None:
        """Stop the loop (pending operations are cancelled) and join the thread."""
        with self._scheduling:
            if self._closed:
                return
            self._closed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout)
