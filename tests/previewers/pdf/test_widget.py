"""The PDF preview: pages, zoom, outline, find, selection, links, passwords, threads."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from PySide6.QtCore import QModelIndex, QPointF, Qt
from PySide6.QtGui import QGuiApplication, QMouseEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core.trust.safeio import open_verified
from app.formats.pdf_process import worker_command
from previewers import registry
from previewers.pdf import PDF_PREVIEWER
from previewers.pdf import pages as pdf_pages
from previewers.pdf import render as pdf_render
from previewers.pdf.outline import BATCH
from previewers.pdf.pages import PdfPageWidget
from previewers.pdf.widget import PdfPreviewWidget
from previewers.source import PreviewSource
from tests.app.formats.test_pdf_process import busy_pdf, huge_image_pdf
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
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == [
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
    """Record anything that would open a URL or start a process.

    The PDF worker process is the one process a preview starts itself.
    """
    calls: list[object] = []
    popen = subprocess.Popen

    def record(*args: Any, **kwargs: Any) -> bool:
        calls.append(args)
        return True

    def start(*args: Any, **kwargs: Any) -> Any:
        if args and args[0] == worker_command():
            return popen(*args, **kwargs)
        return record(*args, **kwargs)

    monkeypatch.setattr("PySide6.QtGui.QDesktopServices.openUrl", record)
    monkeypatch.setattr(subprocess, "Popen", start)
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


# -- the render thread and the worker process -------------------------------------


def test_the_render_thread_and_its_worker_process_end_after_the_last_preview(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf_render, "IDLE_S", 0.2)
    paths = [_make_pdf(tmp_path / f"doc{index}.pdf", pages=4) for index in range(2)]
    previews: list[PdfPreviewWidget] = []
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
        qtbot.waitUntil(preview.is_loaded, timeout=10000)
        _drawn(qtbot, preview)
        preview.find_next("fox")
    for preview in previews:
        qtbot.waitUntil(lambda p=preview: p.find_bar.status.text() == "1 of 4")
    worker = pdf_render.render_thread()
    process = pdf_render.worker_process()
    assert worker is not None and process.running
    assert threading.get_ident() != worker.ident
    for preview in previews:
        preview.release()
    qtbot.waitUntil(lambda: pdf_render.render_thread() is None, timeout=10000)
    assert not process.running


PROBE = """
import sys
from PySide6.QtWidgets import QApplication
from app.core.trust.safeio import open_verified
from previewers.pdf import PDF_PREVIEWER
from previewers.source import PreviewSource
app = QApplication([])
previews = []
for path in sys.argv[1:]:
    file = open_verified(path)
    preview = PDF_PREVIEWER.create(PreviewSource.from_file(path, file), file, None)
    preview.resize(600, 500)
    preview.show()
    previews.append(preview)
def drawn():
    return all(p.pages.visible_pages() and p.pages.has_image(0) for p in previews)
while not drawn():
    app.processEvents()
for preview in previews:
    preview.release()
