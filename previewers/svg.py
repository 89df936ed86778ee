"""SVG images: shown as ``<img>`` in a sandboxed page, never through QtSvg.

QtSvg follows ``<image href="/any/local/file">``; in a browser's image context
an SVG runs no script and loads nothing it names. Cheap to import: the web
engine loads only when an SVG is previewed.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from app.core.safeio import VerifiedFile
from previewers.base import PreviewSource, PreviewWidget


class SvgPreviewer:
    """Files whose bytes say SVG, whatever their name."""

    name = "svg"

    def accepts(self, source: PreviewSource) -> bool:
        return not source.source_view and source.is_text and source.type.is_svg

    def create(
        self, source: PreviewSource, file: VerifiedFile, parent: QWidget | None
    ) -> PreviewWidget:
        from previewers import web_preview

        spec = web_preview.image_spec(source.path, svg=True)
        return web_preview.WebPreviewWidget(source, file, spec, parent)


SVG_PREVIEWER = SvgPreviewer()
"""The instance to register: before every image previewer and plain text."""
