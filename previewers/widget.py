"""The base of every preview widget: it owns the verified file and loads off the GUI.

A previewer is chosen by ``previewers.registry.choose`` and builds one
``PreviewWidget`` for one opened file. The widget owns the ``VerifiedFile`` it is
given: every read goes through that descriptor (the path may have been swapped
since the check), and ``release()`` closes it. Work that takes time runs on a
thread pool and comes back as an immutable result; a result that arrives after
``release()`` is dropped.
"""

from __future__ import annotations

import itertools
import logging
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import (
    QCoreApplication,
    QObject,
    QRunnable,
    Qt,
    QThreadPool,
    Signal,
    Slot,
)
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext, SourceText
from previewers.source import PreviewSource

T = TypeVar("T")
_log = logging.getLogger(__name__)


class PreviewReleasedError(RuntimeError):
    """The preview was released; its file is closed and no more reads happen."""


class _SharedFile:
    """Lets worker threads read while ``close`` waits for the last reader.

    Closing a descriptor under a running ``pread`` could let the number be
    reused by another open, and the reader would read the wrong file.
    """

    def __init__(self, file: VerifiedFile) -> None:
        self._file = file
        self._lock = threading.Lock()
        self._readers = 0
        self._closing = False

    @contextmanager
    def borrow(self) -> Iterator[VerifiedFile]:
        with self._lock:
            if self._closing:
                raise PreviewReleasedError("the preview was closed")
            self._readers += 1
        try:
            yield self._file
        finally:
            with self._lock:
                self._readers -= 1
                if self._closing and self._readers == 0:
                    self._file.close()

    def close(self) -> None:
        with self._lock:
            self._closing = True
            if self._readers == 0:
                self._file.close()


class _ResultRelay(QObject):
    """Carries results from pool threads to the GUI thread, by ticket.

    One relay lives for the whole process, so a worker never emits on an object
    that a closed tab has deleted; a ticket whose widget is gone is dropped.
    """

    finished = Signal(int, object)
    errored = Signal(int, str)

    def __init__(self) -> None:
        super().__init__()
        self._waiting: dict[int, weakref.ref[PreviewWidget]] = {}
        self.finished.connect(
            self._on_self_finished, Qt.ConnectionType.QueuedConnection
        )
        self.errored.connect(self._on_self_errored, Qt.ConnectionType.QueuedConnection)

    def expect(self, ticket: int, widget: PreviewWidget) -> None:
        self._waiting[ticket] = weakref.ref(widget)

    def forget(self, ticket: int) -> None:
        self._waiting.pop(ticket, None)

    def _claim(self, ticket: int) -> PreviewWidget | None:
        reference = self._waiting.pop(ticket, None)
        widget = reference() if reference is not None else None
        if widget is None or not shiboken6.isValid(widget):
            return None
        return widget

    @Slot(int, object)
    def _on_self_finished(self, ticket: int, handoff: list[object]) -> None:
        result = handoff.pop()
        widget = self._claim(ticket)
        if widget is not None:
            widget._deliver(ticket, result)

    @Slot(int, str)
    def _on_self_errored(self, ticket: int, message: str) -> None:
        widget = self._claim(ticket)
        if widget is not None:
            widget._deliver_error(ticket, message)


_relay: _ResultRelay | None = None
_tickets = itertools.count(1)


_running: weakref.WeakSet[threading.Event] = weakref.WeakSet()
"""The cancellation events of open previews, all set when the app quits."""


SWITCH_INTERVAL_S = 0.001
"""How long a busy thread may keep the interpreter lock that another wants.

Python's default is 5 ms. Each time Qt calls into a model, a delegate or a
slot, the GUI thread must take the lock back from a background job, so a
layout of a few thousand calls beside a parsing job waited hundreds of
milliseconds (a 3.5 MB JSON array of objects: 330-430 ms, 80-110 ms at 1 ms).
"""


def keep_gui_thread_responsive() -> None:
    """Let the GUI thread have the interpreter lock within ``SWITCH_INTERVAL_S``."""
    if sys.getswitchinterval() > SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)


def _get_relay() -> _ResultRelay:
    global _relay  # one relay for the whole process, made on first use
    if _relay is None:
        keep_gui_thread_responsive()
        _relay = _ResultRelay()
        application = QCoreApplication.instance()
        if application is not None:
            application.aboutToQuit.connect(cancel_all_jobs)
    return _relay


