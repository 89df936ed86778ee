"""The PDF preview: pages, zoom, outline, find, selection, links, passwords, threads."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QGuiApplication, QMouseEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core.safeio import open_verified
from previewers import registry
from previewers.pdf import PDF_PREVIEWER
from previewers.pdf import pages as pdf_pages
from previewers.pdf import render as pdf_render
from previewers.pdf.pages import PdfPageWidget
from previewers.pdf.widget import PdfPreviewWidget
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget
from tests.previewers.conftest import OpenPreview

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _pdf_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        registry.REGISTRY, "_table", [PDF_PREVIEWER, *registry.REGISTRY._table]
    )


def _make_pdf(path: Path, pages: int = 3, *, password: str = "") -> Path:
    doc = pymupdf.open()
    for number in range(pages):
        page = doc.new_page()
        page.insert_text((72, 72), f"Heading of page {number + 1}", fontsize=18)
        page.insert_text((72, 110), "The quick brown fox jumps", fontsize=12)
        page.insert_text((72, 130), "over the lazy dog", fontsize=12)
    first = doc[0]
    for rect, link in (
        ((72, 200, 300, 220), {"kind": pymupdf.LINK_GOTO, "page": pages - 1}),
        (
            (72, 240, 300, 260),
            {"kind": pymupdf.LINK_URI, "uri": "https://example.org/x"},
        ),
        ((72, 280, 300, 300), {"kind": pymupdf.LINK_LAUNCH, "file": "/bin/sh"}),
        ((72, 320, 300, 340), {"kind": pymupdf.LINK_URI, "uri": "file:///etc/passwd"}),
    ):
        first.insert_link({**link, "from": pymupdf.Rect(*rect)})
    doc.set_toc([[1, "Opening", 1], [1, "Ending", pages]])
    doc.embfile_add("payload.sh", b"#!/bin/sh\necho never\n")
    if password:
        doc.save(
            str(path),
            encryption=pymupdf.PDF_ENCRYPT_AES_256,
            user_pw=password,
            owner_pw=password + "-owner",
        )
    else:
        doc.save(str(path))
    doc.close()
    return path


def _open(qtbot: QtBot, open_preview: OpenPreview, path: Path) -> PdfPreviewWidget:
    preview = open_preview(path)
    assert isinstance(preview, PdfPreviewWidget)
    preview.resize(800, 600)
    preview.show()
    qtbot.waitUntil(preview.is_settled, timeout=10000)
    return preview


def _drawn(qtbot: QtBot, preview: PdfPreviewWidget) -> None:
    pages = preview.pages
    qtbot.waitUntil(
        lambda: (
            bool(pages.visible_pages())
            and all(pages.has_image(p) for p in pages.visible_pages())
        ),
        timeout=10000,
    )


def _page_widget(preview: PdfPreviewWidget, page: int) -> PdfPageWidget:
    for widget in preview.pages.findChildren(PdfPageWidget):
        if widget.page == page and widget.isVisible():
            return widget
    raise AssertionError(f"page {page} has no widget")


def _mouse(widget: PdfPageWidget, kind: QMouseEvent.Type, x: float, y: float) -> None:
    buttons = (
        Qt.MouseButton.NoButton
        if kind == QMouseEvent.Type.MouseButtonRelease
        else Qt.MouseButton.LeftButton
    )
    button = (
        Qt.MouseButton.NoButton
        if kind == QMouseEvent.Type.MouseMove
        else Qt.MouseButton.LeftButton
    )
    point = QPointF(x, y)
    event = QMouseEvent(
        kind,
        point,
        widget.mapToGlobal(point),
        button,
        buttons,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)


def _click_pdf_point(preview: PdfPreviewWidget, page: int, x: float, y: float) -> None:
    widget = _page_widget(preview, page)
    zoom = preview.pages.zoom
    _mouse(widget, QMouseEvent.Type.MouseButtonPress, x * zoom, y * zoom)
    _mouse(widget, QMouseEvent.Type.MouseButtonRelease, x * zoom, y * zoom)


# -- choosing and importing ------------------------------------------------------


def test_registry_picks_pdf_by_magic_not_by_name(tmp_path: Path) -> None:
    real = _make_pdf(tmp_path / "report.bin")
    png = tmp_path / "image.pdf"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    for path, expected in ((real, True), (png, False), (empty, False)):
        with open_verified(str(path)) as file:
            source = PreviewSource.from_file(str(path), file)
            assert (registry.choose(source) is PDF_PREVIEWER) is expected, path.name


def test_importing_the_previewer_loads_neither_pymupdf_nor_the_viewer() -> None:
    code = (
        "import sys, previewers.pdf;"
        "print(sorted(m for m in ('pymupdf', 'fitz', 'previewers.pdf.widget',"
        " 'previewers.pdf.render') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"


# -- showing pages ---------------------------------------------------------------


def test_first_page_is_drawn_and_named_for_accessibility(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "doc.pdf"))
    _drawn(qtbot, preview)
    assert preview.is_loaded()
    assert preview.page_count_label.text() == "of 3"
    assert preview.page_field.text() == "1"
    assert _page_widget(preview, 0).accessibleName() == "Page 1 of 3"
    assert "1 embedded file" in preview.notice_text()


def test_only_pages_in_view_and_their_neighbours_are_rendered(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "long.pdf", pages=60))
    _drawn(qtbot, preview)
    pages = preview.pages
    assert pages.layout_.height > 60 * pages.layout_.sizes[0][1]
    preview.go_to_page(30)
    _drawn(qtbot, preview)
    visible = set(pages.visible_pages())
    allowed = visible | {min(visible) - 1, max(visible) + 1} | {0, 1, 2}
    assert 30 in visible
    assert {page for page, _ in pages.cache} <= allowed
    assert len(pages.findChildren(PdfPageWidget)) <= 4
    assert preview.page_field.text() == "31"


def test_cache_stays_within_its_byte_budget(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "long.pdf", pages=20))
    _drawn(qtbot, preview)
    one_page = next(iter(preview.pages.cache.values())).sizeInBytes()
    monkeypatch.setattr(pdf_pages, "CACHE_BYTES", 3 * one_page)
    for page in range(0, 20, 2):
        preview.go_to_page(page)
        _drawn(qtbot, preview)
    assert preview.pages.cache_bytes <= 3 * one_page + one_page * 3


def test_zoom_steps_fit_modes_and_stale_renders_are_dropped(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "doc.pdf"))
    _drawn(qtbot, preview)
    pages = preview.pages
    fitted = pages.zoom
    assert pages.layout_.sizes[0][0] <= pages.viewport().width()
    old = pages.generation
    preview.zoom_in()
    assert pages.zoom > fitted and pages.generation > old
    assert preview.zoom_label.text() == f"{round(pages.zoom * 100)} %"
    assert not preview.fit_width_button.isChecked()
    stale = pdf_render.PageRendered(
        pdf_render.RenderRequest(2, 0.5, old), pages.cache[next(iter(pages.cache))], ()
    )
    pages.add_render(stale)
    assert (2, 500) not in pages.cache
    preview.fit_page_button.click()
    assert pages.layout_.sizes[0][1] <= pages.viewport().height()
    preview.zoom_reset()
    assert pages.zoom == pytest.approx(fitted)


def test_ctrl_wheel_zooms(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "doc.pdf"))
    before = preview.pages.zoom
    qtbot.wait(1)  # let the first layout settle before the wheel event
    from PySide6.QtGui import QWheelEvent

    point = QPointF(50, 50)
    event = QWheelEvent(
        point,
        point,
        QPointF(0, 0).toPoint(),
        QPointF(0, 120).toPoint(),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.ControlModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(preview.pages.viewport(), event)
    assert preview.pages.zoom > before


def test_page_field_and_outline_jump(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "doc.pdf", pages=8))
    # 800 px wide: the pages keep the width, the outline is one click away.
    assert preview.outline_button.isVisible() and not preview.outline.isVisible()
    preview.outline_button.click()
    assert preview.outline.isVisible()
    assert preview.page_field.accessibleName() == "Page number"
    qtbot.keyClick(preview.pages, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert preview.page_field.hasFocus() or QApplication.focusWidget() is None
    preview.page_field.setText("5")
    qtbot.keyClick(preview.page_field, Qt.Key.Key_Return)
    assert 4 in preview.pages.visible_pages()
    assert preview.page_field.text() == "5"
    model = preview.outline_model
    assert [model.item(r).text() for r in range(model.rowCount())] == [
        "Opening",
        "Ending",
    ]
    index = model.index(1, 0)
    preview.outline.setCurrentIndex(index)
    preview.outline.clicked.emit(index)
    assert 7 in preview.pages.visible_pages()


# -- find and copy ---------------------------------------------------------------


def test_find_counts_highlights_and_steps_through_matches(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "doc.pdf", pages=3))
    preview.focus_find()
    assert preview.find_bar.isVisible()
    assert preview.find_bar.field.accessibleName() == "Find text"
    preview.find_next("LAZY dog")
    qtbot.waitUntil(lambda: preview.find_bar.status.text() == "1 of 3")
    assert sorted(preview.pages.matches) == [0, 1, 2]
    assert preview.pages.current_match is not None
    assert preview.find_next("LAZY dog")
    assert preview.find_bar.status.text() == "2 of 3"
    assert preview.pages.current_match[0] == 1
    assert preview.find_next("LAZY dog", backward=True)
    assert preview.pages.current_match[0] == 0
    preview.find_next("absent words")
    qtbot.waitUntil(lambda: preview.find_bar.status.text() == "Not found")
    assert preview.pages.matches == {}


def test_drag_selects_words_and_ctrl_c_copies_them(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "doc.pdf"))
    _drawn(qtbot, preview)
    widget = _page_widget(preview, 0)
    zoom = preview.pages.zoom
    _mouse(widget, QMouseEvent.Type.MouseButtonPress, 70 * zoom, 100 * zoom)
    qtbot.waitUntil(lambda: 0 in preview.pages.words)
    _mouse(widget, QMouseEvent.Type.MouseMove, 200 * zoom, 128 * zoom)
    _mouse(widget, QMouseEvent.Type.MouseButtonRelease, 200 * zoom, 128 * zoom)
    assert (
        preview.pages.selected_text() == "The quick brown fox jumps\nover the lazy dog"
    )
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(preview.pages, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == (
        "The quick brown fox jumps\nover the lazy dog"
    )


# -- links -------------------------------------------------------------------------


@pytest.fixture
def no_outside_effects(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Record anything that would open a URL or start a process."""
    calls: list[object] = []

    def record(*args: Any, **kwargs: Any) -> bool:
        calls.append(args)
        return True

    monkeypatch.setattr("PySide6.QtGui.QDesktopServices.openUrl", record)
    monkeypatch.setattr(subprocess, "Popen", record)
    monkeypatch.setattr("os.system", record)
    monkeypatch.setattr(pymupdf.Document, "embfile_get", record)
    yield calls


