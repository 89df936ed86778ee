"""A zoomable, pannable image canvas with a checkerboard behind transparency."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QKeyEvent,
    QNativeGestureEvent,
    QPainter,
    QPalette,
    QPixmap,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QGestureEvent,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsView,
    QPinchGesture,
    QWidget,
)

MIN_ZOOM = 0.01
MAX_ZOOM = 32.0
ZOOM_STEP = 1.25
_CHECKER = 8  # screen pixels per checkerboard square


def _checker_brush() -> QBrush:
    tile = QPixmap(2 * _CHECKER, 2 * _CHECKER)
    tile.fill(QColor(0xFF, 0xFF, 0xFF))
    painter = QPainter(tile)
    grey = QColor(0xCC, 0xCC, 0xCC)
    painter.fillRect(0, 0, _CHECKER, _CHECKER, grey)
    painter.fillRect(_CHECKER, _CHECKER, _CHECKER, _CHECKER, grey)
    painter.end()
    return QBrush(tile)


class ImageCanvasView(QGraphicsView):
    """Shows one picture; fit to window by default, zoom, pan by dragging.

    The scene is in full-size image pixels: a pixmap decoded smaller is scaled
    up to that size, so zoom means the same whatever resolution is loaded.
    A wheel with Ctrl zooms; a plain wheel zooms when there is nothing to
    scroll and scrolls otherwise. Pinch gestures zoom.

    Signals:
        zoomChanged(float): screen pixels per image pixel, after any change.
        moved(): the view scrolled over the image.

    Zoomed far into a large image, a sharp ``detail`` of just the part on
    screen lies over the coarser whole-image pixmap.
    """

    zoomChanged = Signal(float)
    moved = Signal()
    """The shown part of the image moved (scrolled or dragged)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self._item = QGraphicsPixmapItem()
        self._item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self.scene().addItem(self._item)
        self._detail = QGraphicsPixmapItem()
        self._detail.setZValue(1)
        self._detail.hide()
        self._detail_rect = QRect()
        self.scene().addItem(self._detail)
        self._full = QSize()
        self._fit = True
        self._checker = _checker_brush()
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Image")
        self.viewport().grabGesture(Qt.GestureType.PinchGesture)
        self.horizontalScrollBar().valueChanged.connect(self.moved)
        self.verticalScrollBar().valueChanged.connect(self.moved)

    # -- content -------------------------------------------------------------------

    def set_image_size(self, width: int, height: int) -> None:
        """The full (oriented) size; a placeholder of that size shows at once."""
        self._full = QSize(width, height)
        self.scene().setSceneRect(QRectF(0, 0, width, height))
        if self._fit:
            self._apply_fit()

    def image_size(self) -> QSize:
        return QSize(self._full)

    def set_pixmap(self, pixmap: QPixmap) -> None:
        """Show ``pixmap``, stretched to the full size whatever it was decoded at."""
        self._item.setPixmap(pixmap)
        if pixmap.width() > 0 and self._full.width() > 0:
            self._item.setScale(self._full.width() / pixmap.width())
        self._update_smoothing()

    def pixmap(self) -> QPixmap:
        return self._item.pixmap()

    def set_detail(self, pixmap: QPixmap, rect: QRect) -> None:
        """Lay ``pixmap`` over ``rect`` (full-size image pixels) of the image."""
        if pixmap.isNull() or rect.isEmpty():
            self.clear_detail()
            return
        self._detail.setPixmap(pixmap)
        self._detail.setPos(rect.topLeft())
        self._detail.setScale(rect.width() / pixmap.width())
        self._detail_rect = QRect(rect)
        self._detail.show()
        self._update_smoothing()

    def clear_detail(self) -> None:
        self._detail.hide()
        self._detail.setPixmap(QPixmap())
        self._detail_rect = QRect()

    def detail(self) -> tuple[QPixmap, QRect]:
        """The detail shown now and the part of the image it covers."""
        return self._detail.pixmap(), QRect(self._detail_rect)

    def visible_image_rect(self) -> QRect:
        """The part of the image on screen, in full-size image pixels."""
        shown = self.mapToScene(self.viewport().rect()).boundingRect()
        whole = QRectF(0, 0, self._full.width(), self._full.height())
        return shown.intersected(whole).toAlignedRect().intersected(whole.toRect())

    def _update_smoothing(self) -> None:
        for item in (self._item, self._detail):
            # Enlarged past the pixels it has, an image shows its pixels, not a blur.
            smooth = self.zoom() * item.scale() <= 1.0
            item.setTransformationMode(
                Qt.TransformationMode.SmoothTransformation
                if smooth
                else Qt.TransformationMode.FastTransformation
            )

    # -- zoom ----------------------------------------------------------------------

    def zoom(self) -> float:
        """Screen pixels (device independent) per full-size image pixel."""
        return self.transform().m11()

    def is_fit(self) -> bool:
        return self._fit

    def fit_to_window(self) -> None:
        self._fit = True
        self._apply_fit()

    def set_zoom(self, factor: float) -> None:
        self._fit = False
        self._set_scale(factor)

    def zoom_by(self, factor: float) -> None:
        self.set_zoom(self.zoom() * factor)

    def needed_size(self) -> QSize:
        """The decoded size that shows the image sharply at the current zoom."""
        ratio = self.devicePixelRatioF() * self.zoom()
        width = min(self._full.width(), round(self._full.width() * ratio))
        height = min(self._full.height(), round(self._full.height() * ratio))
        return QSize(max(1, width), max(1, height))

    def _fit_factor(self) -> float:
        if self._full.isEmpty():
            return 1.0
        area = self.viewport().size()
        fit = min(
            area.width() / self._full.width(), area.height() / self._full.height()
        )
        return min(1.0, fit)  # small images show at their own size, not blown up

    def _apply_fit(self) -> None:
        self._set_scale(self._fit_factor())

    def _set_scale(self, factor: float) -> None:
        factor = max(MIN_ZOOM, min(MAX_ZOOM, factor))
        if abs(factor - self.zoom()) < 1e-9:
            return
        self.setTransform(QTransform.fromScale(factor, factor))
        self.set_pixmap(self._item.pixmap())
        self.zoomChanged.emit(factor)

    # -- events --------------------------------------------------------------------

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)  # type: ignore[arg-type]
        if self._fit:
            self._apply_fit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        control = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        scrollable = (
            self.horizontalScrollBar().maximum() > 0
            or self.verticalScrollBar().maximum() > 0
        )
        steps = event.angleDelta().y() / 120
        if (control or not scrollable) and steps:
            self.zoom_by(ZOOM_STEP**steps)
            event.accept()
            return
        super().wheelEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        control = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        if control and key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom_by(ZOOM_STEP)
        elif control and key == Qt.Key.Key_Minus:
            self.zoom_by(1 / ZOOM_STEP)
        elif control and key == Qt.Key.Key_0:
            self.fit_to_window()
        elif key == Qt.Key.Key_1 and not control:
            self.set_zoom(1.0)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Gesture and isinstance(event, QGestureEvent):
            pinch = event.gesture(Qt.GestureType.PinchGesture)
            if isinstance(pinch, QPinchGesture):
                changed = pinch.changeFlags()
                if changed & QPinchGesture.ChangeFlag.ScaleFactorChanged:
                    self.zoom_by(pinch.scaleFactor())
                event.accept()
                return True
        if (
            event.type() == QEvent.Type.NativeGesture
            and isinstance(event, QNativeGestureEvent)
            and event.gestureType() == Qt.NativeGestureType.ZoomNativeGesture
        ):
            self.zoom_by(1.0 + event.value())
            return True
        return super().viewportEvent(event)

    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        painter.fillRect(
            rect, self.palette().color(QPalette.ColorRole.Window).darker(104)
        )
        image = self.sceneRect().intersected(QRectF(rect))
        if image.isEmpty() or self._full.isEmpty():
            return
        # Squares keep their screen size whatever the zoom: undo the view's scale.
        brush = QBrush(self._checker)
        scale = self.zoom() or 1.0
        brush.setTransform(QTransform.fromScale(1 / scale, 1 / scale))
        painter.fillRect(image, brush)

    def centre_point(self) -> QPointF:
        return self.mapToScene(self.viewport().rect().center())
