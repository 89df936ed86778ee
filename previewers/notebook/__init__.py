"""Jupyter notebooks as people see them: a page of cells beside the notebook's JSON.

The page is written off the GUI thread (``previewers.notebook.render``) and
shown by a page view this family is handed by the registry (``ShowPage``):
families never import each other, and the page view is the web family's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from app.core.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtWidgets import QWidget

    from previewers.widget import PreviewWidget

NOTEBOOK_SIZE_LIMIT = 64 * 1024 * 1024
"""Larger notebooks are shown as JSON of their size is (as paged text)."""
LABELS = ("Notebook", "JSON")


class ShowPage(Protocol):
    """Shows a page written from a file, with a toggle to the file's own text.

    ``render(file, cancelled)`` writes the page's HTML on a worker.
    """

    def __call__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        render: Callable[[VerifiedFile, Callable[[], bool]], bytes],
        what: str,
        labels: tuple[str, str],
        context: PreviewContext = STANDALONE,
    ) -> PreviewWidget: ...


class NotebookPreviewer:
    """Files whose bytes (or ``.ipynb`` name) say notebook; "JSON" is one click away."""

    name = "notebook"

    def __init__(self, show_page: ShowPage) -> None:
        self._show_page = show_page

    def accepts(self, source: PreviewSource) -> bool:
        return (
            source.type.is_notebook
            and source.is_text
            and not source.source_view
            and source.identity.size <= NOTEBOOK_SIZE_LIMIT
        )

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> PreviewWidget:
        from PySide6.QtWidgets import QApplication

        from previewers.notebook.render import notebook_renderer

        palette = parent.palette() if parent is not None else QApplication.palette()
        render = notebook_renderer(source.name, dark=context.is_dark(palette))
        return self._show_page(
            source,
            file,
            parent,
            render=render,
            what="notebooks",
            labels=LABELS,
            context=context,
        )
