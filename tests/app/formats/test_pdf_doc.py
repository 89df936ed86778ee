"""The Qt-free PDF wrapper: opening as PDF only, link judgement, text, layout."""

from __future__ import annotations

import threading
from typing import Any

import pymupdf
import pytest

from app.formats.pdf_doc import (
    MAX_BITMAP_PIXELS,
    Bitmap,
    LinkAction,
    PageLayout,
    PdfDocument,
    PdfError,
    Word,
    WrongThreadError,
    clamp_scale,
    classify_link,
    is_pdf,
    selected_text,
)
from tests.data.real_pdfs import PDF_DIR


def _pdf(pages: int = 2, **links: Any) -> bytes:
    doc = pymupdf.open()
    for number in range(pages):
        page = doc.new_page()
        page.insert_text((72, 72), f"Hello page {number + 1}", fontsize=12)
        page.insert_text((72, 100), "second line here", fontsize=12)
    doc.set_toc([[1, "Start", 1], [2, "Later", pages]])
    doc.embfile_add("payload.sh", b"#!/bin/sh\n")
    data: bytes = doc.tobytes()
    doc.close()
    return data


def test_magic_decides_what_is_a_pdf() -> None:
    assert is_pdf(b"%PDF-1.7\n")
    assert not is_pdf(b"\x89PNG\r\n\x1a\n")
    assert not is_pdf(b"")


def test_non_pdf_bytes_are_refused_before_pymupdf_sees_them() -> None:
    with pytest.raises(PdfError, match="not a PDF"):
        PdfDocument.open(b"<html><body>not a pdf</body></html>")


@pytest.mark.parametrize(
    "data",
    [b"%PDF-", b"%PDF-1.7\n" + b"\x00garbage" * 200],
    ids=["header-only", "garbage-after-header"],
)
def test_broken_pdfs_raise_a_readable_error(data: bytes) -> None:
    with pytest.raises(PdfError, match="damaged"):
        PdfDocument.open(data)


def test_truncated_pdf_raises_a_readable_error() -> None:
    with pytest.raises(PdfError, match="damaged"):
        PdfDocument.open(_pdf()[:300])


def test_info_lists_pages_outline_and_embedded_files() -> None:
    document = PdfDocument.open(_pdf(pages=3))
    info = document.info()
    assert info.page_sizes == ((595.0, 842.0),) * 3
    assert [(e.level, e.title, e.page) for e in info.outline] == [
        (1, "Start", 0),
        (2, "Later", 2),
    ]
    assert info.embedded_files == 1
    document.close()


def test_render_gives_an_rgb_bitmap_at_the_scale() -> None:
    document = PdfDocument.open(_pdf())
    bitmap = document.render(0, 1.5)
    assert (bitmap.width, bitmap.height) == (893, 1263)
    assert len(bitmap.samples) == bitmap.stride * bitmap.height
    document.close()


def test_words_and_search_find_the_text() -> None:
    document = PdfDocument.open(_pdf())
    words = document.words(1)
    assert [w.text for w in words[:3]] == ["Hello", "page", "2"]
    assert len(document.search(0, "second LINE")) == 1
    assert document.search(0, "absent") == ()
    document.close()


def test_a_document_refuses_calls_from_another_thread() -> None:
    document = PdfDocument.open(_pdf())
    errors: list[BaseException] = []

    def use() -> None:
        try:
            document.render(0, 1.0)
        except WrongThreadError as error:
            errors.append(error)

    worker = threading.Thread(target=use)
    worker.start()
    worker.join()
    assert len(errors) == 1
    document.close()


def test_wrong_and_right_passwords() -> None:
    data = pymupdf.open(stream=_pdf(), filetype="pdf").tobytes(
        encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner"
    )
    document = PdfDocument.open(data)
    assert document.needs_password
    assert not document.authenticate("guess")
    assert document.needs_password
    assert document.authenticate("secret")
    assert not document.needs_password
    assert len(document.info().page_sizes) == 2
    document.close()


def _raw(kind: int, **fields: Any) -> dict[str, Any]:
    return {"kind": kind, "from": pymupdf.Rect(1, 2, 3, 4), **fields}


