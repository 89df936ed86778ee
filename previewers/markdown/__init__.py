"""Markdown rendered safely, with an outline and the workspace's own images.

The widget (``previewers.markdown.widget``) loads when a document is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.filetype import Kind
from app.core.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.embedding import PageViews
from previewers.markdown.document import MARKDOWN_LIMIT
from previewers.source import PreviewSource, is_text_of_kind

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.markdown.widget import MarkdownPreviewWidget


class MarkdownPreviewer:
    """Markdown files up to ``MARKDOWN_LIMIT``; "Show source" goes to plain text.

    ``pages`` draws diagrams and math in a sandboxed page; without it they
    are shown as text.
    """

    name = "markdown"

    def __init__(self, pages: PageViews | None = None) -> None:
        self._pages = pages

    def accepts(self, source: PreviewSource) -> bool:
        return is_text_of_kind(source, Kind.MARKDOWN, MARKDOWN_LIMIT)

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> MarkdownPreviewWidget:
        from previewers.markdown.widget import MarkdownPreviewWidget

        return MarkdownPreviewWidget(
            source, file, parent, context=context, pages=self._pages
        )
