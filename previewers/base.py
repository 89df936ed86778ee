"""The previewer contract: the source a previewer gets, the widget it builds, loading.

A previewer is chosen by ``previewers.registry.choose`` and builds one
``PreviewWidget`` for one opened file. The widget owns the ``VerifiedFile`` it is
given: every read goes through that descriptor (the path may have been swapped
since the check), and ``release()`` closes it. Work that takes time runs on a
thread pool and comes back as an immutable result; a result that arrives after
``release()`` is dropped.
"""

from __future__ import annotations

import html
import itertools
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Protocol, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal, Slot
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QMessageBox, QVBoxLayout, QWidget

from app.core.filetype import HEAD_SIZE, FileType, Kind, detect
from app.core.names import display_name
from app.core.safeio import Identity, VerifiedFile

T = TypeVar("T")


@dataclass(frozen=True)
class PreviewSource:
    """What a previewer knows about a file before it builds its widget.

    ``identity`` is the version fence taken when the file was opened; ``head``
    holds its first bytes (at most ``HEAD_SIZE``), read through the verified
    descriptor; ``type`` is what the file-type service made of them, once.
    """

    path: str
    name: str
    identity: Identity
    head: bytes
    type: FileType
    source_view: bool = False

    @classmethod
    def from_file(
        cls,
        path: str,
        file: VerifiedFile,
        *,
        kind: Kind | None = None,
        source_view: bool = False,
    ) -> PreviewSource:
        """Describe an opened file; reads its head (and behind tags) by descriptor.

        ``kind`` is the kind a trusted record holds; ``None`` for a file no
        record vouches for, whose name then says.
        """
        name = PurePath(path).name
        head = file.read(HEAD_SIZE, 0)
        return cls(
            path=path,
            # Shown in titles and messages: hidden characters made visible.
            name=display_name(name),
            identity=file.identity,
            head=head,
            type=detect(head, name, kind=kind, read=file.read),
            source_view=source_view,
        )

    @classmethod
    def of_head(
        cls,
        path: str,
        head: bytes,
        *,
        size: int | None = None,
        kind: Kind | None = None,
        source_view: bool = False,
    ) -> PreviewSource:
        """Describe a file from its head alone (nothing opened), as tests do."""
        name = PurePath(path).name
        return cls(
            path=path,
            name=display_name(name),
            identity=Identity(0, 0, len(head) if size is None else size, 0),
            head=head,
            type=detect(head, name, kind=kind),
            source_view=source_view,
        )

    @property
    def kind(self) -> Kind:
        """The family to preview as: the bytes' when they name one (see ``detect``)."""
        return self.type.kind

    @property
    def mime(self) -> str:
        return self.type.mime

    @property
    def is_text(self) -> bool:
        """Whether the head reads as text (a byte order mark, or not binary)."""
        return self.type.text


def is_text_of_kind(source: PreviewSource, kind: Kind, size_limit: int) -> bool:
    """A rendered (not "Show source") preview of a text file of ``kind``.

    Files over ``size_limit`` fall through to the plain code and text view.
    """
    return (
        source.kind is kind
        and not source.source_view
        and source.identity.size <= size_limit
        and source.is_text
    )


class Previewer(Protocol):
    """One family of files: says which sources it takes and builds their widget."""

    name: str

    def accepts(self, source: PreviewSource) -> bool: ...

    def create(
        self, source: PreviewSource, file: VerifiedFile, parent: QWidget | None
    ) -> PreviewWidget: ...


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally.

    Tooltips guess rich text and would load ``<img src=...>`` from disk; escaped
    text inside an explicit rich-text wrapper is displayed as written.
    """
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"


def ask_plain_question(
    parent: QWidget | None,
    title: str,
    text: str,
    accept: QMessageBox.StandardButton = QMessageBox.StandardButton.Open,
) -> bool:
    """Ask a yes/no question whose text may hold untrusted strings.

    The text is plain (a URL or file name is never read as HTML) and the safe
    answer is the default.
    """
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(text)
    refuse = (
        QMessageBox.StandardButton.No
        if accept == QMessageBox.StandardButton.Yes
        else QMessageBox.StandardButton.Cancel
    )
    box.setStandardButtons(accept | refuse)
    box.setDefaultButton(refuse)
    return box.exec() == accept


def notice_label(parent: QWidget, accessible_name: str) -> QLabel:
    """A hidden, plain-text notice strip in the tooltip colours, for a preview's top."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setAccessibleName(accessible_name)
    label.setContentsMargins(8, 4, 8, 4)
    label.setAutoFillBackground(True)
    label.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
    label.setForegroundRole(QPalette.ColorRole.ToolTipText)
    label.hide()
    return label


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
    def _on_self_finished(self, ticket: int, result: object) -> None:
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


def _get_relay() -> _ResultRelay:
    global _relay  # one relay for the whole process, made on first use
    if _relay is None:
        _relay = _ResultRelay()
    return _relay


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
        try:
            with self._shared.borrow() as file:
                result = self._job(file, self._cancelled)
        except PreviewReleasedError:
            return  # released before the work started: nobody waits for it
        except Exception as error:  # the message reaches the user as a failure
            self._relay.errored.emit(self._ticket, _error_text(error))
            return
        self._relay.finished.emit(self._ticket, result)


def _error_text(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


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
        self, source: PreviewSource, file: VerifiedFile, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._source = source
        self._shared = _SharedFile(file)
        self._cancelled = threading.Event()
        self._released = False
        self._loaded = False
        self._settled = False
        self._callbacks: dict[int, Callable[[Any], None]] = {}
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

    def mark_loaded(self) -> None:
        if self._released or self._settled:
            return
        self._loaded = self._settled = True
        self.loaded.emit()

    def mark_failed(self, reason: str) -> None:
        if self._released or self._settled:
            return
        self._settled = True
        self._show_message(f"Could not load {self._source.name}: {reason}")
        self.failed.emit(reason)

    def mark_refused(self, reason: str) -> None:
        if self._released or self._settled:
            return
        self._settled = True
        self._show_message(f"{self._source.name} is not previewed here: {reason}")
        self.refused.emit(reason)

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
        if callback is not None and not self._released:
            callback(result)

    def _deliver_error(self, ticket: int, message: str) -> None:
        if self._callbacks.pop(ticket, None) is not None:
            self.mark_failed(message)
