"""Jupyter notebooks as people see them: a page of cells, the JSON one click away.

The page is written off the GUI thread (``previewers.notebook.render``) and
shown by the page view the registry hands this family (``ShowPage``); the
JSON is shown by the previewer it hands for that (``ShowJson``). Families
never import each other: the registry, which knows them all, joins them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from app.core.serve.manifest import Bundle
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import WHOLE_FETCH_LIMIT, PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.notebook.widget import NotebookPreviewWidget
    from previewers.widget import PreviewWidget

NOTEBOOK_SIZE_LIMIT = 64 * 1024 * 1024
"""Larger notebooks are shown as JSON of their size is (as paged text)."""

Render = Callable[[VerifiedFile, Callable[[], bool]], bytes]
"""Writes the page's HTML from the opened file, on a worker."""

Finish = Callable[[Bundle], Bundle]
"""Adds the app's own files (those that draw math) to the bound page."""


class ShowPage(Protocol):
    """Shows a page written from a file in the sandboxed view, with no toolbar.

    ``finish`` adds the app's own files to the page once it is bound; the page
    counts as loaded once ``ready_script`` turns true in it.
    """

    def __call__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        render: Render,
        what: str,
        context: PreviewContext = STANDALONE,
        finish: Finish | None = None,
        ready_script: str | None = None,
    ) -> PreviewWidget: ...


class ShowJson(Protocol):
    """The previewer that shows the notebook as the JSON it is."""

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> PreviewWidget: ...


class NotebookPreviewer:
    """Files whose bytes (or ``.ipynb`` name) say notebook, up to 64 MiB."""

    name = "notebook"
    fetch_limit = WHOLE_FETCH_LIMIT
    pages_remotely = False

    def __init__(self, show_page: ShowPage, show_json: ShowJson) -> None:
        self._show_page = show_page
        self._show_json = show_json

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
    ) -> NotebookPreviewWidget:
        from previewers.notebook.widget import NotebookPreviewWidget

        return NotebookPreviewWidget(
            source,
            file,
            parent,
            show_page=self._show_page,
            show_json=self._show_json,
            context=context,
        )
