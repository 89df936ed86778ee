"""Views for the media tab: the current video frame and an audio waveform."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget


def format_time(milliseconds: int) -> str:
    """ "0:01", "12:04", "1:02:03"."""
    seconds = max(0, milliseconds) // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"


class VideoFrameView(QWidget):
    """Paints the latest video frame, letterboxed on black.

    A painted image rather than a native video surface: it shows in a
    screenshot and needs no GPU window, at the cost of a copy per frame.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._image = QImage()
        self.setAccessibleName("Video")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_image(self, image: QImage) -> None:
        self._image = image
        self.update()

    def image(self) -> QImage:
        return self._image

    def sizeHint(self) -> QSize:
        return QSize(640, 360)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(0, 0, 0))
        if self._image.isNull():
            return
        size = self._image.size().scaled(
            self.size(), Qt.AspectRatioMode.KeepAspectRatio
        )
        x = (self.width() - size.width()) / 2
        y = (self.height() - size.height()) / 2
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.drawImage(QRectF(x, y, size.width(), size.height()), self._image)


class WaveformView(QWidget):
    """Peaks of an audio file with the played part highlighted; a click seeks.

    Signals:
        seekRequested(float): the user clicked at this fraction of the length.
    """

    seekRequested = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._peaks: tuple[tuple[float, float], ...] = ()
        self._progress = 0.0
        self.setAccessibleName("Waveform")
        self.setMinimumHeight(80)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_peaks(self, peaks: tuple[tuple[float, float], ...]) -> None:
        self._peaks = peaks
        self.update()

    def peaks(self) -> tuple[tuple[float, float], ...]:
        return self._peaks

    def set_progress(self, fraction: float) -> None:
        self._progress = max(0.0, min(1.0, fraction))
        self.update()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self._peaks and self.width() > 0:
            self.seekRequested.emit(
                max(0.0, min(1.0, event.position().x() / self.width()))
            )
        event.accept()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.color(QPalette.ColorRole.Base))
        middle = self.height() / 2
        if not self._peaks:
            painter.setPen(palette.color(QPalette.ColorRole.Mid))
            painter.drawLine(QPointF(0, middle), QPointF(self.width(), middle))
            return
        played = palette.color(QPalette.ColorRole.Highlight)
        rest = palette.color(QPalette.ColorRole.PlaceholderText)
        count = len(self._peaks)
        half = middle * 0.92
        for x in range(self.width()):
            low, high = self._peaks[min(count - 1, x * count // max(1, self.width()))]
            painter.setPen(played if x <= self._progress * self.width() else rest)
            painter.drawLine(
                QPointF(x + 0.5, middle - high * half),
                QPointF(x + 0.5, middle - low * half),
            )
