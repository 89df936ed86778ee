"""The one thread that asks the PDF worker process for everything PDF previews need.

PyMuPDF runs in a worker process (``app.formats.pdf_worker``): MuPDF cannot be
interrupted, holds the interpreter lock while it draws, and some pages keep it
busy for minutes. This thread talks to that process for every open preview,
one request at a time, each within a budget (``OPEN_BUDGET_S``,
``RENDER_BUDGET_S``, ``TEXT_BUDGET_S``); past it the process is killed, the
page says it is too complex, and the next request starts a fresh process in
which the open documents are opened again from the bytes kept here. Work comes
in three lanes, served in this order: short requests (open, unlock, words,
close), page renders (replaced wholesale by each newer wish, so pages scrolled
past are never drawn) and background chunks (search). Results reach the GUI
thread through one process-wide relay, by session; a session that closed gets
nothing. The thread and the process start with the first session; the process
ends ``IDLE_S`` after the last session closes.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal, Slot
from PySide6.QtGui import QImage

from app.formats.pdf_doc import MAX_BITMAP_PIXELS, Box, DocumentInfo, PdfLink, Word
from app.formats.pdf_process import (
    BudgetExceededError,
    PdfWorkerProcess,
    RequestFailedError,
    WorkerCrashedError,
    WorkerError,
    WorkerStartError,
)
from app.formats.pdf_wire import (
    WireError,
    decode_boxes,
    decode_info,
    decode_links,
    decode_words,
)
from previewers.pdf.outline import OutlineTree

SEARCH_CHUNK = 16
"""Pages searched per background step; renders may run between steps."""
OPEN_BUDGET_S = 30.0
"""Opening a document and reading its pages and outline."""
RENDER_BUDGET_S = 10.0
"""Drawing one page; a page that takes longer is too complex to show."""
TEXT_BUDGET_S = 10.0
"""The words of one page, or a search of one page."""
IDLE_S = 60.0
"""The worker process ends this long after the last PDF preview closed."""
TOO_COMPLEX = "this page is too complex to render"
RENDERER_STOPPED = "the PDF renderer stopped on this page"
TOO_LARGE = "this page needs more memory than the viewer gives a page"


@dataclass(frozen=True)
class Opened:
    info: DocumentInfo
    outline: OutlineTree  # the outline's shape, worked out on the render thread


@dataclass(frozen=True)
class PasswordNeeded:
    wrong: bool  # True after a password was tried and refused


@dataclass(frozen=True)
class OpenFailed:
    reason: str


@dataclass(frozen=True)
class TaskFailed:
    """A request failed in a way the viewer did not foresee; the reason."""

    reason: str


@dataclass(frozen=True)
class RenderRequest:
    """Draw ``page`` at ``scale`` device pixels per point for ``generation``."""

    page: int
    scale: float
    generation: int


@dataclass(frozen=True)
class PageRendered:
    """A drawn page; ``notice`` names what of it could not be read, if anything."""

    request: RenderRequest
    image: QImage
    links: tuple[PdfLink, ...]
    notice: str = ""


@dataclass(frozen=True)
class PageFailed:
    """A page that could not be drawn; ``notice`` is for the notice bar, if any."""

    request: RenderRequest
    reason: str
    notice: str = ""


@dataclass(frozen=True)
class WordsReady:
    page: int
    words: tuple[Word, ...]


@dataclass(frozen=True)
class SearchFound:
    """Matches found for search ``search_id`` on its next chunk of pages."""

    search_id: int
    matches: tuple[tuple[int, Box], ...]
    last: int
    done: bool
    skipped: int = 0  # pages that could not be searched


Result = Opened | PasswordNeeded | OpenFailed | PageRendered | PageFailed | WordsReady
_Task = Callable[[], None]


class _Relay(QObject):
    """Carries results to the GUI thread; lives as long as the process."""

    delivered = Signal(int, object)

    def __init__(self) -> None:
        super().__init__()
        self._callbacks: dict[int, weakref.WeakMethod[Callable[[Any], None]]] = {}
        self.delivered.connect(
            self._on_self_delivered, Qt.ConnectionType.QueuedConnection
        )

    def expect(self, session: int, callback: Callable[[Any], None]) -> None:
        self._callbacks[session] = weakref.WeakMethod(callback)

    def forget(self, session: int) -> None:
        self._callbacks.pop(session, None)

    @Slot(int, object)
    def _on_self_delivered(self, session: int, result: object) -> None:
        reference = self._callbacks.get(session)
        callback = reference() if reference is not None else None
        owner = getattr(callback, "__self__", None)
        if callback is None or (
            isinstance(owner, QObject) and not shiboken6.isValid(owner)
        ):
            self._callbacks.pop(session, None)
            return
        callback(result)


@dataclass
class _Document:
    """What reopens a session's document in a fresh worker process."""

    data: bytes
    password: str = ""
    generation: int = 0  # the worker process it is open in; 0: none


