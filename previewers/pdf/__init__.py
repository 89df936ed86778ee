"""PDF documents, chosen by their ``%PDF-`` magic whatever their name says.

Importing this package is cheap: PyMuPDF and the viewer (``previewers.pdf.widget``)
are imported by ``create()``, so the app starts without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.filetype import PDF_MIME
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.pdf.widget import PdfPreviewWidget


class PdfPreviewer:
    """Files whose first bytes are ``%PDF-``, whatever their name says."""

    name = "pdf"
    pages_remotely = False

    @property
    def fetch_limit(self) -> int:
        # Imported here: the document reader is loaded by create() only.
        from app.formats.pdf_doc import MAX_PDF_BYTES

        return MAX_PDF_BYTES

    def accepts(self, source: PreviewSource) -> bool:
        return not source.source_view and source.mime == PDF_MIME

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> PdfPreviewWidget:
        from previewers.pdf.widget import PdfPreviewWidget

        return PdfPreviewWidget(source, file, parent, context=context)


PDF_PREVIEWER = PdfPreviewer()
"""The instance the registry lists."""
