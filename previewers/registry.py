"""The one ordered table from a file to its previewer, ending in the fallback.

Order matters: the first previewer whose ``accepts`` says yes wins, so specific
entries (``image/svg+xml``) come before generic ones (``image/*``), and the
fallback card, which accepts everything, is always last.
"""

from __future__ import annotations

from collections.abc import Iterable

from previewers.base import Previewer, PreviewSource
from previewers.code import CodePreviewer
from previewers.csv_view import CsvPreviewer
from previewers.fallback import FallbackPreviewer
from previewers.html import HTML_PREVIEWER
from previewers.image import ImagePreviewer
from previewers.json_view import JsonPreviewer
from previewers.markdown import MarkdownPreviewer
from previewers.media import MediaPreviewer
from previewers.pdf import PDF_PREVIEWER
from previewers.svg import SVG_PREVIEWER


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
        return [previewer.name for previewer in self._table] + [self._fallback.name]

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
        MarkdownPreviewer(),
        JsonPreviewer(),
        CsvPreviewer(),
        # Text and code of any size, and "Show source" of every text kind.
        CodePreviewer(),
    ],
    FallbackPreviewer(),
)
"""The app's table. Previewers added later register into it."""


def choose(source: PreviewSource) -> Previewer:
    """The previewer the app uses for ``source``."""
    return REGISTRY.choose(source)


def register(previewer: Previewer, before: str | None = None) -> None:
    """Add a previewer to the app's table; see ``PreviewerRegistry.register``."""
    REGISTRY.register(previewer, before)