class _Worker:
    """The render thread's queues and its worker process (one per app)."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.urgent: deque[tuple[int, _Task]] = deque()
        self.renders: dict[tuple[int, int], tuple[int, _Task]] = {}
        self.background: deque[tuple[int, _Task]] = deque()
        self.sessions: set[int] = set()
        self.thread: threading.Thread | None = None
        self.current: int | None = None  # the session whose task is running
        self.stopped = False  # the app is quitting: no more work, no process
        # Touched only by the thread:
        self.process = PdfWorkerProcess()
        self.documents: dict[int, _Document] = {}

    def start_session(self, session: int) -> None:
        with self.condition:
            self.stopped = False
            self.sessions.add(session)
            if self.thread is None:
                # Daemon: a preview never released must not keep the app alive.
                self.thread = threading.Thread(
                    target=self._run, name="pdf-render", daemon=True
                )
                self.thread.start()
            self.condition.notify()

    def _next(self) -> tuple[int, _Task] | None:
        """The next task, or None when the thread should end (no sessions)."""
        with self.condition:
            idle_since: float | None = None
            self.current = None
            while not (self.urgent or self.renders or self.background):
                if self.stopped:
                    self.thread = None
                    return None
                if self.sessions:
                    idle_since = None
                    self.condition.wait()
                    continue
                now = time.monotonic()
                idle_since = now if idle_since is None else idle_since
                if now - idle_since >= IDLE_S or not self.process.running:
                    self.thread = None
                    return None
                self.condition.wait(IDLE_S - (now - idle_since))
            if self.urgent:
                found = self.urgent.popleft()
            elif self.renders:
                found = self.renders.pop(next(iter(self.renders)))
            else:
                found = self.background.popleft()
            self.current = found[0]
            return found

    def _run(self) -> None:
        while True:
            found = self._next()
            if found is None:
                self.process.kill()
                return
            session, task = found
            try:
                task()
            except Exception as error:  # the thread must outlive any one document
                _report_failure(session, error)

    def ask(
        self,
        session: int,
        request: dict[str, Any],
        *,
        budget: float,
        payload: bytes = b"",
    ) -> tuple[dict[str, Any], bytes]:
        """Ask the worker about ``session``'s document, opening it there first."""
        document = self.documents.get(session)
        if document is None:
            raise RequestFailedError("the document is not open", "closed")
        if document.generation != self.process.generation or not self.process.running:
            self.reopen(session, document)
        request = {**request, "session": session}
        return self.process.call(request, payload, budget=budget)

    def reopen(self, session: int, document: _Document) -> bool:
        """Open the document in the running worker; whether it needs a password.

        A worker started after a kill holds no documents: each is opened again
        from its bytes, and unlocked with the password that worked before.
        """
        header, _ = self.process.call(
            {"op": "open", "session": session}, document.data, budget=OPEN_BUDGET_S
        )
        document.generation = self.process.generation
        if header.get("needs_password") and document.password:
            request = {"op": "authenticate", "session": session}
            header, _ = self.process.call(
                {**request, "password": document.password}, budget=OPEN_BUDGET_S
            )
        return bool(header.get("needs_password"))

    def put(self, lane: deque[tuple[int, _Task]], session: int, task: _Task) -> None:
        with self.condition:
            lane.append((session, task))
            self.condition.notify()

    def replace_renders(self, session: int, tasks: dict[int, _Task]) -> None:
        with self.condition:
            for key in [k for k in self.renders if k[0] == session]:
                del self.renders[key]
            for page, task in tasks.items():
                self.renders[(session, page)] = (session, task)
            self.condition.notify()

    def end_session(self, session: int, close: _Task) -> None:
        with self.condition:
            for lane in (self.urgent, self.background):
                kept = [(s, t) for s, t in lane if s != session]
                lane.clear()
                lane.extend(kept)
            for key in [k for k in self.renders if k[0] == session]:
                del self.renders[key]
            self.urgent.append((session, close))
            self.sessions.discard(session)
            if self.current == session:
                # Its page may keep MuPDF busy for the whole budget: the
                # worker is killed now, and the next request starts another.
                self.process.interrupt()
            self.condition.notify()

    def stop(self) -> None:
        """Drop every task and kill the worker process (the app is quitting)."""
        with self.condition:
            self.urgent.clear()
            self.renders.clear()
            self.background.clear()
            self.sessions.clear()
            self.stopped = True
            thread = self.thread
            self.process.interrupt()
            self.condition.notify()
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)
        if thread is None or not thread.is_alive():
            self.process.kill()  # reaped, its pipes closed