def cancel_all_jobs() -> None:
    """Ask every preview's background jobs to stop (the app is quitting).

    The pool waits for its running jobs before the app can end, so each one
    that polls its ``cancelled`` event ends soon, and none delivers a result.
    """
    for event in list(_running):
        event.set()


class _LoadTask(QRunnable):
    def __init__(
        self,
        ticket: int,
        shared: _SharedFile,
        cancelled: threading.Event,
        job: Callable[[VerifiedFile, threading.Event], Any],
        relay: _ResultRelay,
    ) -> None:
        super().__init__()
        self._ticket = ticket
        self._shared = shared
        self._cancelled = cancelled
        self._job = job
        self._relay = relay

    def run(self) -> None:
        if self._cancelled.is_set():
            return  # closed (or quitting) before the work started
        try:
            with self._shared.borrow() as file:
                # In a list the GUI thread empties, so this thread keeps no
                # reference: what the receiver drops is freed there, where the
                # Qt objects in it live (a worker must not destroy them).
                handoff = [self._job(file, self._cancelled)]
        except PreviewReleasedError:
            return  # released before the work started: nobody waits for it
        except Exception as error:  # the message reaches the user as a failure
            self._send(self._relay.errored, _error_text(error))
            return
        self._send(self._relay.finished, handoff)

    def _send(self, signal: Any, value: object) -> None:
        # Sent even when cancelled: the relay drops a result nobody waits for,
        # on the GUI thread. At quit the relay may already be gone, and
        # emitting on it would raise.
        if not shiboken6.isValid(self._relay):
            return
        try:
            signal.emit(self._ticket, value)
        except RuntimeError:  # the relay was deleted just now, at quit
            return


UNEXPECTED_FAILURE = "it is damaged, or uses something this viewer does not support"
"""The reason shown when a job fails in a way no reader foresaw."""


def _error_text(error: BaseException) -> str:
    """The failure as a reason a person understands; never an exception's name.

    The readers' own errors carry such a reason; anything a library raised
    that no reader turned into one is logged and named only in general words.
    """
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    if isinstance(error, MemoryError):
        return "there is not enough memory to show it"
    if isinstance(error, RecursionError):
        return "it is nested too deeply to read"
    if type(error).__module__.startswith(_OWN_PACKAGES) and str(error):
        return str(error)
    _log.warning("a preview's job failed unexpectedly", exc_info=error)
    return UNEXPECTED_FAILURE


_OWN_PACKAGES = ("app.", "previewers.")


