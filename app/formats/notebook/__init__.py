"""Jupyter notebooks read and written as one self-contained HTML page (no Qt).

``render_notebook(data, title=..., dark=...)`` parses a notebook's bytes
(``model``) and writes its page (``page``, ``outputs``, ``ansi``, ``style``);
the preview binds and serves that page as it serves any HTML page.
"""

from __future__ import annotations

from app.formats.notebook.model import MAX_CELLS, Notebook, NotebookError
from app.formats.notebook.outputs import Limits
from app.formats.notebook.page import NotebookPage, render_notebook

__all__ = [
    "MAX_CELLS",
    "Limits",
    "Notebook",
    "NotebookError",
    "NotebookPage",
    "render_notebook",
]
