"""The sandboxed page view, lent to previews that bind a page of their own.

Cheap to import, as the package is: the widget and the web engine load only
when a page is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.safeio import VerifiedFile
from previewers.context import PreviewContext
from previewers.source import PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from app.core.manifest import Bundle
    from previewers.web.preview import WebPreviewWidget


class EmbeddedPages:
    """The sandboxed page view, for a preview that binds a page of its own.

    A Markdown document with diagrams or math is drawn in a page the Markdown
    preview binds (``app.formats.diagram_page``); it gets this through the
    registry as a ``previewers.embedding.PageViews``.
    """

    def refusal(self) -> str | None:
        from previewers.web.preview import ROOT_REASON, engine_refusal

        return None if engine_refusal() is None else ROOT_REASON

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        bundle: Bundle,
        parent: QWidget | None,
        *,
        context: PreviewContext,
        ready_script: str,
        what: str,
    ) -> WebPreviewWidget:
        from previewers.web.pages import PageSpec
        from previewers.web.preview import WebPreviewWidget

        def bind(_file: VerifiedFile, _cancelled: object) -> Bundle:
            return bundle  # bound already, by the preview that shows it

        spec = PageSpec(bind, what, javascript=True, ready_script=ready_script)
        return WebPreviewWidget(
            source, file, spec, parent, show_toggle=False, context=context
        )


PAGE_VIEWS = EmbeddedPages()
"""The page view the registry hands previewers that bind pages of their own."""
