"""The one ordered table from a file to its previewer, ending in the fallback.

Order matters: the first previewer whose ``accepts`` says yes wins, so specific
entries (``image/svg+xml``) come before generic ones (``image/*``), and the
fallback card, which accepts everything, is always last. The file's type is
decided once, before the table is asked (``PreviewSource.type``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.csv import CsvPreviewer
from previewers.fallback import FallbackPreviewer
from previewers.image import ImagePreviewer
from previewers.json import JsonPreviewer
from previewers.markdown import MarkdownPreviewer
from previewers.media import MediaPreviewer
from previewers.notebook import NotebookPreviewer
from previewers.pdf import PDF_PREVIEWER
from previewers.source import PreviewSource
from previewers.text import CodePreviewer
from previewers.text import coloured_source as coloured_source
from previewers.web import (
    HTML_PREVIEWER,
    SVG_PREVIEWER,
    HtmlPreviewer,
    ImagePagePreviewer,
    NotAPagePreviewer,
    SvgPreviewer,
    made_page_widget,
)

# The window asks the registry, never a family, whether a file opens in the web
# engine, and has the engine started early through it.
from previewers.web import needs_web_engine as needs_web_engine
from previewers.web import prepare_web_engine as prepare_web_engine
from previewers.web.embedded import bound_page_widget

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.widget import PreviewWidget


class Previewer(Protocol):
    """One family of files: says which sources it takes and builds their widget.

    ``accepts`` is cheap and decides on the source alone; ``create`` imports
    whatever the widget needs (heavy libraries only there).
    """

    name: str

    @property
    def fetch_limit(self) -> int:
        """The most bytes a remote preview fetches whole for this family.

        0 when its preview needs no bytes (it shows the facts only).
        """
        ...

    @property
    def pages_remotely(self) -> bool:
        """Whether a remote file over ``fetch_limit`` is paged, not refused."""
        ...

    def accepts(self, source: PreviewSource) -> bool: ...

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> PreviewWidget: ...


class RegistryError(ValueError):
    """A registration that would break the table (duplicate or unknown name)."""


class PreviewerRegistry:
    """An ordered list of previewers whose last entry accepts every file."""

    def __init__(self, previewers: Iterable[Previewer], fallback: Previewer) -> None:
        self._fallback = fallback
        self._table: list[Previewer] = []
        for previewer in previewers:
            self.register(previewer)

    def names(self) -> list[str]:
        """The table in order, fallback last."""
        return [previewer.name for previewer in self.previewers()]

    def previewers(self) -> list[Previewer]:
        """The previewers in order, fallback last."""
        return [*self._table, self._fallback]

    def register(self, previewer: Previewer, before: str | None = None) -> None:
        """Add ``previewer`` before the one named ``before`` (default: the fallback)."""
        if previewer.name in self.names():
            raise RegistryError(f"a previewer named {previewer.name!r} is registered")
        if before is None or before == self._fallback.name:
            self._table.append(previewer)
            return
        for index, existing in enumerate(self._table):
            if existing.name == before:
                self._table.insert(index, previewer)
                return
        raise RegistryError(f"no previewer named {before!r} to register before")

    def choose(self, source: PreviewSource) -> Previewer:
        """The first previewer that accepts ``source``; the fallback if none does."""
        for previewer in self._table:
            if previewer.accepts(source):
                return previewer
        return self._fallback


REGISTRY = PreviewerRegistry(
    [
        # Chosen by magic bytes, so a PNG named .pdf is still an image and a
        # playlist named .mp4 is never media.
        # SVG before images: it is shown as <img> in the sandboxed web view,
        # never decoded by an image library that would load what it links.
        SVG_PREVIEWER,
        ImagePreviewer(),
        MediaPreviewer(),
        PDF_PREVIEWER,
        HTML_PREVIEWER,
        # A notebook is JSON text whose page the web view shows: the registry,
        # which knows every family, hands it the web family's page view and
        # the JSON previewer for its JSON.
        NotebookPreviewer(made_page_widget, JsonPreviewer()),
        # Diagrams and math are drawn in a page, in the web family's view.
        MarkdownPreviewer(bound_page_widget),
        JsonPreviewer(),
        CsvPreviewer(),
        # Text and code of any size, and "Show source" of every text kind.
        CodePreviewer(),
    ],
    FallbackPreviewer(),
)
"""The workspace's table. Previewers added later register into it."""

BROWSER = PreviewerRegistry(
    [
        SvgPreviewer(toggle=False),
        ImagePagePreviewer(),
        HtmlPreviewer(toggle=False),
    ],
    NotAPagePreviewer(),
)
"""The built-in browser's table: pages, SVG and images, each as a page."""


def choose(source: PreviewSource) -> Previewer:
    """The previewer the workspace uses for ``source``."""
    return REGISTRY.choose(source)


def register(previewer: Previewer, before: str | None = None) -> None:
    """Add a previewer to the workspace's table; see ``PreviewerRegistry.register``."""
    REGISTRY.register(previewer, before)
