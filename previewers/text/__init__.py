"""Text and source code, and "Show source" of any text: highlighted, paged, found in.

The widget (``previewers.text.widget``) and pygments load when a text is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.filetype import EMPTY_MIME, SVG_MIME, TEXT_KINDS, is_textual_mime
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext, SourceText
from previewers.source import PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.text.widget import CodePreviewWidget

# Text that a MIME type outside text/* still names: an empty file, SVG source.
_TEXT_MIMES = frozenset({EMPTY_MIME, SVG_MIME})


class CodePreviewer:
    """Text of the text kinds, and "Show source" of any text; never binary."""

    name = "code"
    pages_remotely = True

    @property
    def fetch_limit(self) -> int:
        # Larger text is paged over SFTP, never fetched whole. Imported here:
        # the pager is loaded by create() only.
        from app.formats.text_pages import PAGE_SIZE

        return PAGE_SIZE

    def accepts(self, source: PreviewSource) -> bool:
        textual = is_textual_mime(source.mime) or source.mime in _TEXT_MIMES
        if not textual or not source.is_text:
            return False
        return source.source_view or source.kind in TEXT_KINDS

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> CodePreviewWidget:
        from previewers.text.widget import CodePreviewWidget

        return CodePreviewWidget(source, file, parent, context=context)


def coloured_source(name: str, dark: bool, parent: QWidget | None) -> SourceText:
    """The view a page or a document shows its source in, coloured for ``name``.

    The same view and colours as "Show source" (``PreviewContext.source_text``).
    """
    from previewers.text.source_colours import ColouredSource

    return ColouredSource(name, dark, parent)
