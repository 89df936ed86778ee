"""SVG images: shown as ``<img>`` in a sandboxed page, never through QtSvg.

QtSvg follows ``<image href="/any/local/file">``; in a browser's image context
an SVG runs no script and loads nothing it names. Cheap to import: the web
engine loads only when an SVG is previewed.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from app.core.safeio import VerifiedFile
from previewers import magic
from previewers.base import PreviewSource, PreviewWidget

SVG_MIME = "image/svg+xml"


class SvgPreviewer:
    """Files whose bytes (or, for a text head, name) say SVG."""

    name = "svg"

    def accepts(self, source: PreviewSource) -> bool:
        if source.source_view or magic.looks_binary(source.head):
            return False
        return source.mime == SVG_MIME

    def create(
        self, source: PreviewSource, file: VerifiedFile, parent: QWidget | None
    ) -> PreviewWidget:
        from previewers import web_preview

        spec = web_preview.image_spec(source.path, svg=True)
        return web_preview.WebPreviewWidget(source, file, spec, parent)


SVG_PREVIEWER = SvgPreviewer()
"""The instance to register: before every image previewer and plain text."""
