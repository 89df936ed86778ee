"""Raster images chosen by their magic bytes, decoded within a pixel bound.

The widget (``previewers.image.widget``) and Pillow load when an image is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.trust.safeio import VerifiedFile
from app.formats.image_facts import format_for_mime
from previewers.context import STANDALONE, PreviewContext
from previewers.source import WHOLE_FETCH_LIMIT, PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.image.widget import ImagePreviewWidget


class ImagePreviewer:
    """PNG, JPEG, GIF, WebP, BMP, ICO and TIFF, by magic bytes; never SVG."""

    name = "image"
    fetch_limit = WHOLE_FETCH_LIMIT
    pages_remotely = False

    def accepts(self, source: PreviewSource) -> bool:
        return not source.source_view and format_for_mime(source.mime) is not None

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> ImagePreviewWidget:
        from previewers.image.widget import ImagePreviewWidget

        return ImagePreviewWidget(source, file, parent, context=context)
