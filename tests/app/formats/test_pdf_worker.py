"""The PDF worker: every PyMuPDF call on its one thread, answers as bounded frames."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pymupdf
import pytest

from app.formats import pdf_doc
from app.formats.pdf_wire import decode_info, decode_links, read_frame, write_frame
from app.formats.pdf_worker import serve
from tests.data.real_pdfs import PDF_DIR


def _pdf(pages: int = 2) -> bytes:
    doc = pymupdf.open()
    for number in range(pages):
        page = doc.new_page()
        page.insert_text((72, 72), f"The quick brown fox, page {number + 1}")
    data: bytes = doc.tobytes()
    doc.close()
    return data


class _Served:
    """``serve`` on a thread of this process, driven through two pipes."""

    def __init__(self) -> None:
        self._requests_read, self._requests = os.pipe()
        self._replies, self._replies_write = os.pipe()
        self.thread = threading.Thread(
            target=serve, args=(self._requests_read, self._replies_write)
        )
        self.thread.start()

    def ask(self, request: dict[str, Any], payload: bytes = b"") -> dict[str, Any]:
        write_frame(self._requests, request, payload)
        header, self.payload = read_frame(self._replies, None)
        return header

    def stop(self) -> None:
        os.close(self._requests)
        self.thread.join(10)
        for fd in (self._requests_read, self._replies, self._replies_write):
            os.close(fd)


@pytest.fixture
def served() -> Iterator[_Served]:
    worker = _Served()
    yield worker
    worker.stop()


def test_every_pymupdf_call_runs_on_the_serving_thread(
    served: _Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: set[int] = set()
    called: list[str] = []

    def spy(cls: type, name: str) -> None:
        original: Callable[..., Any] = getattr(cls, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            threads.add(threading.get_ident())
            called.append(name)
            return original(*args, **kwargs)

        monkeypatch.setattr(cls, name, wrapper)

    data = _pdf()
    for name in ("get_pixmap", "get_links", "get_text", "search_for"):
        spy(pymupdf.Page, name)
    for name in ("load_page", "close"):
        spy(pymupdf.Document, name)
    for session in (1, 2):
        assert served.ask({"op": "open", "session": session}, data) == {
            "needs_password": False
        }
        info = decode_info(served.ask({"op": "info", "session": session}))
        assert len(info.page_sizes) == 2
        rendered = served.ask(
            {"op": "render", "session": session, "page": 0, "scale": 1.0}
        )
        assert len(served.payload) >= rendered["stride"] * rendered["height"]
        found = served.ask(
            {"op": "search", "session": session, "page": 1, "text": "fox"}
        )
        assert len(found["boxes"]) == 1
        words = served.ask({"op": "words", "session": session, "page": 0})
        assert words["words"][0][4] == "The"
    for session in (1, 2):
        assert served.ask({"op": "close", "session": session}) == {}
    assert threads == {served.thread.ident}
    assert called.count("close") == 2


def test_a_failure_is_an_answer_with_a_sentence_and_the_worker_goes_on(
    served: _Served,
) -> None:
    answer = served.ask({"op": "open", "session": 1}, b"%PDF-1.4 nothing")
    assert answer["kind"] == "pdf" and answer["error"].startswith("the PDF is damaged")
    answer = served.ask({"op": "render", "session": 9, "page": 0})
    assert answer["kind"] == "pdf" and "not open" in answer["error"]
    served.ask({"op": "open", "session": 1}, _pdf())
    answer = served.ask({"op": "render", "session": 1, "page": 99})
    assert answer == {"error": "it is damaged", "kind": "damaged"}
    assert served.ask({"op": "info", "session": 1})["page_sizes"]


def test_a_deep_and_wide_outline_is_read_without_recursion(served: _Served) -> None:
    doc = pymupdf.open()
    doc.new_page()
    doc.set_toc([[level + 1, f"L{level}", 1] for level in range(1000)])
    served.ask({"op": "open", "session": 1}, doc.tobytes())
    info = decode_info(served.ask({"op": "info", "session": 1}))
    assert len(info.outline) == 1000 and info.outline[-1].level == 1000
    assert info.outline_left_out == 0


def test_outline_entries_past_the_limit_are_counted_not_sent(
    served: _Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf_doc, "MAX_OUTLINE_ENTRIES", 5)
    doc = pymupdf.open()
    doc.new_page()
    doc.set_toc([[1, f"E{n}", 1] for n in range(12)])
    served.ask({"op": "open", "session": 1}, doc.tobytes())
    info = decode_info(served.ask({"op": "info", "session": 1}))
    assert [e.title for e in info.outline] == ["E0", "E1", "E2", "E3", "E4"]
    assert info.outline_left_out == 7


def test_a_pdftex_outline_is_answered_and_its_pages_drawn(served: _Served) -> None:
    data = (PDF_DIR / "pdftex-hyperref.pdf").read_bytes()
    served.ask({"op": "open", "session": 1}, data)
    info = decode_info(served.ask({"op": "info", "session": 1}))
    assert len(info.page_sizes) == 2
    assert [e.title for e in info.outline][:2] == ["1 Introduction", "1.1 Scope"]
    assert info.unreadable == ()
    rendered = served.ask({"op": "render", "session": 1, "page": 0, "scale": 1.0})
    assert "error" not in rendered
    assert rendered["links_left_out"] == 0
    assert rendered["annotations_left_out"] is False
    assert len(decode_links(rendered["links"])) == 10


def test_a_page_whose_links_cannot_be_read_is_drawn_and_says_so(
    served: _Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(page: object) -> object:
        raise AssertionError("unreadable")

    monkeypatch.setattr(pymupdf.Page, "get_links", broken)
    served.ask({"op": "open", "session": 1}, _pdf())
    rendered = served.ask({"op": "render", "session": 1, "page": 0, "scale": 1.0})
    assert "error" not in rendered
    assert rendered["links"] == [] and rendered["links_left_out"] == 1
    assert len(served.payload) >= rendered["stride"] * rendered["height"]
