"""CSV and TSV as a table of any size, indexed on a worker.

The widget (``previewers.csv.widget``) loads when a table is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.filetype import Kind
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import WHOLE_FETCH_LIMIT, PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.csv.widget import CsvPreviewWidget


class CsvPreviewer:
    """CSV, TSV and .tab files that do not look binary."""

    name = "csv"
    fetch_limit = WHOLE_FETCH_LIMIT
    pages_remotely = False

    def accepts(self, source: PreviewSource) -> bool:
        return source.kind is Kind.CSV and not source.source_view and source.is_text

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> CsvPreviewWidget:
        from previewers.csv.widget import CsvPreviewWidget

        return CsvPreviewWidget(source, file, parent, context=context)
