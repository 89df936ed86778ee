"""JSON and JSON Lines as a lazy tree; files over the tree's limit go to text.

The widget (``previewers.json.widget``) loads when a JSON file is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.filetype import Kind
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource, is_text_of_kind

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.json.widget import JsonPreviewWidget


class JsonPreviewer:
    """JSON and JSON Lines up to ``JSON_SIZE_LIMIT``; larger goes to paged text."""

    name = "json"

    def accepts(self, source: PreviewSource) -> bool:
        # Imported here: the reader loads msgspec and orjson, which a start
        # that shows no JSON file never needs.
        from app.formats.json_load import JSON_SIZE_LIMIT

        if source.kind is Kind.JSON and not source.is_text:
            # Not text (invalid UTF-8, a NUL byte): the parser says where.
            return not source.source_view and source.identity.size <= JSON_SIZE_LIMIT
        return is_text_of_kind(source, Kind.JSON, JSON_SIZE_LIMIT)

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> JsonPreviewWidget:
        from previewers.json.widget import JsonPreviewWidget

        return JsonPreviewWidget(source, file, parent, context=context)
