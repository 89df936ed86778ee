"""The media tab: a QMediaPlayer fed from the verified descriptor, with controls."""

from __future__ import annotations

import os
import threading

from PySide6.QtCore import QFile, QFileDevice, QIODevice, Qt, QTimer, QUrl
from PySide6.QtGui import QFont, QImage, QKeyEvent
from PySide6.QtMultimedia import (
    QAudioOutput,
    QMediaDevices,
    QMediaMetaData,
    QMediaPlayer,
    QVideoFrame,
    QVideoSink,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.filetype import playlist_refusal
from app.core.trust.safeio import VerifiedFile
from app.formats.image_facts import ReadAtStream
from app.formats.media_facts import (
    Waveform,
    WavError,
    WavFacts,
    read_waveform,
    wav_encoding,
)
from previewers.context import STANDALONE, PreviewContext
from previewers.media.containers import MEDIA_NAMES
from previewers.media.views import VideoFrameView, WaveformView, format_time
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget

SEEK_STEP_MS = 5000
LOAD_TIMEOUT_MS = 20_000
NO_AUDIO_DEVICE = "No audio output device: playing without sound"
_READY = (
    QMediaPlayer.MediaStatus.LoadedMedia,
    QMediaPlayer.MediaStatus.BufferedMedia,
    QMediaPlayer.MediaStatus.BufferingMedia,
    QMediaPlayer.MediaStatus.EndOfMedia,
)


def _waveform_job(
    file: VerifiedFile, cancelled: threading.Event
) -> Waveform | WavError:
    """The waveform, or why there is none: playback never waits on it or fails by it.

    The media engine plays what ``wave`` cannot read (float, ADPCM, µ-law);
    a failed waveform is a notice, whichever of the two finishes first.
    """
    stream = ReadAtStream(file.read, file.identity.size)
    try:
        return read_waveform(stream, cancelled=cancelled)  # type: ignore[arg-type]
    except WavError as error:
        return error


def _plain_label(parent: QWidget, name: str) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setAccessibleName(name)
    return label


class MediaPlayerWidget(PreviewWidget):
    """Video frame or audio card, then play/pause, seek bar, time, volume, mute.

    The player reads a duplicate of the verified descriptor through a ``QFile``
    and is given a name chosen from the magic bytes: FFmpeg never opens a path.
    Keys: Space plays or pauses, Left/Right seek 5 s, Up/Down volume, M mutes.

    Signals: those of ``PreviewWidget``.
    """

    def __init__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None = None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> None:
        super().__init__(source, file, parent, context=context)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._video = source.mime.startswith("video/")
        self._player: QMediaPlayer | None = None
        self._audio: QAudioOutput | None = None
        self._sink: QVideoSink | None = None
        self._device: QFile | None = None
        self._duration = 0
        self._wav: WavFacts | None = None
        self.set_content(self._build())
        refusal = playlist_refusal(source.head)
        if source.mime not in MEDIA_NAMES:
            refusal = refusal or f"It is not audio or video ({source.mime})."
        if refusal is not None:
            self.mark_refused(refusal)
            return
        self._watchdog = QTimer(self)
        self._watchdog.setSingleShot(True)
        self._watchdog.timeout.connect(self._on_watchdog_timeout)
        self._watchdog.start(LOAD_TIMEOUT_MS)
        self._start_player(file)
        if source.mime == "audio/wav":
            self.run_in_background(_waveform_job, self._on_waveform_ready)

    # -- building --------------------------------------------------------------------

    def _build(self) -> QWidget:
        box = QWidget(self)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        if self._video:
            self.stage: QWidget = VideoFrameView(box)
        else:
            self.stage = self._build_audio_card(box)
        layout.addWidget(self.stage, 1)
        self.notice = _plain_label(box, "Media notice")
        self.notice.setWordWrap(True)
        self.notice.setContentsMargins(10, 4, 10, 4)
        self.notice.hide()
        layout.addWidget(self.notice)
        layout.addWidget(self._build_controls(box))
        self.facts_label = _plain_label(box, "Media facts")
        self.facts_label.setContentsMargins(10, 0, 10, 6)
        self.facts_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self.facts_label.setText(self.source.type.description)
        layout.addWidget(self.facts_label)
        return box

    def _build_audio_card(self, parent: QWidget) -> QWidget:
        card = QWidget(parent)
        layout = QVBoxLayout(card)
        layout.setContentsMargins(24, 20, 24, 12)
        title = _plain_label(card, "File name")
        title.setText(self.source.name)
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        title.setFont(font)
        layout.addWidget(title)
        self.waveform = WaveformView(card)
        self.waveform.seekRequested.connect(self._on_waveform_seek_requested)
        layout.addWidget(self.waveform, 1)
        return card

    def _build_controls(self, parent: QWidget) -> QWidget:
        bar = QWidget(parent)
        row = QHBoxLayout(bar)
        row.setContentsMargins(8, 4, 8, 4)
        style = self.style()
        self.play_button = self._button(bar, "Play (Space)")
        self.play_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self.play_button.clicked.connect(self.toggle_playback)
        self.seek_slider = QSlider(Qt.Orientation.Horizontal, bar)
        self.seek_slider.setAccessibleName("Position")
        self.seek_slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.seek_slider.setRange(0, 0)
        self.seek_slider.sliderMoved.connect(self._on_seek_slider_moved)
        self.time_label = _plain_label(bar, "Time")
        self.time_label.setText("0:00 / 0:00")
        self.mute_button = self._button(bar, "Mute (M)")
        self.mute_button.setCheckable(True)
        self.mute_button.setIcon(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaVolume)
        )
        self.mute_button.toggled.connect(self._on_mute_button_toggled)
        self.volume_slider = QSlider(Qt.Orientation.Horizontal, bar)
        self.volume_slider.setAccessibleName("Volume")
        self.volume_slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.volume_slider.setRange(0, 100)
        self.volume_slider.setValue(80)
        self.volume_slider.setMaximumWidth(110)
        self.volume_slider.valueChanged.connect(self._on_volume_slider_value_changed)
        self.time_label.setSizePolicy(
            QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed
        )
        for widget, stretch in (
            (self.play_button, 0),
            (self.seek_slider, 1),
            (self.time_label, 0),
            (self.mute_button, 0),
            (self.volume_slider, 0),
        ):
            row.addWidget(widget, stretch)
        return bar

    def _button(self, parent: QWidget, name: str) -> QToolButton:
        button = QToolButton(parent)
        button.setAccessibleName(name)
        button.setToolTip(name)
        button.setAutoRaise(True)
        # Keys belong to the whole tab (Space plays), not to a focused button.
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        return button

    # -- the player --------------------------------------------------------------------

    def _start_player(self, file: VerifiedFile) -> None:
        device = QFile(self)
        # A duplicate of the checked descriptor: the same open file, never the path.
        fd = os.dup(file.fd)
        if not device.open(
            fd,
            QIODevice.OpenModeFlag.ReadOnly,
            QFileDevice.FileHandleFlag.AutoCloseHandle,
        ):
            os.close(fd)
            self.mark_failed(f"The file cannot be read: {device.errorString()}")
            return
        self._device = device
        player = QMediaPlayer(self)
        self._player = player
        if QMediaDevices.audioOutputs():
            self._audio = QAudioOutput(self)
            self._audio.setVolume(self.volume_slider.value() / 100)
            player.setAudioOutput(self._audio)
        else:
            self.mute_button.setEnabled(False)
            self.volume_slider.setEnabled(False)
        if self._video:
            self._sink = QVideoSink(self)
            self._sink.videoFrameChanged.connect(self._on_sink_video_frame_changed)
            player.setVideoSink(self._sink)
        player.mediaStatusChanged.connect(self._on_player_media_status_changed)
        player.errorOccurred.connect(self._on_player_error_occurred)
        player.durationChanged.connect(self._on_player_duration_changed)
        player.positionChanged.connect(self._on_player_position_changed)
        player.playbackStateChanged.connect(self._on_player_playback_state_changed)
        player.setSourceDevice(device, QUrl(MEDIA_NAMES[self.source.mime]))

    def player(self) -> QMediaPlayer | None:
        return self._player

    def has_audio_output(self) -> bool:
        return self._audio is not None

    def toggle_playback(self) -> None:
        player = self._player
        if player is None or not self.is_loaded():
            return
        if player.playbackState() == QMediaPlayer.PlaybackState.PlayingState:
            player.pause()
        else:
            player.play()

    def seek_by(self, delta_ms: int) -> None:
        if self._player is not None and self.is_loaded():
            target = max(0, min(self._duration, self._player.position() + delta_ms))
            self._player.setPosition(target)

    def release(self) -> None:
        if self.is_released():
            return
        if hasattr(self, "_watchdog"):
            self._watchdog.stop()
        player = self._player
        self._player = None
        if player is not None:
            player.stop()
            player.setSource(QUrl())
            player.setVideoSink(None)  # type: ignore[arg-type]
            player.setAudioOutput(None)  # type: ignore[arg-type]
            player.deleteLater()
        for owned in (self._sink, self._audio):
            if owned is not None:
                owned.deleteLater()
        self._sink = self._audio = None
        if self._device is not None:
            self._device.close()
            self._device = None
        super().release()

    # -- player slots -----------------------------------------------------------------

    def _on_player_media_status_changed(self, status: QMediaPlayer.MediaStatus) -> None:
        player = self._player
        if player is None or self.is_settled() or status not in _READY:
            return
        self._update_facts()
        if self._video:
            # Paused from stopped, the backend decodes and shows the first frame.
            player.pause()
        else:
            self._finish_loading()

    def _finish_loading(self) -> None:
        self._watchdog.stop()
        has_sound = self._player is not None and self._player.hasAudio()
        if self._audio is None and has_sound:
            self._show_notice(NO_AUDIO_DEVICE)
        self.mark_loaded()

    def _on_player_error_occurred(
        self, error: QMediaPlayer.Error, message: str
    ) -> None:
        if error == QMediaPlayer.Error.FormatError:
            reason = (
                "Its format or codec is not supported by the media backend"
                + (f" ({message})" if message else "")
                + "."
            )
        else:
            reason = message or "The media backend reported an error."
        encoding = wav_encoding(self.source.head)
        if encoding is not None and self.source.mime == "audio/wav":
            reason = f"This WAV uses {encoding}, which the media engine cannot play."
        if self.is_loaded():
            self._show_notice(f"Playback stopped: {reason}")
        else:
            self.mark_failed(reason)

    def _on_watchdog_timeout(self) -> None:
        self.mark_failed(f"It did not load within {LOAD_TIMEOUT_MS // 1000} seconds.")

    def _on_sink_video_frame_changed(self, frame: QVideoFrame) -> None:
        if not frame.isValid() or not isinstance(self.stage, VideoFrameView):
            return
        image: QImage = frame.toImage()
        self.stage.set_image(image)
        if not self.is_settled():
            self._finish_loading()

    def _on_player_duration_changed(self, duration: int) -> None:
        self._duration = max(0, duration)
        self.seek_slider.setRange(0, self._duration)
        self._update_time(self._player.position() if self._player else 0)

    def _on_player_position_changed(self, position: int) -> None:
        if not self.seek_slider.isSliderDown():
            self.seek_slider.setValue(position)
        self._update_time(position)
        if not self._video and self._duration:
            self.waveform.set_progress(position / self._duration)

    def _on_player_playback_state_changed(
        self, state: QMediaPlayer.PlaybackState
    ) -> None:
        playing = state == QMediaPlayer.PlaybackState.PlayingState
        icon = (
            QStyle.StandardPixmap.SP_MediaPause
            if playing
            else QStyle.StandardPixmap.SP_MediaPlay
        )
        self.play_button.setIcon(self.style().standardIcon(icon))
        self.play_button.setAccessibleName(
            "Pause (Space)" if playing else "Play (Space)"
        )

    # -- control slots ---------------------------------------------------------------

    def _on_seek_slider_moved(self, position: int) -> None:
        if self._player is not None:
            self._player.setPosition(position)

    def _on_waveform_seek_requested(self, fraction: float) -> None:
        if self._player is not None and self._duration:
            self._player.setPosition(round(fraction * self._duration))

    def _on_mute_button_toggled(self, muted: bool) -> None:
        if self._audio is not None:
            self._audio.setMuted(muted)
        icon = (
            QStyle.StandardPixmap.SP_MediaVolumeMuted
            if muted
            else QStyle.StandardPixmap.SP_MediaVolume
        )
        self.mute_button.setIcon(self.style().standardIcon(icon))

    def _on_volume_slider_value_changed(self, value: int) -> None:
        if self._audio is not None:
            self._audio.setVolume(value / 100)

    def _on_waveform_ready(self, waveform: Waveform | WavError) -> None:
        if isinstance(waveform, WavError):
            encoding = wav_encoding(self.source.head)
            if encoding is not None:
                self.waveform.setToolTip(f"No waveform: this WAV uses {encoding}.")
            return
        self._wav = waveform.facts
        self.waveform.set_peaks(waveform.peaks)
        self._update_facts()

    # -- keys and text ---------------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == Qt.Key.Key_Space:
            self.toggle_playback()
        elif key == Qt.Key.Key_Left:
            self.seek_by(-SEEK_STEP_MS)
        elif key == Qt.Key.Key_Right:
            self.seek_by(SEEK_STEP_MS)
        elif key == Qt.Key.Key_M and self.mute_button.isEnabled():
            self.mute_button.toggle()
        elif key == Qt.Key.Key_Up:
            self.volume_slider.setValue(self.volume_slider.value() + 10)
        elif key == Qt.Key.Key_Down:
            self.volume_slider.setValue(self.volume_slider.value() - 10)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def _show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.show()

    def notice_text(self) -> str:
        return self.notice.text() if self.notice.isVisibleTo(self) else ""

    def _update_time(self, position: int) -> None:
        self.time_label.setText(
            f"{format_time(position)} / {format_time(self._duration)}"
        )

    def facts_text(self) -> str:
        return self.facts_label.text()

    def _update_facts(self) -> None:
        parts: list[str] = []
        seen: set[str] = set()
        if self._player is not None:
            data = self._player.metaData()
            parts.append(f"Duration {format_time(self._player.duration())}")
            for key, suffix in (
                (QMediaMetaData.Key.FileFormat, ""),
                (QMediaMetaData.Key.VideoCodec, " video"),
                (QMediaMetaData.Key.Resolution, ""),
                (QMediaMetaData.Key.VideoFrameRate, " fps"),
                (QMediaMetaData.Key.AudioCodec, " audio"),
            ):
                text = data.stringValue(key).strip()
                if text and text not in seen:
                    seen.add(text)
                    parts.append(text.replace(" x ", " \u00d7 ") + suffix)
        if self._wav is not None:
            wav = self._wav
            channels = {1: "mono", 2: "stereo"}.get(wav.channels, f"{wav.channels} ch")
            parts.append(f"{wav.sample_rate:,} Hz, {channels}, {wav.bits}-bit PCM")
        if parts:
            self.facts_label.setText("  ·  ".join(parts))
