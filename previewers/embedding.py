"""How a previewer family shows a page it bound, through the web family's view.

Families never import each other (an import-linter contract holds it). A
family that binds a page of its own, as Markdown does to draw diagrams and
math, is handed the web family's sandboxed view as a ``PageViews`` by the
registry, the one module that knows every family.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from app.core.manifest import Bundle
    from app.core.safeio import VerifiedFile
    from previewers.context import PreviewContext
    from previewers.source import PreviewSource
    from previewers.widget import PreviewWidget


class PageViews(Protocol):
    """Makes a preview that shows a bound page in the sandboxed web view."""

    def refusal(self) -> str | None:
        """Why no page can be shown in this process, or ``None``."""
        ...

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
    ) -> PreviewWidget:
        """A preview of ``source`` that shows ``bundle``; it is loaded once
        ``ready_script`` turns true in the page, and fails past its budget."""
        ...