print("pymupdf" in sys.modules, "fitz" in sys.modules)
"""


def test_pdf_previews_never_load_pymupdf_into_the_app(tmp_path: Path) -> None:
    # Every PyMuPDF call runs in the worker process, on its one thread
    # (tests/app/formats/test_pdf_worker.py): the app never imports it.
    paths = [str(_make_pdf(tmp_path / f"doc{index}.pdf")) for index in range(2)]
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *paths],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.stdout.split() == ["False", "False"]


# -- pathological documents: budgets, kills, restarts -----------------------------


def _busy_first_page(path: Path) -> Path:
    """Three pages; the first has three million path operators."""
    doc = pymupdf.open("pdf", busy_pdf(3_000_000))
    for number in (2, 3):
        doc.new_page().insert_text((72, 72), f"Quiet page {number}", fontsize=18)
    doc.save(str(path))
    doc.close()
    return path


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _open_busy(open_preview: OpenPreview, path: Path) -> PdfPreviewWidget:
    """Open the busy PDF without waiting for its first page."""
    preview = open_preview(_busy_first_page(path))
    assert isinstance(preview, PdfPreviewWidget)
    preview.resize(800, 600)
    preview.show()
    return preview


def _render_in_flight(preview: PdfPreviewWidget) -> bool:
    """Whether the worker is busy with this preview (opened: with its pages)."""
    return (
        preview.info is not None
        and pdf_render._worker.current == preview.session.id
        and pdf_render.worker_process().pid() is not None
    )


def test_a_page_too_complex_to_render_says_so_and_the_rest_stays_usable(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdf_render, "RENDER_BUDGET_S", 2.0)
    preview = _open_busy(open_preview, tmp_path / "busy.pdf")
    qtbot.waitUntil(lambda: _render_in_flight(preview), timeout=30000)
    pid = pdf_render.worker_process().pid()
    assert pid is not None
    qtbot.waitUntil(
        lambda: preview.pages.failures.get(0) == pdf_render.TOO_COMPLEX,
        timeout=60000,
    )
    assert "Page 1 is too complex to render" in preview.notice_text()
    assert _gone(pid)  # killed, not left inside MuPDF
    # A fresh worker opens the document again and draws the other pages.
    preview.go_to_page(2)
    qtbot.waitUntil(lambda: preview.pages.has_image(2), timeout=30000)
    assert pdf_render.worker_process().pid() not in (None, pid)


def test_closing_a_preview_kills_the_render_it_was_waiting_for(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A budget no test waits for: only the kill on close can end this render.
    monkeypatch.setattr(pdf_render, "RENDER_BUDGET_S", 3600.0)
    preview = _open_busy(open_preview, tmp_path / "busy.pdf")
    qtbot.waitUntil(lambda: _render_in_flight(preview), timeout=30000)
    pid = pdf_render.worker_process().pid()
    assert pid is not None
    preview.release()
    qtbot.waitUntil(lambda: _gone(pid), timeout=30000)
    qtbot.waitUntil(lambda: preview.session.id not in pdf_render._worker.documents)
    assert not pdf_render.worker_process().running  # none started just to close
    # The render thread is free again for every other preview.
    other = _open(qtbot, open_preview, _make_pdf(tmp_path / "other.pdf"))
    _drawn(qtbot, other)


def test_a_page_whose_images_need_too_much_memory_says_so(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "huge-image.pdf"
    doc = pymupdf.open("pdf", huge_image_pdf(30_000))
    doc.new_page().insert_text((72, 72), "After the image", fontsize=18)
    doc.save(str(path))
    doc.close()
    before = _resident_bytes()
    preview = _open(qtbot, open_preview, path)
    qtbot.waitUntil(
        lambda: preview.pages.failures.get(0) == pdf_render.TOO_LARGE,
        timeout=30000,
    )
    assert "Page 1 needs more memory than the viewer gives a page" in (
        preview.notice_text()
    )
    preview.go_to_page(1)
    qtbot.waitUntil(lambda: preview.pages.has_image(1), timeout=30000)
    growth = _resident_bytes() - before
    assert growth < 200 << 20  # the image is never decoded, here or there


def _resident_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.parametrize(
    ("toc", "top_rows"),
    [
        ([[1, f"Chapter {n}", 1] for n in range(20_000)], 20_000),
        ([[level + 1, f"Level {level}", 1] for level in range(1000)], 1),
    ],
    ids=["20000-entries", "1000-levels"],
)
def test_huge_and_deep_outlines_open_and_walk_without_recursion(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    toc: list[list[Any]],
    top_rows: int,
) -> None:
    path = tmp_path / "outline.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Outlined", fontsize=18)
    doc.set_toc(toc)
    doc.save(str(path))
    doc.close()
    preview = _open(qtbot, open_preview, path)
    _drawn(qtbot, preview)
    model = preview.outline_model
    # Rows are made known a batch at a time, as the view asks for them.
    assert min(top_rows, BATCH) <= model.rowCount() < max(top_rows, 2 * BATCH)
    while model.canFetchMore(QModelIndex()):
        model.fetchMore(QModelIndex())
    assert model.rowCount() == top_rows
    assert model.index(top_rows - 1, 0).data() == toc[top_rows - 1][1]
    index = model.index(0, 0)
    depth = 1
    while model.rowCount(index):
        index = model.index(0, 0, index)
        depth += 1
    assert depth == len(toc) // top_rows
    assert index.data() == (toc[-1][1] if top_rows == 1 else toc[0][1])
    assert "left out" not in preview.notice_text()


PROBE_QUIT = """
import os, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from app.core.trust.safeio import open_verified
from previewers.pdf import PDF_PREVIEWER, render
from previewers.source import PreviewSource
app = QApplication([])
file = open_verified(sys.argv[1])
preview = PDF_PREVIEWER.create(PreviewSource.from_file(sys.argv[1], file), file, None)
preview.resize(600, 500)
preview.show()
def rendering():  # the first page's render is in the worker
    return (
        preview.info is not None
        and render._worker.current == preview.session.id
        and render.worker_process().pid() is not None
    )
while not rendering():
    app.processEvents()
pid = render.worker_process().pid()
QTimer.singleShot(0, app.quit)
app.exec()
try:
    os.kill(pid, 0)
    print("alive")
except ProcessLookupError:
    print("gone")
"""


def test_quitting_the_app_ends_its_worker_process_even_inside_a_render(
    tmp_path: Path,
) -> None:
    path = _busy_first_page(tmp_path / "busy.pdf")
    result = subprocess.run(
        [sys.executable, "-c", PROBE_QUIT, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.stdout.split() == ["gone"]
    assert "Traceback" not in result.stderr


def test_a_wide_preview_shows_the_outline_at_once(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = open_preview(_make_pdf(tmp_path / "doc.pdf", pages=8))
    assert isinstance(preview, PdfPreviewWidget)
    preview.resize(1200, 700)
    preview.show()
    qtbot.waitUntil(preview.is_settled, timeout=10_000)
    assert preview.outline.isVisible()
