"""A page another preview bound, shown in the sandboxed view it is lent.

Cheap to import, as the package is: the widget and the web engine load only
when a page is made. Another family gets ``bound_page_widget`` from the
registry, never by importing this one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from app.core.serve.manifest import Bundle
    from previewers.web.preview import WebPreviewWidget


def bound_page_widget(
    source: PreviewSource,
    file: VerifiedFile,
    parent: QWidget | None,
    *,
    bundle: Bundle,
    ready_script: str,
    what: str,
    context: PreviewContext = STANDALONE,
) -> WebPreviewWidget:
    """``bundle``, bound by the preview of ``source``, shown as a page is.

    The page counts as loaded once ``ready_script`` turns true in it (its
    scripts draw after it loads), within the load budget. No toolbar: whoever
    shows the page offers the file's own text. As root it is refused, at
    once (``what`` names the pages in the reason).
    """
    from previewers.web.pages import PageSpec
    from previewers.web.preview import WebPreviewWidget

    def bind(_file: VerifiedFile, _cancelled: Callable[[], bool]) -> Bundle:
        return bundle  # bound already, by the preview that shows it

    spec = PageSpec(
        bind, what, javascript=True, offer_source=False, ready_script=ready_script
    )
    return WebPreviewWidget(
        source, file, spec, parent, show_toggle=False, context=context
    )