_worker = _Worker()
_relay: _Relay | None = None
_ids = itertools.count(1)


def _report_failure(session: int, error: Exception) -> None:
    relay = _relay
    if relay is not None and not _worker.stopped and shiboken6.isValid(relay):
        reason = str(error) if isinstance(error, WorkerError) else "it is damaged"
        relay.delivered.emit(
            session, TaskFailed(f"the PDF could not be read ({reason})")
        )


def stop_rendering() -> None:
    """End the render thread and the worker process; safe to repeat.

    Runs when the app quits (``aboutToQuit``, and at exit), so that no worker
    outlives the app, even one busy inside MuPDF.
    """
    _worker.stop()


def _on_application_about_to_quit() -> None:
    stop_rendering()


def render_thread() -> threading.Thread | None:
    """The running render thread, if any PDF preview is open."""
    return _worker.thread


def worker_process() -> PdfWorkerProcess:
    """The worker process the render thread asks (it may not be running)."""
    return _worker.process


def _to_image(header: dict[str, Any], samples: bytes) -> QImage:
    """The page bitmap the worker sent, checked before Qt reads a byte of it."""
    width, height, stride = (header.get(k) for k in ("width", "height", "stride"))
    if not (
        isinstance(width, int)
        and isinstance(height, int)
        and isinstance(stride, int)
        and width > 0
        and height > 0
        and width * height <= MAX_BITMAP_PIXELS
        and width * 3 <= stride
        and stride * height <= len(samples)
    ):
        raise WireError("the PDF worker sent a page bitmap of the wrong size")
    image = QImage(samples, width, height, stride, QImage.Format.Format_RGB888)
    # A converted copy owns its pixels (the samples go away) and paints fastest.
    return image.convertToFormat(QImage.Format.Format_RGB32)


