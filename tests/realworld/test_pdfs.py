"""PDFs from the tools agents use, shown by the real viewer as a person sees them.

pdfTeX (LaTeX with hyperref, and Texinfo), Chromium and LibreOffice made the
files kept in tests/data/pdf; reportlab, matplotlib and fpdf2 write theirs
now. Each is opened through the registry's PDF preview (its worker process
included), and the test looks at what is on screen: the first page painted
with ink, and the outline's entries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from app.core.trust.safeio import open_verified
from app.formats.pdf_doc import DocumentInfo, OutlineEntry
from previewers import registry
from previewers.pdf import PDF_PREVIEWER
from previewers.pdf.outline import OutlineTree, PdfOutlineModel
from previewers.pdf.pages import PdfPageWidget
from previewers.pdf.render import Opened
from previewers.pdf.widget import PdfPreviewWidget
from previewers.source import PreviewSource
from tests.data.real_pdfs import REAL_PDFS, RealPdf

OpenPreview = Callable[[Path], PdfPreviewWidget]


@pytest.fixture
def open_preview(qtbot: QtBot) -> Iterator[OpenPreview]:
    """Open a file as the workspace does: verified, then the registry's preview."""
    made: list[PdfPreviewWidget] = []

    def make(path: Path) -> PdfPreviewWidget:
        file = open_verified(str(path))
        source = PreviewSource.from_file(str(path), file)
        previewer = registry.choose(source)
        assert previewer is PDF_PREVIEWER, previewer
        preview = previewer.create(source, file, None)
        made.append(preview)
        return preview

    yield make
    for preview in made:
        preview.release()
        preview.deleteLater()


def _shown(qtbot: QtBot, open_preview: OpenPreview, path: Path) -> PdfPreviewWidget:
    preview = open_preview(path)
    preview.resize(1200, 800)  # wide enough that the outline shows at once
    preview.show()
    qtbot.waitUntil(preview.is_settled, timeout=20_000)
    pages = preview.pages
    qtbot.waitUntil(
        lambda: bool(pages.visible_pages()) and pages.has_image(0), timeout=20_000
    )
    return preview


def _ink_share(preview: PdfPreviewWidget, page: int) -> float:
    """The share of the page's pixels on screen that are not paper-white."""
    widget = next(
        w
        for w in preview.pages.findChildren(PdfPageWidget)
        if w.page == page and w.isVisible()
    )
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_Grayscale8)
    width, height = image.width(), image.height()
    stride = image.bytesPerLine()
    data = bytes(image.constBits())[: stride * height]
    rows = (data[row * stride : row * stride + width] for row in range(height))
    inked = sum(sum(1 for value in row if value < 200) for row in rows)
    return inked / (width * height)


def _outline_rows(model: PdfOutlineModel) -> list[tuple[int, str]]:
    """Every entry the outline shows, depth first, with its depth from 1."""
    rows: list[tuple[int, str]] = []
    pending: list[tuple[QModelIndex, int]] = [(QModelIndex(), 0)]
    while pending:
        parent, depth = pending.pop()
        while model.canFetchMore(parent):
            model.fetchMore(parent)
        children = [
            model.index(row, 0, parent) for row in range(model.rowCount(parent))
        ]
        for child in reversed(children):
            pending.append((child, depth + 1))
        if parent.isValid():
            rows.append((depth, str(parent.data())))
    return rows


@pytest.mark.parametrize("pdf", REAL_PDFS, ids=[pdf.name for pdf in REAL_PDFS])
def test_a_real_pdf_shows_its_first_page_painted_and_its_outline(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, pdf: RealPdf
) -> None:
    preview = _shown(qtbot, open_preview, pdf.write(tmp_path))
    assert preview.is_loaded(), preview.message_text()
    assert preview.message_text() == ""
    assert preview.page_count_label.text() == f"of {pdf.pages}"
    assert _ink_share(preview, 0) > 0.002
    assert _outline_rows(preview.outline_model) == list(pdf.outline)
    assert preview.outline.isVisible() == bool(pdf.outline)
    assert "could not be read" not in preview.notice_text()


def test_a_pdftex_outline_entry_shows_its_page(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _shown(qtbot, open_preview, REAL_PDFS[0].write(tmp_path))
    model = preview.outline_model
    results = next(
        model.index(row, 0)
        for row in range(model.rowCount())
        if model.index(row, 0).data() == "3 Results"
    )
    preview.outline.setCurrentIndex(results)
    preview.outline.clicked.emit(results)
    qtbot.waitUntil(lambda: preview.pages.current_page() == 1, timeout=10_000)
    assert preview.page_field.text() == "2"


def test_parts_that_could_not_be_read_are_named_in_a_quiet_notice(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _shown(qtbot, open_preview, REAL_PDFS[0].write(tmp_path))
    entries = (
        OutlineEntry(1, "Chapter", 0, None),
        OutlineEntry(1, "Lost", -1, None, readable=False),
    )
    info = DocumentInfo(
        preview.info.page_sizes if preview.info else ((595.0, 842.0),),
        entries,
        "",
        0,
        unreadable=("the title", "the targets of 1 outline entry"),
    )
    preview._on_session_result(Opened(info, OutlineTree.of(entries)))
    assert preview.notice_text() == (
        "Some parts of this PDF could not be read and are left out: "
        "the title, the targets of 1 outline entry."
    )
    assert preview.message_text() == ""  # the pages stay
    lost = preview.outline_model.index(1, 0)
    preview.outline.setCurrentIndex(lost)
    preview.outline.clicked.emit(lost)
    assert preview.notice_text() == "Where this outline entry leads could not be read."
