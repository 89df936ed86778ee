"""The one thread that makes every PyMuPDF call, for all open PDF previews.

PyMuPDF is not thread-safe, and two previews on two threads would be two
threads inside MuPDF at once. So every document of every preview lives on one
worker thread, started with the first session and ended when the last one
closes. Work comes in three lanes, served in this order: short requests
(open, unlock, words, close), page renders (replaced wholesale by each newer
wish, so pages scrolled past are never drawn) and background chunks (search).
Results reach the GUI thread through one process-wide relay, by session; a
session that closed gets nothing.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QImage

from app.formats.pdf_doc import Box, DocumentInfo, PdfDocument, PdfError, PdfLink, Word

SEARCH_CHUNK = 16
"""Pages searched per background step; renders may run between steps."""


@dataclass(frozen=True)
class Opened:
    info: DocumentInfo


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
    request: RenderRequest
    image: QImage
    links: tuple[PdfLink, ...]


@dataclass(frozen=True)
class PageFailed:
    request: RenderRequest
    reason: str


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


class _Worker:
    """The render thread's queues and documents (one per process)."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.urgent: deque[tuple[int, _Task]] = deque()
        self.renders: dict[tuple[int, int], tuple[int, _Task]] = {}
        self.background: deque[tuple[int, _Task]] = deque()
        self.sessions: set[int] = set()
        self.thread: threading.Thread | None = None
        self.documents: dict[int, PdfDocument] = {}  # touched only by the thread

    def start_session(self, session: int) -> None:
        with self.condition:
            self.sessions.add(session)
            if self.thread is None:
                # Daemon: a preview never released must not keep the app alive.
                self.thread = threading.Thread(
                    target=self._run, name="pdf-render", daemon=True
                )
                self.thread.start()

    def _run(self) -> None:
        while True:
            with self.condition:
                while not (self.urgent or self.renders or self.background):
                    if not self.sessions:
                        self.thread = None
                        return
                    self.condition.wait()
                if self.urgent:
                    session, task = self.urgent.popleft()
                elif self.renders:
                    key = next(iter(self.renders))
                    session, task = self.renders.pop(key)
                else:
                    session, task = self.background.popleft()
            try:
                task()
            except Exception as error:  # the thread must outlive any one document
                _report_failure(session, error)

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
            self.condition.notify()


_worker = _Worker()
_relay: _Relay | None = None
_ids = itertools.count(1)


def _report_failure(session: int, error: Exception) -> None:
    relay = _relay
    if relay is not None:
        reason = str(error) or type(error).__name__
        relay.delivered.emit(
            session, TaskFailed(f"the PDF could not be read ({reason})")
        )


def render_thread() -> threading.Thread | None:
    """The running render thread, if any PDF preview is open."""
    return _worker.thread


def _to_image(document: PdfDocument, request: RenderRequest) -> QImage:
    bitmap = document.render(request.page, request.scale)
    image = QImage(
        bitmap.samples,
        bitmap.width,
        bitmap.height,
        bitmap.stride,
        QImage.Format.Format_RGB888,
    )
    # A converted copy owns its pixels (the samples go away) and paints fastest.
    return image.convertToFormat(QImage.Format.Format_RGB32)


class PdfSession:
    """One preview's document on the render thread; used from the GUI thread.

    ``on_result`` (a bound method) gets each result on the GUI thread while the
    session is open.
    """

    def __init__(self, on_result: Callable[[Any], None]) -> None:
        global _relay  # one relay for the process, made on the GUI thread
        if _relay is None:
            _relay = _Relay()
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
        self._relay.delivered.emit(self.id, result)

    def _document(self) -> PdfDocument | None:
        return _worker.documents.get(self.id)

    def open(self, data: bytes) -> None:
        """Open ``data``; answers ``Opened``, ``PasswordNeeded`` or ``OpenFailed``."""

        def task() -> None:
            try:
                document = PdfDocument.open(data)
            except PdfError as error:
                self._emit(OpenFailed(str(error)))
                return
            _worker.documents[self.id] = document
            self._answer_open(document, wrong=False)

        self._put(task)

    def _answer_open(self, document: PdfDocument, *, wrong: bool) -> None:
        try:
            if document.needs_password:
                self._emit(PasswordNeeded(wrong))
            else:
                self._emit(Opened(document.info()))
        except Exception as error:  # any MuPDF failure: the file is unreadable
            self._emit(OpenFailed(f"the PDF is damaged ({error})"))

    def authenticate(self, password: str) -> None:
        def task() -> None:
            document = self._document()
            if document is not None:
                document.authenticate(password)
                self._answer_open(document, wrong=True)

        self._put(task)

    def want(self, requests: Sequence[RenderRequest]) -> None:
        """Render these pages, in this order, instead of any still waiting."""
        if self._closed:
            return
        tasks = {request.page: self._render_task(request) for request in requests}
        _worker.replace_renders(self.id, tasks)

    def _render_task(self, request: RenderRequest) -> _Task:
        def task() -> None:
            document = self._document()
            if document is None:
                return
            try:
                image = _to_image(document, request)
                links = document.links(request.page)
            except Exception as error:  # any MuPDF failure is shown on the page
                self._emit(PageFailed(request, str(error) or "it is damaged"))
                return
            self._emit(PageRendered(request, image, links))

        return task

    def words(self, page: int) -> None:
        def task() -> None:
            document = self._document()
            if document is None:
                return
            try:
                words = document.words(page)
            except Exception as error:  # a damaged page: no selectable text
                self._emit(WordsReady(page, ()))
                self._emit(
                    TaskFailed(f"The text of page {page + 1} is unreadable: {error}")
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
            document = self._document()
            if document is None or search_id != self._search_id:
                return
            matches: list[tuple[int, Box]] = []
            skipped = 0
            size = min(SEARCH_CHUNK, count - done)
            for offset in range(done, done + size):
                page = (first + offset) % count
                try:
                    found = document.search(page, text)
                except Exception:  # a damaged page: counted, and the search goes on
                    skipped += 1
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
            if document is not None:
                document.close()

        _worker.end_session(self.id, task)
