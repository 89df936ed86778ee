"""The PDF worker process: budgets kill it, a crash restarts it, limits hold."""

from __future__ import annotations

import os
import signal
import sys
import zlib
from collections.abc import Iterator

import pymupdf
import pytest

from app.formats import pdf_process
from app.formats.pdf_process import (
    BudgetExceededError,
    PdfWorkerProcess,
    RequestFailedError,
    WorkerCrashedError,
    WorkerStartError,
)
from app.formats.pdf_role import WORKER_ARGUMENT


def _pdf() -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Hello")
    data: bytes = doc.tobytes()
    doc.close()
    return data


def busy_pdf(operators: int) -> bytes:
    """One page of ``operators`` path operators: MuPDF draws it for minutes."""
    content = zlib.compress(b"1 1 m 500 500 l S\n" * operators, 6)
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=600)
    xref = doc.get_new_xref()
    doc.update_object(xref, "<< >>")
    doc.update_stream(xref, content, compress=False)
    doc.xref_set_key(xref, "Filter", "/FlateDecode")
    doc.xref_set_key(page.xref, "Contents", f"{xref} 0 R")
    data: bytes = doc.tobytes()
    doc.close()
    return data


@pytest.fixture
def worker() -> Iterator[PdfWorkerProcess]:
    process = PdfWorkerProcess()
    yield process
    process.kill()


def test_the_worker_starts_on_the_first_call_and_answers(
    worker: PdfWorkerProcess,
) -> None:
    assert not worker.running and worker.generation == 0
    header, _ = worker.call({"op": "open", "session": 1}, _pdf(), budget=60)
    assert header == {"needs_password": False}
    assert worker.running and worker.generation == 1
    header, samples = worker.call(
        {"op": "render", "session": 1, "page": 0, "scale": 0.5}, budget=60
    )
    assert header["width"] > 0 and len(samples) == header["stride"] * header["height"]


def test_a_request_past_its_budget_kills_the_worker_and_the_next_starts_afresh(
    worker: PdfWorkerProcess,
) -> None:
    worker.call({"op": "open", "session": 1}, busy_pdf(3_000_000), budget=60)
    pid = worker.pid()
    with pytest.raises(BudgetExceededError):
        worker.call({"op": "render", "session": 1, "page": 0, "scale": 1}, budget=1)
    assert not worker.running
    assert pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone, not left spinning
    # A fresh worker holds no documents; the caller opens them again.
    with pytest.raises(RequestFailedError, match="not open"):
        worker.call({"op": "info", "session": 1}, budget=60)
    assert worker.generation == 2


def test_a_worker_that_dies_mid_request_is_reported_and_replaced(
    worker: PdfWorkerProcess,
) -> None:
    worker.call({"op": "open", "session": 1}, _pdf(), budget=60)
    pid = worker.pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(WorkerCrashedError):
        worker.call({"op": "info", "session": 1}, budget=60)
    header, _ = worker.call({"op": "open", "session": 1}, _pdf(), budget=60)
    assert header == {"needs_password": False} and worker.pid() != pid


def test_a_worker_that_cannot_start_says_so(tmp_path: object) -> None:
    process = PdfWorkerProcess(["/nonexistent/interpreter"])
    with pytest.raises(WorkerStartError, match="could not start"):
        process.call({"op": "info", "session": 1}, budget=5)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS")
def test_the_worker_cannot_grow_past_its_address_space_limit(
    worker: PdfWorkerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker.call({"op": "open", "session": 1}, _pdf(), budget=60)
    pid = worker.pid()
    assert pid is not None
    with open(f"/proc/{pid}/limits", encoding="ascii") as limits:
        line = next(row for row in limits if row.startswith("Max address space"))
    assert int(line.split()[3]) == pdf_process.WORKER_MEMORY_BYTES


def test_the_worker_runs_the_same_code_as_the_app() -> None:
    command = pdf_process.worker_command()
    assert command[0] == sys.executable and command[-1] == "app.formats.pdf_worker"


def test_the_app_command_runs_the_worker_when_given_its_argument() -> None:
    # How the packaged app, a single executable, starts its worker.
    process = PdfWorkerProcess([sys.executable, "-m", "app", WORKER_ARGUMENT])
    try:
        header, _ = process.call({"op": "open", "session": 1}, _pdf(), budget=60)
        assert header == {"needs_password": False}
    finally:
        process.kill()


def test_a_page_whose_images_claim_too_many_pixels_is_refused_before_decoding(
    worker: PdfWorkerProcess,
) -> None:
    worker.call({"op": "open", "session": 1}, huge_image_pdf(30_000), budget=60)
    with pytest.raises(RequestFailedError) as refused:
        worker.call({"op": "render", "session": 1, "page": 0, "scale": 1}, budget=60)
    assert refused.value.kind == "memory" and "900 million pixels" in str(refused.value)
    assert worker.running  # refused, not crashed: the worker goes on


def huge_image_pdf(side: int) -> bytes:
    """A page drawing one grey image of ``side`` x ``side`` pixels (all zero)."""
    squeeze = zlib.compressobj(9)
    row = bytes(side)
    parts = [squeeze.compress(row) for _ in range(side)]
    parts.append(squeeze.flush())
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=600)
    image = doc.get_new_xref()
    doc.update_object(
        image,
        f"<< /Type /XObject /Subtype /Image /Width {side} /Height {side} "
        "/ColorSpace /DeviceGray /BitsPerComponent 8 >>",
    )
    doc.update_stream(image, b"".join(parts), compress=False)
    doc.xref_set_key(image, "Filter", "/FlateDecode")
    doc.xref_set_key(page.xref, "Resources", f"<< /XObject << /Im0 {image} 0 R >> >>")
    content = doc.get_new_xref()
    doc.update_object(content, "<< >>")
    doc.update_stream(content, b"q 600 0 0 600 0 0 cm /Im0 Do Q")
    doc.xref_set_key(page.xref, "Contents", f"{content} 0 R")
    data: bytes = doc.tobytes()
    doc.close()
    return data