@pytest.mark.parametrize(
    ("raw", "action", "page"),
    [
        (_raw(pymupdf.LINK_GOTO, page=2, to=pymupdf.Point(0, 50)), LinkAction.GOTO, 2),
        (_raw(pymupdf.LINK_GOTO, page=9), LinkAction.BLOCKED, -1),
        (_raw(pymupdf.LINK_NAMED, nameddest="NextPage"), LinkAction.GOTO, 1),
        (_raw(pymupdf.LINK_NAMED, nameddest="LastPage"), LinkAction.GOTO, 4),
        (_raw(pymupdf.LINK_NAMED, nameddest="Print"), LinkAction.BLOCKED, -1),
        (_raw(pymupdf.LINK_URI, uri="https://example.org/a"), LinkAction.WEB, -1),
        (_raw(pymupdf.LINK_URI, uri="HTTP://example.org/"), LinkAction.WEB, -1),
        (_raw(pymupdf.LINK_URI, uri="file:///etc/passwd"), LinkAction.BLOCKED, -1),
        (_raw(pymupdf.LINK_URI, uri="javascript:alert(1)"), LinkAction.BLOCKED, -1),
        (_raw(pymupdf.LINK_URI, uri="smb://host/share"), LinkAction.BLOCKED, -1),
        (_raw(pymupdf.LINK_LAUNCH, file="/bin/sh"), LinkAction.BLOCKED, -1),
        (_raw(pymupdf.LINK_GOTOR, file="other.pdf", page=1), LinkAction.BLOCKED, -1),
        (_raw(99), LinkAction.BLOCKED, -1),
    ],
)
def test_links_are_judged_by_kind_and_scheme(
    raw: dict[str, Any], action: LinkAction, page: int
) -> None:
    link = classify_link(raw, page=0, page_count=5)
    assert link.action is action
    assert link.page == page
    assert link.box == (1.0, 2.0, 3.0, 4.0)


