"""The demo workspace's audio and video load and decode with QtMultimedia."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import QSize, QUrl
from PySide6.QtMultimedia import QMediaPlayer, QVideoFrame, QVideoSink
from pytestqt.qtbot import QtBot

from app.demo.workspace import DemoWorkspace, build_demo_workspace

# The FFmpeg backend probes optional system libraries (VA-API for hardware video
# decoding, PipeWire for audio) and warns when they are missing, as on a headless
# machine; it then decodes in software, which is what these tests check.
pytestmark = pytest.mark.qt_log_ignore(
    r"^Couldn't (load|resolve) (va|va-x11|va-drm|va\(in plugin\)|pipewire-0\.3) "
    r"(library|symbols)$"
)

LOADED = (QMediaPlayer.MediaStatus.LoadedMedia, QMediaPlayer.MediaStatus.BufferedMedia)


@pytest.fixture(autouse=True)
def file_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    # These tests check the files themselves, opened by path; the app opens
    # media only as a device, with every FFmpeg protocol off.
    monkeypatch.setenv("QT_FFMPEG_PROTOCOL_WHITELIST", "file")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> DemoWorkspace:
    return build_demo_workspace(tmp_path_factory.mktemp("demo"))


def _load(qtbot: QtBot, player: QMediaPlayer, path: Path) -> None:
    errors: list[str] = []
    player.errorOccurred.connect(lambda _error, message: errors.append(message))
    player.setSource(QUrl.fromLocalFile(str(path)))
    qtbot.waitUntil(
        lambda: bool(errors) or player.mediaStatus() in LOADED, timeout=10_000
    )
    assert errors == []
    assert player.mediaStatus() in LOADED


def test_clip_loads_and_delivers_frames_of_the_right_size(
    qtbot: QtBot, workspace: DemoWorkspace
) -> None:
    player = QMediaPlayer()
    sink = QVideoSink()
    player.setVideoSink(sink)
    frames: list[QSize] = []

    def on_sink_video_frame_changed(frame: QVideoFrame) -> None:
        if frame.isValid():
            frames.append(frame.size())

    sink.videoFrameChanged.connect(on_sink_video_frame_changed)
    _load(qtbot, player, workspace.path("clip_avi"))
    assert player.duration() == pytest.approx(2000, abs=300)
    assert player.hasVideo()

    player.play()
    qtbot.waitUntil(lambda: bool(frames), timeout=10_000)
    player.stop()
    assert frames[0] == QSize(320, 240)


def test_tone_loads_with_a_two_second_duration(
    qtbot: QtBot, workspace: DemoWorkspace
) -> None:
    # No audio output is attached: loading needs no sound device, which keeps the
    # test independent of the machine's audio setup.
    player = QMediaPlayer()
    _load(qtbot, player, workspace.path("tone_wav"))
    assert player.duration() == pytest.approx(2000, abs=300)
    assert player.hasAudio()
