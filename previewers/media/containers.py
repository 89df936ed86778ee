"""The containers the player takes, by the MIME type of their bytes, and names."""

from __future__ import annotations

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
