"""The notebook's page, written on a worker from the bytes of the opened file."""

from __future__ import annotations

from collections.abc import Callable

from app.core.filetype.sizes import human_size
from app.core.trust.safeio import VerifiedFile
from app.formats.notebook import NotebookError, render_notebook
from previewers.notebook import NOTEBOOK_SIZE_LIMIT, Render


def notebook_renderer(title: str, *, dark: bool) -> Render:
    """A job that reads the notebook through its descriptor and writes its page.

    ``title`` names the page; ``dark`` picks the colours, asked on the GUI
    thread before the job starts.
    """

    def render(file: VerifiedFile, cancelled: Callable[[], bool]) -> bytes:
        data = file.read(NOTEBOOK_SIZE_LIMIT + 1, 0)
        if len(data) > NOTEBOOK_SIZE_LIMIT:
            raise NotebookError(
                f"it is larger than the {human_size(NOTEBOOK_SIZE_LIMIT)} "
                "a notebook preview reads"
            )
        page = render_notebook(data, title=title, dark=dark, cancelled=cancelled)
        return page.html

    return render
