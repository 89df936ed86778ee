"""HTML pages: the page and its bound files, shown in a sandboxed web view.

Cheap to import: the widget module, and the web engine with it, load only when
a page is actually previewed.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QWidget

from app.core.filetype import Kind
from app.core.safeio import VerifiedFile
from previewers import context
from previewers.base import PreviewSource, PreviewWidget

HTML_SUFFIXES = (".html", ".htm")

_workspace_root_for: Callable[[str], str] | None = None


def set_workspace_root_provider(provider: Callable[[str], str] | None) -> None:
    """Say which workspace root a page at a path binds its files within.

    ``provider(path)`` returns the root folder, or "" for a file outside any
    workspace (it may then use files in its own folder only). Called on the
    GUI thread when a preview is created. Without one, the root set in
    ``previewers.context`` by the workspace applies.
    """
    global _workspace_root_for  # one setting for the whole app, set by its window
    _workspace_root_for = provider


def workspace_root_for(path: str) -> str:
    """The root a page at ``path`` binds within ("" for its own folder).

    Without a provider of its own, the workspace the preview is shown in says.
    """
    provider = _workspace_root_for
    return provider(path) if provider is not None else context.root_for(path)


class HtmlPreviewer:
    """``.html``/``.htm`` files whose head is text; "Show source" goes to text."""

    name = "html"

    def accepts(self, source: PreviewSource) -> bool:
        return (
            not source.source_view
            and source.kind is Kind.HTML
            and source.name.lower().endswith(HTML_SUFFIXES)
            and source.is_text
        )

    def create(
        self, source: PreviewSource, file: VerifiedFile, parent: QWidget | None
    ) -> PreviewWidget:
        from previewers import web_preview

        spec = web_preview.html_spec(source.path, workspace_root_for(source.path))
        return web_preview.WebPreviewWidget(source, file, spec, parent)


HTML_PREVIEWER = HtmlPreviewer()
"""The instance to register: before the code previewer."""
