"""Audio and video recognised by their bytes, never playlists.

The player (``previewers.media.player``) and QtMultimedia load when a media
tab opens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.filetype import playlist_refusal
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.media.containers import MEDIA_NAMES
from previewers.source import WHOLE_FETCH_LIMIT, PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.media.player import MediaPlayerWidget


class MediaPreviewer:
    """Audio and video containers recognised by their bytes, never playlists."""

    name = "media"
    fetch_limit = WHOLE_FETCH_LIMIT
    pages_remotely = False

    def accepts(self, source: PreviewSource) -> bool:
        return (
            not source.source_view
            and source.mime in MEDIA_NAMES
            and playlist_refusal(source.head) is None
        )

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> MediaPlayerWidget:
        from previewers.media.player import MediaPlayerWidget

        return MediaPlayerWidget(source, file, parent, context=context)