def _page_failure(request: RenderRequest, error: Exception) -> PageFailed:
    if isinstance(error, BudgetExceededError):
        notice = (
            f"Page {request.page + 1} is too complex to render within "
            f"{RENDER_BUDGET_S:.0f} seconds; the rest of the document is shown."
        )
        return PageFailed(request, TOO_COMPLEX, notice)
    if isinstance(error, WorkerCrashedError):
        notice = f"The PDF renderer stopped on page {request.page + 1} and restarted."
        return PageFailed(request, RENDERER_STOPPED, notice)
    if isinstance(error, RequestFailedError) and error.kind == "memory":
        notice = (
            f"Page {request.page + 1} needs more memory than the viewer gives "
            "a page; the rest of the document is shown."
        )
        return PageFailed(request, TOO_LARGE, notice)
    if isinstance(error, WorkerError):
        return PageFailed(request, str(error) or "it is damaged")
    return PageFailed(request, "it is damaged")


def _left_out_notice(page: int, header: dict[str, Any]) -> str:
    """What of a drawn page could not be read, as a quiet notice ("" if none)."""
    parts = []
    if header.get("annotations_left_out") is True:
        parts.append("its annotations could not be drawn")
    links = header.get("links_left_out")
    if isinstance(links, int) and not isinstance(links, bool) and links > 0:
        parts.append(
            "a link on it could not be read"
            if links == 1
            else f"{links} links on it could not be read"
        )
    if not parts:
        return ""
    return f"Page {page + 1} is shown, but {' and '.join(parts)}."


def _opened(info: DocumentInfo) -> Opened:
    return Opened(info, OutlineTree.of(info.outline))


def _open_failure(error: Exception) -> str:
    if isinstance(error, BudgetExceededError):
        return "the PDF is too complex to open in time"
    if isinstance(error, WorkerCrashedError):
        return "the PDF renderer stopped while opening it"
    if isinstance(error, WorkerStartError | RequestFailedError):
        return str(error)
    return "the PDF is damaged"