def test_internal_link_jumps(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "doc.pdf", pages=6))
    _drawn(qtbot, preview)
    _click_pdf_point(preview, 0, 100, 210)
    assert 5 in preview.pages.visible_pages()


def test_web_link_opens_only_after_confirmation(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    no_outside_effects: list[object],
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "doc.pdf"))
    _drawn(qtbot, preview)
    asked: list[str] = []
    opened: list[str] = []
    preview.open_url = lambda url: opened.append(url.toString()) or True
    preview.confirm_url = lambda parent, url: asked.append(url) or False
    _click_pdf_point(preview, 0, 100, 250)
    assert asked == ["https://example.org/x"] and opened == []
    preview.confirm_url = lambda parent, url: True
    _click_pdf_point(preview, 0, 100, 250)
    assert opened == ["https://example.org/x"]
    assert no_outside_effects == []


@pytest.mark.parametrize("y", [290, 330], ids=["launch", "file-uri"])
def test_launch_and_file_links_are_never_followed(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    no_outside_effects: list[object],
    y: float,
) -> None:
    preview = _open(qtbot, open_preview, _make_pdf(tmp_path / "doc.pdf"))
    _drawn(qtbot, preview)
    preview.confirm_url = lambda parent, url: pytest.fail("must not ask")
    _click_pdf_point(preview, 0, 100, y)
    assert "is not followed" in preview.notice_text()
    assert no_outside_effects == []
    assert preview.pages.visible_pages().start == 0


