"""PDF documents, chosen by their ``%PDF-`` magic; the viewer loads on first use.

Importing this module is cheap: PyMuPDF and the viewer widget are imported by
``create()``, so the app starts without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from app.core.filetype import PDF_MIME
from app.core.safeio import VerifiedFile
from previewers.base import PreviewSource, PreviewWidget

if TYPE_CHECKING:
    from previewers.pdf_view import PdfPreviewWidget


class PdfPreviewer:
    """Files whose first bytes are ``%PDF-``, whatever their name says."""

    name = "pdf"

    def accepts(self, source: PreviewSource) -> bool:
        return not source.source_view and source.mime == PDF_MIME

    def create(
        self, source: PreviewSource, file: VerifiedFile, parent: QWidget | None
    ) -> PreviewWidget:
        from previewers.pdf_view import PdfPreviewWidget  # heavy: on first use

        widget: PdfPreviewWidget = PdfPreviewWidget(source, file, parent)
        return widget


PDF_PREVIEWER = PdfPreviewer()
"""The instance the registry lists."""