def test_real_launch_and_remote_links_are_blocked() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_link(
        {"kind": pymupdf.LINK_LAUNCH, "from": pymupdf.Rect(0, 0, 9, 9), "file": "x"}
    )
    page.insert_link(
        {"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(0, 9, 9, 19), "uri": "file:/x"}
    )
    document = PdfDocument.open(doc.tobytes())
    assert [link.action for link in document.links(0)] == [LinkAction.BLOCKED] * 2
    document.close()


def test_selected_text_keeps_lines_apart() -> None:
    words = [
        Word((0, 0, 10, 10), "one", 0, 0),
        Word((12, 0, 20, 10), "two", 0, 0),
        Word((0, 20, 10, 30), "three", 0, 1),
        Word((0, 40, 10, 50), "four", 0, 2),
    ]
    assert selected_text(words, (25, 35, 1, 1)) == "one two\nthree"


def test_clamp_scale_bounds_the_bitmap() -> None:
    assert clamp_scale(595, 842, 1.5) == 1.5
    big = clamp_scale(595, 842, 20.0)
    assert 595 * 842 * big * big == pytest.approx(MAX_BITMAP_PIXELS)


def test_page_layout_finds_visible_pages() -> None:
    layout = PageLayout([(100, 200)] * 10, zoom=1.0, gap=10)
    assert layout.tops[:3] == [10, 220, 430]
    assert layout.height == 10 + 210 * 10
    assert list(layout.visible(0, 100)) == [0]
    assert list(layout.visible(215, 500)) == [1, 2]
    assert list(layout.visible(5000, 6000)) == [9]
    assert layout.page_at(225) == 1


# -- real PDFs, and the parts of a PDF that may fail to read ------------------------

PDFTEX_OUTLINE = [
    (1, "1 Introduction", 0),
    (2, "1.1 Scope", 0),
    (3, "1.1.1 Limits", 0),
    (1, "2 Method", 0),
    (1, "3 Results", 1),
    (2, "3.1 First finding", 1),
    (2, "3.2 Second finding", 1),
]


def _real(name: str) -> PdfDocument:
    return PdfDocument.open((PDF_DIR / name).read_bytes())


def _heading_top(name: str, page: int, text: str) -> float:
    raw = pymupdf.open(PDF_DIR / name)
    # The last match: the table of contents names the heading first.
    top = float(raw[page].search_for(text)[-1].y0)
    raw.close()
    return top


def test_a_pdftex_outline_that_names_its_destinations_is_read() -> None:
    raw = pymupdf.open(PDF_DIR / "pdftex-hyperref.pdf")
    # The structure PyMuPDF 1.28.2 fails on: each entry names its destination.
    assert str(raw.outline.uri) == "#nameddest=section.1"
    raw.close()
    document = _real("pdftex-hyperref.pdf")
    info = document.info()
    assert [(e.level, e.title, e.page) for e in info.outline] == PDFTEX_OUTLINE
    assert info.unreadable == ()
    assert info.title == "Field notes on outlines"
    # An entry leads to its heading, measured from the page's top.
    method = info.outline[3]
    assert method.y is not None
    assert abs(method.y - _heading_top("pdftex-hyperref.pdf", 0, "2 Method")) < 12
    document.close()


def test_a_texinfo_outline_is_read() -> None:
    document = _real("texinfo-manual.pdf")
    info = document.info()
    assert [(e.level, e.title, e.page) for e in info.outline] == [
        (1, "1 Overview", 2),
        (1, "2 Usage", 3),
        (2, "Options", 3),
    ]
    assert info.unreadable == ()
    document.close()


def test_a_link_to_a_named_destination_leads_to_its_heading() -> None:
    document = _real("pdftex-hyperref.pdf")
    links = document.links(1)  # "Back to the introduction."
    (back,) = [link for link in links if link.action is LinkAction.GOTO]
    assert back.page == 0
    assert back.y is not None
    top = _heading_top("pdftex-hyperref.pdf", 0, "1 Introduction")
    assert abs(back.y - top) < 12
    document.close()


def _broken(error: type[BaseException] = AssertionError) -> Any:
    def fail(*args: object, **kwargs: object) -> object:
        raise error("unreadable")

    return property(fail)


@pytest.mark.parametrize(
    ("owner", "attribute", "part"),
    [
        (pymupdf.Document, "outline", "the outline"),
        (pymupdf.Document, "metadata", "the title"),
        (pymupdf.Document, "embfile_count", "the list of embedded files"),
        (pymupdf.Outline, "uri", "the targets of 7 outline entries"),
        (pymupdf.Outline, "next", "3 parts of the outline"),  # each level's first
    ],
)
def test_a_part_that_cannot_be_read_is_left_out_and_named(
    monkeypatch: pytest.MonkeyPatch, owner: type, attribute: str, part: str
) -> None:
    document = _real("pdftex-hyperref.pdf")
    if attribute == "embfile_count":
        monkeypatch.setattr(owner, attribute, _broken().fget)
    else:  # a property wins over the instance's own attribute (metadata)
        monkeypatch.setattr(owner, attribute, _broken(), raising=False)
    info = document.info()
    assert len(info.page_sizes) == 2
    assert any(part in named for named in info.unreadable), info.unreadable
    assert document.render(0, 0.5).width > 0
    document.close()


def test_an_outline_entry_without_a_readable_target_keeps_its_place() -> None:
    document = _real("pdftex-hyperref.pdf")
    real = pymupdf.Outline.uri

    def uri(item: Any) -> object:
        if item.title == "2 Method":
            raise RuntimeError("unreadable")
        return real.fget(item)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pymupdf.Outline, "uri", property(uri))
        info = document.info()
    assert [(e.level, e.title) for e in info.outline] == [
        (level, title) for level, title, _ in PDFTEX_OUTLINE
    ]
    method = info.outline[3]
    assert (method.page, method.readable) == (-1, False)
    assert info.unreadable == ("the targets of 1 outline entry",)
    document.close()


def test_links_that_cannot_be_read_are_left_out_and_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    document = _real("pdftex-hyperref.pdf")
    real = document._classify

    def classify(raw: dict[str, Any], page: int, count: int) -> Any:
        if raw.get("kind") == pymupdf.LINK_URI:
            raise AssertionError("unreadable")
        return real(raw, page, count)

    monkeypatch.setattr(document, "_classify", classify)
    links, left_out = document.read_links(0)
    assert left_out == 1
    assert len(links) == 9
    assert all(link.action is LinkAction.GOTO for link in links)
    monkeypatch.setattr(pymupdf.Page, "get_links", _broken().fget)
    assert document.read_links(0) == ((), 1)
    document.close()


def test_annotations_that_cannot_be_drawn_leave_the_page_drawn_without_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    document = PdfDocument.open(_pdf())
    real = pymupdf.Page.get_pixmap

    def get_pixmap(page: Any, *args: Any, annots: bool = True, **kwargs: Any) -> Any:
        if annots:
            raise RuntimeError("cannot draw annotation")
        return real(page, *args, annots=False, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_pixmap", get_pixmap)
    bitmap = document.render(0, 1.0)
    assert isinstance(bitmap, Bitmap)
    assert bitmap.annotations_left_out
    assert bitmap.samples.count(0) > 0  # the text is drawn
    document.close()
