"""The media previewer: plays the verified file, never a playlist or a path."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QFile, QFileDevice, QIODevice, Qt, QUrl
from PySide6.QtMultimedia import QMediaPlayer
from pytestqt.qtbot import QtBot

from app.core.trust.safeio import open_verified
from app.demo.workspace import DemoWorkspace, build_demo_workspace
from app.ui.window.application import MEDIA_PROTOCOL_WHITELIST
from previewers import registry
from previewers.image import ImagePreviewer
from previewers.media import MediaPreviewer
from previewers.media.player import NO_AUDIO_DEVICE, MediaPlayerWidget
from previewers.source import PreviewSource
from tests.data.corpus import float_wav, wav_bytes
from tests.previewers.conftest import OpenPreview

# The FFmpeg backend warns about optional system libraries (VA-API, PipeWire) it
# cannot find on a headless machine, about no sound server when it lists audio
# outputs, and about no GPU for frame conversion; it then works in software and
# without sound, which is what these tests check.
pytestmark = pytest.mark.qt_log_ignore(
    r"^Couldn't (load|resolve) (va|va-x11|va-drm|va\(in plugin\)|pipewire-0\.3) "
    r"(library|symbols)$",
    r"^PulseAudioService: pa_context_connect\(\) failed$",
    r"No RHI backend\. Using CPU conversion\.$",
)


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    table = [ImagePreviewer(), MediaPreviewer(), *registry.REGISTRY._table]
    monkeypatch.setattr(registry.REGISTRY, "_table", table)
    monkeypatch.setenv("QT_FFMPEG_PROTOCOL_WHITELIST", MEDIA_PROTOCOL_WHITELIST)
    yield


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoWorkspace:
    return build_demo_workspace(tmp_path_factory.mktemp("demo"))


def opened(qtbot: QtBot, open_preview: OpenPreview, path: Path) -> MediaPlayerWidget:
    preview = open_preview(path)
    assert isinstance(preview, MediaPlayerWidget)
    preview.resize(640, 420)
    preview.show()
    qtbot.waitUntil(preview.is_settled, timeout=15_000)
    assert preview.message_text() == ""
    return preview


def source_for(path: Path) -> PreviewSource:
    with open_verified(str(path)) as file:
        return PreviewSource.from_file(str(path), file)


def test_a_video_shows_its_first_frame_paused(
    qtbot: QtBot, open_preview: OpenPreview, demo: DemoWorkspace
) -> None:
    preview = opened(qtbot, open_preview, demo.path("clip_avi"))
    player = preview.player()
    assert player is not None
    assert player.playbackState() != QMediaPlayer.PlaybackState.PlayingState
    frame = preview.stage.image()  # type: ignore[attr-defined]
    assert (frame.width(), frame.height()) == (320, 240)
    assert preview.time_label.text() == "0:00 / 0:02"
    facts = preview.facts_text()
    assert "Duration 0:02" in facts
    assert "320 \u00d7 240" in facts
    assert "MotionJPEG" in facts


def test_space_plays_and_arrows_seek(
    qtbot: QtBot, open_preview: OpenPreview, demo: DemoWorkspace
) -> None:
    preview = opened(qtbot, open_preview, demo.path("clip_avi"))
    player = preview.player()
    assert player is not None
    qtbot.keyClick(preview, Qt.Key.Key_Space)
    qtbot.waitUntil(
        lambda: player.playbackState() == QMediaPlayer.PlaybackState.PlayingState
    )
    qtbot.waitUntil(lambda: player.position() > 0, timeout=5_000)
    qtbot.keyClick(preview, Qt.Key.Key_Space)
    qtbot.waitUntil(
        lambda: player.playbackState() == QMediaPlayer.PlaybackState.PausedState
    )
    qtbot.keyClick(preview, Qt.Key.Key_Left)
    qtbot.waitUntil(lambda: player.position() == 0, timeout=5_000)
    qtbot.keyClick(preview, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: player.position() >= 1500, timeout=5_000)


def test_a_wav_shows_its_waveform_and_facts(
    qtbot: QtBot, open_preview: OpenPreview, demo: DemoWorkspace
) -> None:
    preview = opened(qtbot, open_preview, demo.path("tone_wav"))
    qtbot.waitUntil(lambda: bool(preview.waveform.peaks()), timeout=5_000)
    assert max(high for _low, high in preview.waveform.peaks()) > 0.1
    assert "22,050 Hz, mono, 16-bit PCM" in preview.facts_text()
    assert "Duration 0:02" in preview.facts_text()


def test_without_an_audio_device_the_user_is_told(
    qtbot: QtBot, open_preview: OpenPreview, demo: DemoWorkspace
) -> None:
    preview = opened(qtbot, open_preview, demo.path("tone_wav"))
    if preview.has_audio_output():
        pytest.skip("this machine has an audio output")
    assert preview.notice_text() == NO_AUDIO_DEVICE
    assert not preview.volume_slider.isEnabled()


def test_the_player_reads_the_opened_file_not_the_path(
    qtbot: QtBot, open_preview: OpenPreview, demo: DemoWorkspace, tmp_path: Path
) -> None:
    path = tmp_path / "clip.avi"
    shutil.copyfile(demo.path("clip_avi"), path)
    preview = open_preview(path)
    other = tmp_path / "other"
    other.write_bytes(b"#EXTM3U\nsomething else\n")
    os.replace(other, path)  # a new file at the same path
    preview.show()
    qtbot.waitUntil(preview.is_settled, timeout=15_000)
    assert preview.is_loaded()


def test_a_text_file_named_mp4_is_not_media(
    open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "movie.mp4"
    path.write_text("these are notes, not a movie\n")
    assert not MediaPreviewer().accepts(source_for(path))
    assert not isinstance(open_preview(path), MediaPlayerWidget)


def test_a_playlist_named_mp4_is_refused_and_never_played(
    qtbot: QtBot, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.ts"
    secret.write_bytes(b"\x47" * 188)
    path = tmp_path / "movie.mp4"
    path.write_text(f"#EXTM3U\n#EXTINF:2.0,\n{secret}\n#EXT-X-ENDLIST\n")
    source = source_for(path)
    assert not MediaPreviewer().accepts(source)
    # Even built directly, the widget refuses by content and makes no player.
    file = open_verified(str(path))
    preview = MediaPlayerWidget(source, file, None)
    try:
        assert preview.is_settled() and not preview.is_loaded()
        assert "playlist" in preview.message_text()
        assert preview.player() is None
    finally:
        preview.release()


@pytest.mark.parametrize("name", ["empty.wav", "empty.mp4"])
def test_an_empty_file_named_like_media_is_not_played(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    preview = open_preview(path)
    assert not isinstance(preview, MediaPlayerWidget)
    qtbot.waitUntil(preview.is_settled, timeout=5_000)


@pytest.mark.qt_log_ignore(r"^Could not open media\. FFmpeg error description")
def test_undecodable_media_fails_with_a_message(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "broken.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + os.urandom(4000))
    preview = open_preview(path)
    assert isinstance(preview, MediaPlayerWidget)
    failures: list[str] = []
    preview.failed.connect(failures.append)
    qtbot.waitUntil(preview.is_settled, timeout=15_000)
    assert failures and "not supported" in failures[0]


def test_release_stops_the_player_and_closes_the_file(
    qtbot: QtBot, open_preview: OpenPreview, demo: DemoWorkspace
) -> None:
    preview = opened(qtbot, open_preview, demo.path("clip_avi"))
    with preview.borrow_file() as file:
        fd = file.fd
    preview.release()
    assert preview.player() is None
    with pytest.raises(OSError):
        os.fstat(fd)


def _atime_probe(path: Path) -> None:
    # atime older than mtime: a read now updates it, even with relatime.
    os.utime(path, (1_000_000, 2_000_000))


def _play_playlist_device(qtbot: QtBot, playlist: Path, name: str) -> None:
    device = QFile()
    assert device.open(
        os.open(playlist, os.O_RDONLY),
        QIODevice.OpenModeFlag.ReadOnly,
        QFileDevice.FileHandleFlag.AutoCloseHandle,
    )
    player = QMediaPlayer()
    done = (QMediaPlayer.MediaStatus.InvalidMedia, QMediaPlayer.MediaStatus.LoadedMedia)
    player.setSourceDevice(device, QUrl(name))
    qtbot.waitUntil(lambda: player.mediaStatus() in done, timeout=15_000)
    player.setSource(QUrl())
    device.close()


def _canary_setup(tmp_path: Path) -> tuple[Path, Path]:
    canary = tmp_path / "canary.ts"
    canary.write_bytes(b"\x47" + bytes(187))
    _atime_probe(canary)
    if os.stat(canary).st_atime != 1_000_000:
        pytest.skip("this file system does not keep access times")
    playlist = tmp_path / "list.m3u8"
    playlist.write_text(
        "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n"
        f"#EXTINF:2.0,\n{canary}\n#EXTINF:2.0,\nfile://{canary}\n#EXT-X-ENDLIST\n"
    )
    return canary, playlist


@pytest.mark.qt_log_ignore(r"^Could not open media\. FFmpeg error description")
@pytest.mark.parametrize("name", ["media.mp4", "list.m3u8"])
def test_a_playlist_that_reached_the_player_pulls_no_other_file(
    qtbot: QtBot, tmp_path: Path, name: str
) -> None:
    # Worst case included: the bytes are named ".m3u8", so FFmpeg reads them as
    # an HLS playlist; the app's protocol whitelist still lets it open nothing.
    canary, playlist = _canary_setup(tmp_path)
    _play_playlist_device(qtbot, playlist, name)
    assert os.stat(canary).st_atime == 1_000_000


@pytest.mark.qt_log_ignore(r"^Could not open media\. FFmpeg error description")
def test_the_canary_would_be_read_if_the_file_protocol_were_allowed(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The control for the test above: with "file" allowed, the same playlist
    # does make FFmpeg open the canary, so an unchanged access time means
    # something.
    monkeypatch.setenv("QT_FFMPEG_PROTOCOL_WHITELIST", "file")
    canary, playlist = _canary_setup(tmp_path)
    device = QFile()
    assert device.open(
        os.open(playlist, os.O_RDONLY),
        QIODevice.OpenModeFlag.ReadOnly,
        QFileDevice.FileHandleFlag.AutoCloseHandle,
    )
    player = QMediaPlayer()
    player.setSourceDevice(device, QUrl("list.m3u8"))
    qtbot.waitUntil(lambda: os.stat(canary).st_atime != 1_000_000, timeout=15_000)
    player.setSource(QUrl())
    device.close()


def test_a_float_wav_wave_cannot_read_is_played_not_failed(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "float.wav"
    path.write_bytes(float_wav())
    preview = opened(qtbot, open_preview, path)
    assert preview.is_loaded()
    # The waveform job fails after (or before) the player loads; either way
    # the preview stays loaded and the reason is kept on the waveform.
    qtbot.waitUntil(lambda: "32-bit float" in preview.waveform.toolTip())
    assert preview.is_loaded() and preview.message_text() == ""


def test_a_wav_the_engine_cannot_play_names_its_encoding(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "adpcm.wav"
    path.write_bytes(wav_bytes(2, 4, b"\x00" * 2048, block_align=256))
    preview = open_preview(path)
    assert isinstance(preview, MediaPlayerWidget)
    failures: list[str] = []
    preview.failed.connect(failures.append)
    preview._on_player_error_occurred(QMediaPlayer.Error.FormatError, "no decoder")
    assert failures == [
        "This WAV uses Microsoft ADPCM, which the media engine cannot play."
    ]
