"""The app's side of the PDF worker process: start it, ask it, kill it.

``PdfWorkerProcess.call`` sends one request and waits for its answer within a
budget; past the budget (a page MuPDF cannot finish) or when the process dies
(a crash, its memory limit), the process is killed and the next call starts a
fresh one. ``generation`` counts the starts, so that callers know when the
documents they opened are gone. One caller thread at a time; nothing here
imports Qt.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import app
from app.formats.pdf_doc import MAX_PDF_BYTES
from app.formats.pdf_role import MEMORY_ENV, WORKER_ARGUMENT
from app.formats.pdf_wire import (
    WireClosedError,
    WireError,
    WireTimeoutError,
    read_frame,
    write_frame,
)

WORKER_MEMORY_BYTES = (1 << 30) + 2 * MAX_PDF_BYTES
"""The worker's address space: the interpreter, PyMuPDF, one document's bytes
held twice (ours and MuPDF's), and room for a page's images and bitmap."""


class WorkerError(Exception):
    """A request got no answer; ``str()`` is the user-facing reason."""


class WorkerStartError(WorkerError):
    """The worker process could not be started."""


class BudgetExceededError(WorkerError):
    """The request ran past its budget; the worker was killed."""


class WorkerCrashedError(WorkerError):
    """The worker ended (or broke the protocol) while answering."""


class RequestFailedError(WorkerError):
    """The worker answered with an error; ``kind`` says which sort."""

    def __init__(self, reason: str, kind: str) -> None:
        super().__init__(reason)
        self.kind = kind


def worker_command() -> list[str]:
    """How to run the worker: the same interpreter and code as this process."""
    if getattr(sys, "frozen", False):
        return [sys.executable, WORKER_ARGUMENT]
    return [sys.executable, "-m", "app.formats.pdf_worker"]


def _worker_environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment[MEMORY_ENV] = str(WORKER_MEMORY_BYTES)
    return environment


def _code_root() -> str:
    """The folder holding the ``app`` package this process runs."""
    return str(Path(app.__file__).resolve().parent.parent)


class PdfWorkerProcess:
    """One worker process, started on the first call and restarted after a kill."""

    def __init__(self, command: list[str] | None = None) -> None:
        self._command = command
        self._process: subprocess.Popen[bytes] | None = None
        self.generation = 0
        """How many times a worker was started; a new one holds no documents."""

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def pid(self) -> int | None:
        return self._process.pid if self.running and self._process else None

    def start(self) -> None:
        if self.running:
            return
        self.kill()
        command = self._command or worker_command()
        try:
            # The working directory is the code's root, which ``-m`` puts first
            # on the worker's path: it runs this very code, checkout or wheel.
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=_code_root(),
                env=_worker_environment(),
                close_fds=True,
            )
        except OSError as error:
            raise WorkerStartError(
                f"the PDF renderer could not start ({error.strerror or error})"
            ) from error
        self.generation += 1

    def call(
        self, request: dict[str, Any], payload: bytes = b"", *, budget: float
    ) -> tuple[dict[str, Any], bytes]:
        """Send ``request`` and return the answer given within ``budget`` seconds."""
        self.start()
        process = self._process
        assert process is not None and process.stdin and process.stdout
        deadline = time.monotonic() + budget
        try:
            write_frame(process.stdin.fileno(), request, payload)
            header, data = read_frame(process.stdout.fileno(), deadline)
        except WireTimeoutError:
            self.kill()
            raise BudgetExceededError("it took longer than the time allowed") from None
        except (WireClosedError, WireError):
            self.kill()
            raise WorkerCrashedError(
                "the PDF renderer stopped while reading it"
            ) from None
        error = header.get("error")
        if error is not None:
            raise RequestFailedError(str(error), str(header.get("kind", "")))
        return header, data

    def interrupt(self) -> None:
        """Kill the worker from another thread; the caller's ``call`` then fails.

        Only a signal is sent: the thread that owns the pipes sees them close,
        raises ``WorkerCrashedError`` and cleans up with ``kill``.
        """
        process = self._process
        if process is not None:
            with contextlib.suppress(OSError):
                process.send_signal(signal.SIGKILL)  # a no-op once it is reaped

    def kill(self) -> None:
        """End the worker now, whatever it is doing; safe to repeat."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
