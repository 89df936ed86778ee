"""The last entry of every table: a card with the file's facts and actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.fallback.card import FallbackCardWidget


class FallbackPreviewer:
    """Accepts every file: the last entry of the registry."""

    name = "fallback"
    fetch_limit = 0  # the card shows facts only: nothing is fetched
    pages_remotely = False

    def accepts(self, source: PreviewSource) -> bool:
        return True

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> FallbackCardWidget:
        from previewers.fallback.card import FallbackCardWidget

        return FallbackCardWidget(source, file, parent, context=context)