class PdfSession:
    """One preview's document on the render thread; used from the GUI thread.

    ``on_result`` (a bound method) gets each result on the GUI thread while the
    session is open.
    """

    def __init__(self, on_result: Callable[[Any], None]) -> None:
        global _relay  # one relay for the process, made on the GUI thread
        if _relay is None:
            _relay = _Relay()
            application = QCoreApplication.instance()
            if application is not None:
                application.aboutToQuit.connect(_on_application_about_to_quit)
            atexit.register(stop_rendering)
        self.id = next(_ids)
        self._relay = _relay
        self._closed = False
        self._search_id = 0
        _relay.expect(self.id, on_result)
        _worker.start_session(self.id)

    @property
    def closed(self) -> bool:
        return self._closed

    def _emit(self, result: object) -> None:
        if _worker.stopped or not shiboken6.isValid(self._relay):
            return  # the app is quitting: nobody is listening
        self._relay.delivered.emit(self.id, result)

    def open(self, data: bytes) -> None:
        """Open ``data``; answers ``Opened``, ``PasswordNeeded`` or ``OpenFailed``."""

        def task() -> None:
            document = _worker.documents[self.id] = _Document(data)
            try:
                if _worker.reopen(self.id, document):
                    self._emit(PasswordNeeded(False))
                    return
                header, _ = _worker.ask(self.id, {"op": "info"}, budget=OPEN_BUDGET_S)
                self._emit(_opened(decode_info(header)))
            except (WorkerError, WireError, ValueError, TypeError, IndexError) as error:
                self._emit(OpenFailed(_open_failure(error)))

        self._put(task)

    def authenticate(self, password: str) -> None:
        def task() -> None:
            document = _worker.documents.get(self.id)
            if document is None:
                return
            try:
                header, _ = _worker.ask(
                    self.id,
                    {"op": "authenticate", "password": password},
                    budget=OPEN_BUDGET_S,
                )
                if header.get("needs_password"):
                    self._emit(PasswordNeeded(True))
                    return
                document.password = password  # to open it again after a restart
                info, _ = _worker.ask(self.id, {"op": "info"}, budget=OPEN_BUDGET_S)
                self._emit(_opened(decode_info(info)))
            except (WorkerError, WireError, ValueError, TypeError, IndexError) as error:
                self._emit(OpenFailed(_open_failure(error)))

        self._put(task)

    def want(self, requests: Sequence[RenderRequest]) -> None:
        """Render these pages, in this order, instead of any still waiting."""
        if self._closed:
            return
        tasks = {request.page: self._render_task(request) for request in requests}
        _worker.replace_renders(self.id, tasks)

    def _render_task(self, request: RenderRequest) -> _Task:
        def task() -> None:
            if self.id not in _worker.documents:
                return
            try:
                header, samples = _worker.ask(
                    self.id,
                    {"op": "render", "page": request.page, "scale": request.scale},
                    budget=RENDER_BUDGET_S,
                )
                image = _to_image(header, samples)
                links = decode_links(header.get("links"))
                notice = _left_out_notice(request.page, header)
            except (WorkerError, WireError, ValueError, TypeError, IndexError) as error:
                self._emit(_page_failure(request, error))
                return
            self._emit(PageRendered(request, image, links, notice))

        return task

    def words(self, page: int) -> None:
        def task() -> None:
            if self.id not in _worker.documents:
                return
            try:
                header, _ = _worker.ask(
                    self.id, {"op": "words", "page": page}, budget=TEXT_BUDGET_S
                )
                words = decode_words(header.get("words"))
            except (WorkerError, WireError, ValueError, TypeError, IndexError) as error:
                reason = (
                    "it is too complex"
                    if isinstance(error, BudgetExceededError)
                    else "it is damaged"
                )
                self._emit(WordsReady(page, ()))
                self._emit(
                    TaskFailed(f"The text of page {page + 1} is unreadable: {reason}")
                )
                return
            self._emit(WordsReady(page, words))

        self._put(task)

    def search(self, text: str, page_count: int, first: int = 0) -> int:
        """Search every page, starting at ``first``; returns the search's id.

        A newer search (or ``stop_search``) ends this one between chunks.
        """
        self._search_id += 1
        search_id = self._search_id
        self._search_chunk(search_id, text, page_count, first, 0)
        return search_id

    def stop_search(self) -> None:
        self._search_id += 1

    def _search_chunk(
        self, search_id: int, text: str, count: int, first: int, done: int
    ) -> None:
        def task() -> None:
            if self.id not in _worker.documents or search_id != self._search_id:
                return
            matches: list[tuple[int, Box]] = []
            skipped = 0
            size = min(SEARCH_CHUNK, count - done)
            for offset in range(done, done + size):
                page = (first + offset) % count
                try:
                    header, _ = _worker.ask(
                        self.id,
                        {"op": "search", "page": page, "text": text},
                        budget=TEXT_BUDGET_S,
                    )
                    found = decode_boxes(header.get("boxes"))
                except (WorkerError, WireError, ValueError, TypeError, IndexError):
                    skipped += 1  # a damaged page: counted, and the search goes on
                    found = ()
                matches.extend((page, box) for box in found)
            finished = done + size >= count
            self._emit(
                SearchFound(search_id, tuple(matches), done + size, finished, skipped)
            )
            if not finished:
                self._search_chunk(search_id, text, count, first, done + size)

        if not self._closed:
            _worker.put(_worker.background, self.id, task)

    def _put(self, task: _Task) -> None:
        if not self._closed:
            _worker.put(_worker.urgent, self.id, task)

    def close(self) -> None:
        """Drop waiting work, close the document on the thread, and forget it."""
        if self._closed:
            return
        self._closed = True
        self._relay.forget(self.id)

        def task() -> None:
            document = _worker.documents.pop(self.id, None)
            process = _worker.process
            if (
                document is not None
                and process.running  # a killed worker holds nothing to close
                and document.generation == process.generation
            ):
                with contextlib.suppress(WorkerError):
                    process.call({"op": "close", "session": self.id}, budget=5.0)

        _worker.end_session(self.id, task)
