"""The PDF worker process: every PyMuPDF call of the app, on its one thread.

MuPDF cannot be interrupted, some pages keep it busy for minutes, and while it
runs PyMuPDF holds the interpreter lock. So the app renders in this process,
which it can kill and start again (``app.formats.pdf_process``). It reads
framed requests on standard input and answers each on standard output
(``app.formats.pdf_wire``); documents arrive as bytes, never as paths. Its
address space is limited (``RLIMIT_AS``) so that a page whose images would
need gigabytes fails here with an error instead of taking the machine's memory.

Run as ``python -m app.formats.pdf_worker`` (the frozen app: with
``WORKER_ARGUMENT``); it ends when its input closes or its parent dies.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from app.formats.pdf_doc import (
    Bitmap,
    PageTooLargeError,
    PdfDocument,
    PdfError,
    is_out_of_memory,
)
from app.formats.pdf_role import MEMORY_ENV
from app.formats.pdf_wire import (
    WireClosedError,
    WireError,
    encode_info,
    encode_links,
    encode_words,
    read_frame,
    write_frame,
)

_PR_SET_PDEATHSIG = 1


def _limit_memory() -> None:
    try:
        import resource
    except ImportError:  # not a POSIX system: no address-space limit
        return
    limit = int(os.environ.get(MEMORY_ENV, "0") or 0)
    if limit > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _die_with_parent() -> None:
    # A worker stuck inside MuPDF never reads the end of its input: on Linux
    # the kernel ends it when the app ends, whatever it is doing.
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() == 1:  # the parent is already gone
        os._exit(0)


def _reason(error: BaseException) -> tuple[str, str]:
    """(kind, sentence) for a failed request; never an exception's own name."""
    text = str(error)
    if isinstance(error, PageTooLargeError):
        return "memory", text
    if is_out_of_memory(error):
        return "memory", "it needs more memory than the viewer gives a page"
    if isinstance(error, PdfError):
        return "pdf", text
    return "damaged", "it is damaged"


class _Worker:
    """The documents this process holds, by the app's session number."""

    def __init__(self) -> None:
        self.documents: dict[int, PdfDocument] = {}

    def handle(self, header: dict[str, Any], payload: bytes) -> tuple[Any, bytes]:
        op = header.get("op")
        session = int(header.get("session", 0))
        if op == "open":
            self.close(session)
            self.documents[session] = PdfDocument.open(payload)
            return {"needs_password": self.documents[session].needs_password}, b""
        if op == "close":
            self.close(session)
            return {}, b""
        document = self.documents.get(session)
        if document is None:
            raise PdfError("the document is not open")
        page = int(header.get("page", 0))
        if op == "authenticate":
            document.authenticate(str(header.get("password", "")))
            return {"needs_password": document.needs_password}, b""
        if op == "info":
            return encode_info(document.info()), b""
        if op == "render":
            bitmap: Bitmap = document.render(page, float(header.get("scale", 1.0)))
            links, links_left_out = document.read_links(page)
            shape = {"width": bitmap.width, "height": bitmap.height}
            return {
                **shape,
                "stride": bitmap.stride,
                "links": encode_links(links),
                "links_left_out": links_left_out,
                "annotations_left_out": bitmap.annotations_left_out,
            }, bitmap.samples
        if op == "words":
            return {"words": encode_words(document.words(page))}, b""
        if op == "search":
            found = document.search(page, str(header.get("text", "")))
            return {"boxes": [list(box) for box in found]}, b""
        raise PdfError(f"unknown request {op!r}")

    def close(self, session: int) -> None:
        document = self.documents.pop(session, None)
        if document is not None:
            document.close()


def serve(requests: int, replies: int) -> None:
    """Answer requests from ``requests`` on ``replies`` until input ends."""
    worker = _Worker()
    while True:
        try:
            header, payload = read_frame(requests)
        except WireClosedError:
            return
        try:
            answer, data = worker.handle(header, payload)
        except Exception as error:  # the worker outlives any one document
            kind, reason = _reason(error)
            answer, data = {"error": reason, "kind": kind}, b""
        try:
            write_frame(replies, answer, data)
        except WireClosedError:
            return
        except WireError:  # an answer over the size limit is an answer too
            write_frame(replies, {"error": "it is too large", "kind": "size"})


def main() -> int:
    _die_with_parent()
    _limit_memory()
    # The protocol owns the real standard output; anything a library prints
    # goes to standard error instead of into the frames.
    replies = os.dup(1)
    os.dup2(2, 1)
    from app.formats.pdf_doc import quiet_mupdf

    quiet_mupdf()  # imports PyMuPDF here, on the thread that will use it
    serve(0, replies)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
