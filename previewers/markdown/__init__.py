"""Markdown rendered safely, with an outline and the workspace's own images.

The widget (``previewers.markdown.widget``) loads when a document is shown. A
document with diagrams or math is drawn in a page it binds itself, shown by
the page view the registry hands this family (``ShowBoundPage``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from app.core.filetype import Kind
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource, is_text_of_kind

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from app.core.serve.manifest import Bundle
    from previewers.markdown.widget import MarkdownPreviewWidget
    from previewers.widget import PreviewWidget


class ShowBoundPage(Protocol):
    """Shows a page the preview bound, in the sandboxed view, with no toolbar.

    Loaded once ``ready_script`` turns true in the page; refused at once where
    no page can be shown (as root).
    """

    def __call__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        bundle: Bundle,
        ready_script: str,
        what: str,
        context: PreviewContext = STANDALONE,
    ) -> PreviewWidget: ...


class MarkdownPreviewer:
    """Markdown files up to ``MARKDOWN_LIMIT``; "Show source" goes to plain text.

    ``show_page`` draws diagrams and math in a sandboxed page; without it
    they are shown as text.
    """

    name = "markdown"

    def __init__(self, show_page: ShowBoundPage | None = None) -> None:
        self._show_page = show_page

    def accepts(self, source: PreviewSource) -> bool:
        # Imported here: the document module brings Qt's text browser and the
        # Markdown readers, which a start that shows no Markdown never needs.
        from previewers.markdown.document import MARKDOWN_LIMIT

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
            source, file, parent, context=context, show_page=self._show_page
        )