class PreviewWidget(QWidget):
    """The base of every preview: owns the file, loads, reports the outcome.

    Subclasses put their view in with ``set_content`` and start loading in their
    constructor, with ``run_in_background`` for anything slow. Outcomes differ:
    ``mark_refused`` (this previewer will not show the file, e.g. too large) and
    ``mark_failed`` (it tried and could not, e.g. a decode error).

    Signals:
        loaded(): the preview shows the file.
        failed(str): loading failed; the reason, plain text.
        refused(str): the previewer declines this file; the reason, plain text.
    """

    loaded = Signal()
    failed = Signal(str)
    refused = Signal(str)

    def __init__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None = None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> None:
        super().__init__(parent)
        self._source = source
        self.context = context
        """Where the preview is shown: root, policy and colour scheme."""
        self._shared = _SharedFile(file)
        self._cancelled = threading.Event()
        _running.add(self._cancelled)
        self._released = False
        self._loaded = False
        self._settled = False
        self._reason = ""
        self._callbacks: dict[int, Callable[[Any], None]] = {}
        self._sources_coloured: set[int] = set()
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(0)
        self._message = QLabel(self)
        self._message.setTextFormat(Qt.TextFormat.PlainText)
        self._message.setWordWrap(True)
        self._message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._message.setAccessibleName("Preview message")
        self._message.hide()
        self._layout.addWidget(self._message)
        self._content: QWidget | None = None

    # -- what the workspace uses ------------------------------------------------

    @property
    def source(self) -> PreviewSource:
        return self._source

    def is_dark(self) -> bool:
        """Whether the preview is shown in a dark colour scheme."""
        return self.context.is_dark(self.palette())

    def release(self) -> None:
        """Stop any work and close the file. Safe to call more than once."""
        if self._released:
            return
        self._released = True
        self._cancelled.set()
        relay = _relay
        if relay is not None:
            for ticket in self._callbacks:
                relay.forget(ticket)
        self._callbacks.clear()
        self._shared.close()

    def is_released(self) -> bool:
        return self._released

    def is_loaded(self) -> bool:
        """Whether the preview finished loading and shows the file."""
        return self._loaded

    def is_settled(self) -> bool:
        """Whether loading is over, whatever its outcome."""
        return self._settled

    def find_next(self, text: str, backward: bool = False) -> bool:
        """Select the next match for ``text``; previews without text find nothing."""
        return False

    def focus_find(self) -> None:
        """Show and focus the find bar, if the preview has one."""

    def zoom_in(self) -> None:
        """Make the content larger, if the preview can."""

    def zoom_out(self) -> None:
        """Make the content smaller, if the preview can."""

    def zoom_reset(self) -> None:
        """Return to the default size."""

    def reload(self) -> None:
        """Show the content again from what was loaded, if the preview can."""

    def scroll_to_anchor(self, anchor: str) -> None:
        """Show the part of the content ``anchor`` names, if the preview can."""

    # -- for subclasses -------------------------------------------------------------

    def set_content(self, widget: QWidget) -> None:
        """Put the preview's main view in place (once)."""
        self._content = widget
        self._layout.addWidget(widget, 1)

    @contextmanager
    def borrow_file(self) -> Iterator[VerifiedFile]:
        """The verified file, for a short read on the GUI thread."""
        with self._shared.borrow() as file:
            yield file

    def run_in_background(
        self,
        job: Callable[[VerifiedFile, threading.Event], T],
        on_result: Callable[[T], None],
    ) -> None:
        """Run ``job(file, cancelled)`` on the pool; ``on_result`` gets its value.

        ``on_result`` runs on the GUI thread, and only if the preview is still
        open; an exception in the job becomes ``mark_failed`` with its message.
        The job should return an immutable value and may poll ``cancelled``.
        """
        if self._released:
            return
        relay = _get_relay()
        ticket = next(_tickets)
        self._callbacks[ticket] = on_result
        relay.expect(ticket, self)
        task = _LoadTask(ticket, self._shared, self._cancelled, job, relay)
        QThreadPool.globalInstance().start(task)

    def colour_source(self, source: SourceText) -> None:
        """Colour ``source``'s text on a worker, once per source.

        Call it when the source is on screen with its text: a page or a
        document whose source is never looked at never has it parsed.
        """
        if id(source) in self._sources_coloured:
            return
        colouring = source.colouring()
        if colouring is None:
            return
        self._sources_coloured.add(id(source))
        self.run_in_background(
            lambda _file, cancelled: colouring(cancelled.is_set), source.adopt
        )

    def mark_loaded(self) -> None:
        if self._released or self._settled:
            return
        self._loaded = self._settled = True
        self.loaded.emit()

    def mark_failed(self, reason: str) -> None:
        if self._released or self._settled:
            return
        self._settled = True
        self._reason = reason
        self._show_message(f"Could not load {self._source.name}: {reason}")
        self.failed.emit(reason)

    def mark_refused(self, reason: str) -> None:
        if self._released or self._settled:
            return
        self._settled = True
        self._reason = reason
        self._show_message(f"{self._source.name} is not previewed here: {reason}")
        self.refused.emit(reason)

    def reason(self) -> str:
        """Why the preview failed or refused, as its signal said ("" if neither)."""
        return self._reason

    def message_text(self) -> str:
        """The failure or refusal shown instead of the content ("" if none)."""
        return self._message.text() if self._message.isVisibleTo(self) else ""

    def _show_message(self, text: str) -> None:
        if self._content is not None:
            self._content.hide()
        self._message.setText(text)
        self._message.show()

    def _deliver(self, ticket: int, result: object) -> None:
        callback = self._callbacks.pop(ticket, None)
        if callback is not None and not self._cancelled.is_set():
            callback(result)

    def _deliver_error(self, ticket: int, message: str) -> None:
        if self._callbacks.pop(ticket, None) is not None:
            self.mark_failed(message)
