"""Audio and video by magic bytes; QtMultimedia loads only when a media tab opens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.filetype import playlist_refusal
from app.core.safeio import VerifiedFile
from previewers.base import PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.media_player import MediaPlayerWidget

# Container MIME types (from magic bytes) and the neutral name the player gets
# for each. FFmpeg picks some demuxers by name (HLS by ".m3u8"), so the name
# comes from the content, never from the file.
MEDIA_NAMES: dict[str, str] = {
    "audio/wav": "media.wav",
    "audio/mpeg": "media.mp3",
    "audio/flac": "media.flac",
    "audio/ogg": "media.ogg",
    "audio/mp4": "media.m4a",
    "video/mp4": "media.mp4",
    "video/quicktime": "media.mov",
    "video/webm": "media.webm",
    "video/x-matroska": "media.mkv",
    "video/x-msvideo": "media.avi",
    "video/ogg": "media.ogv",
}


class MediaPreviewer:
    """Audio and video containers recognised by their bytes, never playlists."""

    name = "media"

    def accepts(self, source: PreviewSource) -> bool:
        return (
            not source.source_view
            and source.mime in MEDIA_NAMES
            and playlist_refusal(source.head) is None
        )

    def create(
        self, source: PreviewSource, file: VerifiedFile, parent: QWidget | None
    ) -> MediaPlayerWidget:
        from previewers.media_player import MediaPlayerWidget

        return MediaPlayerWidget(source, file, parent)