# -- passwords and bad files -----------------------------------------------------


def test_encrypted_pdf_asks_for_the_password(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(
        qtbot, open_preview, _make_pdf(tmp_path / "locked.pdf", password="pw1")
    )
    assert preview.stack.currentWidget() is preview.password
    assert preview.password.field.accessibleName() == "PDF password"
    preview.password.field.setText("wrong")
    qtbot.keyClick(preview.password.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: preview.password.error.text() == "Wrong password.")
    preview.password.field.setText("pw1")
    preview.password.unlock.click()
    qtbot.waitUntil(lambda: preview.stack.currentWidget() is preview.splitter)
    _drawn(qtbot, preview)
    assert preview.page_count_label.text() == "of 3"


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n" + b"\x00garbage" * 500,
        b"%PDF-",
    ],
    ids=["garbage-after-header", "header-only"],
)
def test_broken_pdf_fails_with_a_clear_message(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(data)
    preview = _open(qtbot, open_preview, path)
    assert not preview.is_loaded()
    assert "damaged" in preview.message_text()


def test_truncated_pdf_fails_or_shows_what_it_can(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    whole = _make_pdf(tmp_path / "whole.pdf").read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(whole[: len(whole) // 3])
    preview = _open(qtbot, open_preview, path)
    assert preview.is_settled()
    if not preview.is_loaded():
        assert "damaged" in preview.message_text()


def test_non_pdf_given_to_the_widget_is_refused(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "fake.pdf"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    file = open_verified(str(path))
    preview = PdfPreviewWidget(PreviewSource.from_file(str(path), file), file)
    qtbot.addWidget(preview)
    with qtbot.waitSignal(preview.refused):
        pass
    assert "not a PDF" in preview.message_text()
    preview.release()


# -- the one render thread -------------------------------------------------------


def test_every_pymupdf_call_runs_on_one_thread_that_stops_on_release(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
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

    paths = [_make_pdf(tmp_path / f"doc{index}.pdf", pages=4) for index in range(2)]
    for name in ("get_pixmap", "get_links", "get_text", "search_for"):
        spy(pymupdf.Page, name)
    for name in ("load_page", "close", "get_toc", "authenticate"):
        spy(pymupdf.Document, name)
    previews: list[PreviewWidget] = []
    for path in paths:
        file = open_verified(str(path))
        preview = PDF_PREVIEWER.create(
            PreviewSource.from_file(str(path), file), file, None
        )
        assert isinstance(preview, PdfPreviewWidget)
        qtbot.addWidget(preview)
        preview.resize(600, 500)
        preview.show()
        previews.append(preview)
    for preview in previews:
        assert isinstance(preview, PdfPreviewWidget)
        qtbot.waitUntil(preview.is_loaded, timeout=10000)
        _drawn(qtbot, preview)
        preview.find_next("fox")
    for preview in previews:
        assert isinstance(preview, PdfPreviewWidget)
        qtbot.waitUntil(lambda p=preview: p.find_bar.status.text() == "1 of 4")
    worker = pdf_render.render_thread()
    assert worker is not None
    for preview in previews:
        preview.release()
    qtbot.waitUntil(lambda: pdf_render.render_thread() is None)
    assert not worker.is_alive() or pdf_render.render_thread() is None
    assert threads == {worker.ident}
    assert called.count("close") == 2  # each document closed on the thread
    assert threading.get_ident() not in threads


def test_a_wide_preview_shows_the_outline_at_once(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = open_preview(_make_pdf(tmp_path / "doc.pdf", pages=8))
    assert isinstance(preview, PdfPreviewWidget)
    preview.resize(1200, 700)
    preview.show()
    qtbot.waitUntil(preview.is_settled, timeout=10_000)
    assert preview.outline.isVisible()
