"""The image preview: header facts first, then a decode sized to the view."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QImage, QImageReader, QMovie, QPalette, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.core.filetype.sizes import counted, human_size
from app.core.trust.safeio import VerifiedFile
from app.formats.image_facts import (
    ImageDataError,
    ImageFacts,
    ImageFormat,
    ReadAtStream,
    decode_scaled,
    format_for_mime,
    megapixels,
    pixel_refusal,
    read_facts,
)
from previewers.context import STANDALONE, PreviewContext
from previewers.image.canvas import ZOOM_STEP, ImageCanvasView
from previewers.qimage import to_qimage
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget

DECODE_FLOOR = 1280
"""A fit-to-window decode is at least this many pixels on its long side, so a
tab that grows a little need not decode again."""

_REDECODE_DELAY_MS = 150
DETAIL_PIXELS = 16 * 1024 * 1024
"""Past this many pixels for the whole image at the current zoom, only the
part on screen is decoded, at that zoom (a ``detail``), over the whole image
kept at the size it had."""
_DETAIL_MARGIN = 0.25
"""The detail reaches this share of the screen past each edge, so a small
pan needs no new decode."""


@dataclass(frozen=True)
class _Region:
    image: QImage
    rect: QRect
    generation: int


def decode_region(data: bytes, fmt: ImageFormat, rect: QRect, size: QSize) -> QImage:
    """The ``rect`` (full-size pixels) of an image, decoded at ``size``.

    ``QImageReader`` applies the clip before the scaling. JPEG clips and scales
    while decoding (libjpeg), so no pixel outside ``rect`` is ever kept; other
    formats are decoded whole by the reader, then cut.
    """
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer, QByteArray(fmt.decoder))
    reader.setAutoTransform(False)
    reader.setClipRect(rect)
    reader.setScaledSize(size)
    image = reader.read()
    buffer.close()
    if image.isNull():
        raise ImageDataError(f"The {fmt.label} data is damaged or truncated")
    return image


@dataclass(frozen=True)
class _Decoded:
    image: QImage
    decoded_width: int
    full: tuple[int, int]
    data: bytes
    generation: int


def _facts_job(fmt: ImageFormat) -> object:
    def job(file: VerifiedFile, cancelled: threading.Event) -> ImageFacts:
        stream = ReadAtStream(file.read, file.identity.size)
        return read_facts(stream, fmt)  # type: ignore[arg-type]

    return job


class ImagePreviewWidget(PreviewWidget):
    """Info strip and tools above an ``ImageCanvasView``; animations play.

    Loading: the header's facts (no decoding) give the size and the bomb check,
    then a background decode at the size the view needs; zooming past it
    decodes again, larger, in the background.

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
        fmt = format_for_mime(source.mime)
        if fmt is None:
            raise ValueError(f"not an image format: {source.mime}")
        self._format = fmt
        self._facts: ImageFacts | None = None
        self._data: bytes | None = None
        self._decoded_width = 0
        self._generation = 0
        self._decoding = False
        self._detail_failed = False
        self._movie: QMovie | None = None
        self._movie_buffer: QBuffer | None = None
        self.set_content(self._build())
        self._redecode_timer = QTimer(self)
        self._redecode_timer.setSingleShot(True)
        self._redecode_timer.setInterval(_REDECODE_DELAY_MS)
        self._redecode_timer.timeout.connect(self._on_redecode_timer_timeout)
        self.run_in_background(_facts_job(fmt), self._on_facts_ready)  # type: ignore[arg-type]

    def _build(self) -> QWidget:
        box = QWidget(self)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        strip = QWidget(box)
        strip.setAutoFillBackground(True)
        strip.setBackgroundRole(QPalette.ColorRole.Window)
        row = QHBoxLayout(strip)
        row.setContentsMargins(8, 3, 8, 3)
        self.info = QLabel(f"{self._format.label} image", strip)
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.info.setAccessibleName("Image facts")
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.info, 1)
        self.play_button = self._tool("Pause", "Play or pause the animation", row)
        self.play_button.setCheckable(True)
        self.play_button.hide()
        self.play_button.toggled.connect(self._on_play_button_toggled)
        self.fit_button = self._tool("Fit", "Fit to window (Ctrl+0)", row)
        self.fit_button.clicked.connect(self.zoom_reset)
        self.actual_button = self._tool("100 %", "Actual size (1)", row)
        self.actual_button.clicked.connect(self._on_actual_button_clicked)
        self._tool("\u2212", "Zoom out (Ctrl+\u2212)", row).clicked.connect(
            self.zoom_out
        )
        self._tool("+", "Zoom in (Ctrl++)", row).clicked.connect(self.zoom_in)
        layout.addWidget(strip)
        self.view = ImageCanvasView(box)
        self.view.zoomChanged.connect(self._on_view_zoom_changed)
        self.view.moved.connect(self._on_view_moved)
        layout.addWidget(self.view, 1)
        return box

    def _tool(self, text: str, tip: str, row: QHBoxLayout) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setAutoRaise(True)
        row.addWidget(button)
        return button

    # -- public hooks ----------------------------------------------------------------

    def facts(self) -> ImageFacts | None:
        return self._facts

    def decoded_size(self) -> QSize:
        """The size of the pixels held now (smaller than the image when scaled)."""
        return self.view.pixmap().size()

    def movie(self) -> QMovie | None:
        return self._movie

    def zoom_in(self) -> None:
        self.view.zoom_by(ZOOM_STEP)

    def zoom_out(self) -> None:
        self.view.zoom_by(1 / ZOOM_STEP)

    def zoom_reset(self) -> None:
        self.view.fit_to_window()

    def release(self) -> None:
        self._redecode_timer.stop()
        if self._movie is not None:
            self._movie.stop()
            self._movie.deleteLater()
            self._movie = None
        if self._movie_buffer is not None:
            self._movie_buffer.close()
            self._movie_buffer = None
        self._data = None
        self.view.set_pixmap(QPixmap())
        super().release()

    # -- loading ---------------------------------------------------------------------

    def _on_facts_ready(self, facts: ImageFacts) -> None:
        self._facts = facts
        refusal = pixel_refusal(facts)
        if refusal is not None:
            # Before the canvas takes the size: a header may claim sizes no
            # scene (or QSize) can hold.
            self._update_info()
            self.mark_refused(refusal)
            return
        width, height = facts.display_size
        self.view.set_image_size(width, height)
        self._update_info()
        if facts.animated:
            self.run_in_background(_read_all, self._on_animation_read)
        else:
            self._start_decode()

    def _decode_bound(self) -> tuple[int, int]:
        needed = self.view.needed_size()
        floor = DECODE_FLOOR
        return max(needed.width(), floor), max(needed.height(), floor)

    def _start_decode(self) -> None:
        self._generation += 1
        self._decoding = True
        generation, fmt, bound, data = (
            self._generation,
            self._format,
            self._decode_bound(),
            self._data,
        )

        def job(file: VerifiedFile, cancelled: threading.Event) -> _Decoded:
            raw = data if data is not None else file.read(-1, 0)
            decoded = decode_scaled(raw, fmt, bound)
            full = (decoded.full_width, decoded.full_height)
            return _Decoded(to_qimage(decoded), decoded.width, full, raw, generation)

        self.run_in_background(job, self._on_decode_finished)

    def _on_decode_finished(self, result: _Decoded) -> None:
        self._decoding = False
        self._data = result.data
        if result.generation != self._generation:
            return  # a later decode was asked for; its result will come
        self._decoded_width = result.decoded_width
        self.view.set_pixmap(QPixmap.fromImage(result.image))
        self._update_info()
        self.mark_loaded()
        self._schedule_redecode()

    def _wants_detail(self) -> bool:
        """Whether the current zoom needs more pixels than a whole decode may hold."""
        facts = self._facts
        if facts is None or facts.animated or facts.orientation != 1:
            return False  # a turned image is clipped in stored pixels: not done
        if self._detail_failed:
            return False
        needed = self.view.needed_size()
        return needed.width() * needed.height() > DETAIL_PIXELS

    def _detail_target(self) -> tuple[QRect, QSize]:
        """The part of the image to decode as a detail now, and its decoded size."""
        shown = self.view.visible_image_rect()
        margin_x = round(shown.width() * _DETAIL_MARGIN)
        margin_y = round(shown.height() * _DETAIL_MARGIN)
        full = self.view.image_size()
        rect = shown.adjusted(-margin_x, -margin_y, margin_x, margin_y).intersected(
            QRect(0, 0, full.width(), full.height())
        )
        ratio = min(1.0, self.view.devicePixelRatioF() * self.view.zoom())
        size = QSize(
            max(1, round(rect.width() * ratio)), max(1, round(rect.height() * ratio))
        )
        return rect, size

    def _detail_is_current(self) -> bool:
        """Whether the detail shown covers the screen, sharp at this zoom."""
        pixmap, rect = self.view.detail()
        if pixmap.isNull() or not rect.contains(self.view.visible_image_rect()):
            return False
        wanted = min(1.0, self.view.devicePixelRatioF() * self.view.zoom())
        return pixmap.width() / rect.width() >= wanted * 0.95

    def _schedule_redecode(self) -> None:
        if self._facts is None or self._facts.animated or not self.is_loaded():
            return
        if self._wants_detail():
            if not self._detail_is_current():
                self._redecode_timer.start()
            return
        self.view.clear_detail()
        full_width = self._facts.display_size[0]
        if self._decoded_width < full_width and (
            self.view.needed_size().width() > self._decoded_width * 1.05
        ):
            self._redecode_timer.start()

    def _on_redecode_timer_timeout(self) -> None:
        if self.is_released() or self._decoding:
            return
        if self._wants_detail():
            self._start_region_decode()
        else:
            self._start_decode()

    def _start_region_decode(self) -> None:
        self._generation += 1
        self._decoding = True
        generation, fmt, data = self._generation, self._format, self._data
        rect, size = self._detail_target()

        def job(file: VerifiedFile, cancelled: threading.Event) -> _Region:
            raw = data if data is not None else file.read(-1, 0)
            try:
                image = decode_region(raw, fmt, rect, size)
            except ImageDataError:  # the whole-image pixmap stays; no retry
                image = QImage()
            return _Region(image, rect, generation)

        self.run_in_background(job, self._on_region_decoded)

    def _on_region_decoded(self, result: _Region) -> None:
        self._decoding = False
        if result.generation != self._generation:
            return
        if result.image.isNull():
            self._detail_failed = True
            return
        if self._wants_detail():
            self.view.set_detail(QPixmap.fromImage(result.image), result.rect)
        self._schedule_redecode()  # the view may have moved on meanwhile

    def _on_view_moved(self) -> None:
        self._schedule_redecode()

    def _on_animation_read(self, data: bytes) -> None:
        self._data = data
        self._movie_buffer = QBuffer(self)
        self._movie_buffer.setData(QByteArray(data))
        self._movie_buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        # The format is fixed from the magic bytes; content never picks a decoder.
        qt_format = self._format.pillow.lower().encode("ascii")
        movie = QMovie(self._movie_buffer, QByteArray(qt_format), self)
        self._movie = movie
        if not movie.isValid():
            self.mark_failed(f"The {self._format.label} data is damaged or truncated")
            return
        movie.frameChanged.connect(self._on_movie_frame_changed)
        movie.error.connect(self._on_movie_error)
        self.play_button.show()
        self.play_button.setChecked(True)

    def _on_movie_frame_changed(self, _frame: int) -> None:
        if self._movie is None:
            return
        pixmap = self._movie.currentPixmap()
        self._decoded_width = pixmap.width()
        self.view.set_pixmap(pixmap)
        self.mark_loaded()

    def _on_movie_error(self, _error: object) -> None:
        movie = self._movie
        if movie is not None and movie.state() == QMovie.MovieState.Running:
            # Qt's reader reports the end of the data on every loop while the
            # movie goes on from its first frame: not damage.
            return
        reason = f"The {self._format.label} data is damaged or truncated"
        if self.is_loaded():
            self.info.setText(f"{self.info.text()} · stopped: {reason}")
            self.play_button.setChecked(False)
        else:
            self.mark_failed(reason)

    # -- slots -----------------------------------------------------------------------

    def _on_play_button_toggled(self, playing: bool) -> None:
        self.play_button.setText("Pause" if playing else "Play")
        if self._movie is None:
            return
        if playing:
            if self._movie.state() == QMovie.MovieState.Paused:
                self._movie.setPaused(False)
            else:
                self._movie.start()
        else:
            self._movie.setPaused(True)

    def _on_actual_button_clicked(self) -> None:
        self.view.set_zoom(1.0)

    def _on_view_zoom_changed(self, _zoom: float) -> None:
        self._update_info()
        self._schedule_redecode()

    def _update_info(self) -> None:
        facts = self._facts
        if facts is None:
            return
        width, height = facts.display_size
        parts = [
            f"{width} \u00d7 {height} pixels ({megapixels(facts.pixels)})",
            facts.format.label,
            human_size(self.source.identity.size),
        ]
        if facts.animated:
            parts.append(counted(facts.frames, "frame"))
        if facts.orientation != 1:
            parts.append(f"EXIF orientation {facts.orientation} applied")
        fit = " (fit)" if self.view.is_fit() else ""
        parts.append(f"{self.view.zoom() * 100:.0f} %{fit}")
        self.info.setText("  ·  ".join(parts))


def _read_all(file: VerifiedFile, cancelled: threading.Event) -> bytes:
    return file.read(-1, 0)
