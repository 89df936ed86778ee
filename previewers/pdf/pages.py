"""The pages of a PDF in one continuous column, virtualized: widgets only in view.

Only the pages in view (and one on either side) are asked of the render
thread; their images sit in a small cache bounded by bytes, and a result for a
zoom the view has left is dropped. Links and the text under a drag come from
the render thread too; this module only decides what a click or a drag means.
"""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal, Slot
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QImage,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShortcut,
    QWheelEvent,
)
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

from app.formats.pdf_doc import (
    Box,
    DocumentInfo,
    LinkAction,
    PageLayout,
    PdfLink,
    Word,
    normalized,
    selected_text,
    selected_words,
)
from previewers.pdf.render import (
    PageFailed,
    PageRendered,
    PdfSession,
    RenderRequest,
    WordsReady,
)
from previewers.widgets import plain_tooltip

CACHE_BYTES = 64 << 20
"""Rendered pages kept for scrolling back, least recently used dropped first."""

ZOOM_STEPS: tuple[float, ...] = (0.25, 0.33, 0.5, 0.67, 0.75, 0.9, 1.0, 1.1, 1.25)
ZOOM_STEPS += (1.5, 1.75, 2.0, 2.5, 3.0, 4.0)
BLOCKED_NOTICE = "This link opens a program or another file and is not followed"
FIT_WIDTH, FIT_PAGE, CUSTOM = "width", "page", "custom"


class PdfPageWidget(QWidget):
    """One visible page: its image (or a placeholder) and highlights.

    Signals: none; mouse input goes to the pages view.
    """

    def __init__(self, view: PdfPagesView) -> None:
        super().__init__(view.viewport())
        self._view = view
        self.page = -1
        self.setMouseTracking(True)

    def show_page(self, page: int, count: int) -> None:
        if page != self.page:
            self.page = page
            self.setAccessibleName(f"Page {page + 1} of {count}")
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        self._view.paint_page(painter, self.page, QRectF(self.rect()))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._view.page_mouse(self, event, "press")

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self._view.page_mouse(self, event, "move")

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._view.page_mouse(self, event, "release")


class PdfPagesView(QAbstractScrollArea):
    """A continuous column of pages; only pages in view exist as widgets.

    Signals:
        currentPageChanged(int): the page at the top of the view, from 0.
        zoomChanged(float): the zoom (1.0 is 72 pixels per inch).
        linkClicked(object): a ``PdfLink`` that was clicked.
    """

    currentPageChanged = Signal(int)
    zoomChanged = Signal(float)
    linkClicked = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Pages")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.session: PdfSession | None = None
        self.sizes: tuple[tuple[float, float], ...] = ()
        self.zoom = 1.0
        self.fit = FIT_WIDTH
        self.generation = 0
        self.layout_ = PageLayout((), 1.0)
        self.cache: OrderedDict[tuple[int, int], QImage] = OrderedDict()
        self.cache_bytes = 0
        self.links: dict[int, tuple[PdfLink, ...]] = {}
        self.failures: dict[int, str] = {}
        self.words: dict[int, tuple[Word, ...]] = {}
        self.matches: dict[int, list[Box]] = {}
        self.current_match: tuple[int, Box] | None = None
        self.selection: tuple[int, Box] | None = None
        self._widgets: list[PdfPageWidget] = []
        self._visible: range = range(0)
        self._current = -1
        self._press: tuple[int, QPointF] | None = None
        self._dragging = False
        # Always on: a bar that comes and goes would change the fitted width.
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.viewport().setAutoFillBackground(True)
        self.viewport().setBackgroundRole(self.backgroundRole())
        copy = QShortcut(QKeySequence(QKeySequence.StandardKey.Copy), self)
        copy.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        copy.activated.connect(self.copy_selection)

    # -- document and zoom ---------------------------------------------------

    def set_document(self, session: PdfSession, info: DocumentInfo) -> None:
        self.session = session
        self.sizes = info.page_sizes
        self._relayout(keep_position=False)

    @property
    def page_count(self) -> int:
        return len(self.sizes)

    def set_fit(self, fit: str) -> None:
        self.fit = fit
        self._relayout()

    def set_zoom(self, zoom: float) -> None:
        self.fit = CUSTOM
        self.zoom = min(max(zoom, ZOOM_STEPS[0]), ZOOM_STEPS[-1])
        self._relayout()

    def step_zoom(self, direction: int) -> None:
        if direction > 0:
            steps = [z for z in ZOOM_STEPS if z > self.zoom + 1e-3]
            self.set_zoom(steps[0] if steps else ZOOM_STEPS[-1])
        else:
            steps = [z for z in ZOOM_STEPS if z < self.zoom - 1e-3]
            self.set_zoom(steps[-1] if steps else ZOOM_STEPS[0])

    def _fitted_zoom(self) -> float:
        if not self.sizes or self.fit == CUSTOM:
            return self.zoom
        room = self.viewport().size() - QSize(2 * self.layout_.gap, 0)
        widest = max(w for w, _ in self.sizes)
        zoom = max(room.width(), 50) / widest
        if self.fit == FIT_PAGE:
            height = self.sizes[min(max(self._current, 0), self.page_count - 1)][1]
            tall = max(self.viewport().height() - 2 * self.layout_.gap, 50)
            zoom = min(zoom, tall / height)
        return min(max(zoom, 0.1), ZOOM_STEPS[-1])

    def _relayout(self, keep_position: bool = True) -> None:
        anchor = self._anchor() if keep_position and self.layout_.tops else None
        zoom = self._fitted_zoom()
        if abs(zoom - self.layout_.zoom) > 1e-4 or len(self.layout_.tops) != len(
            self.sizes
        ):
            self.generation += 1  # renders for the old zoom are now stale
        self.zoom = zoom
        self.layout_ = PageLayout(self.sizes, zoom)
        self.verticalScrollBar().setRange(
            0, max(self.layout_.height - self.viewport().height(), 0)
        )
        self.verticalScrollBar().setPageStep(self.viewport().height())
        self.verticalScrollBar().setSingleStep(40)
        self.horizontalScrollBar().setRange(
            0, max(self.layout_.width - self.viewport().width(), 0)
        )
        self.horizontalScrollBar().setPageStep(self.viewport().width())
        if anchor is not None:
            page, fraction = anchor
            top = self.layout_.tops[page] + fraction * self.layout_.sizes[page][1]
            self.verticalScrollBar().setValue(round(top))
        self.zoomChanged.emit(self.zoom)
        self._update_pages()

    def _anchor(self) -> tuple[int, float]:
        top = self.verticalScrollBar().value()
        page = self.layout_.page_at(top)
        height = max(self.layout_.sizes[page][1], 1)
        return page, (top - self.layout_.tops[page]) / height

    # -- what is in view ---------------------------------------------------------

    def page_rect(self, page: int) -> QRectF:
        """The page's rectangle in viewport coordinates."""
        width, height = self.layout_.sizes[page]
        room = self.viewport().width()
        if self.layout_.width <= room:
            x = (room - width) // 2
        else:
            x = self.layout_.gap - self.horizontalScrollBar().value()
        y = self.layout_.tops[page] - self.verticalScrollBar().value()
        return QRectF(x, y, width, height)

    def visible_pages(self) -> range:
        return self._visible

    def _update_pages(self) -> None:
        top = self.verticalScrollBar().value()
        visible = self.layout_.visible(top, top + self.viewport().height())
        self._visible = visible
        while len(self._widgets) < len(visible):
            self._widgets.append(PdfPageWidget(self))
        for index, widget in enumerate(self._widgets):
            if index < len(visible):
                page = visible[index]
                widget.setGeometry(self.page_rect(page).toRect())
                widget.show_page(page, self.page_count)
                widget.show()
            else:
                widget.hide()
        current = self.layout_.page_at(top + self.viewport().height() // 4)
        if visible and current != self._current:
            self._current = current
            self.currentPageChanged.emit(current)
        self._request_renders()

    def _scale(self) -> float:
        return self.zoom * self.devicePixelRatioF()

    def _request_renders(self) -> None:
        if self.session is None or not self._visible:
            return
        scale = self._scale()
        first = max(self._visible.start - 1, 0)
        last = min(self._visible.stop + 1, self.page_count)
        # Pages in view first, then the neighbours.
        order = [
            *self._visible,
            *(p for p in range(first, last) if p not in self._visible),
        ]
        wanted = [
            RenderRequest(page, scale, self.generation)
            for page in order
            if (page, round(scale * 1000)) not in self.cache
            and page not in self.failures
        ]
        self.session.want(wanted)

    def current_page(self) -> int:
        return max(self._current, 0)

    def go_to(self, page: int, y: float | None = None) -> None:
        page = min(max(page, 0), self.page_count - 1)
        offset = (
            round(y * self.zoom) - self.layout_.gap if y else -self.layout_.gap // 2
        )
        self.verticalScrollBar().setValue(self.layout_.tops[page] + offset)
        self._current = -1
        self._update_pages()

    def show_box(self, page: int, box: Box) -> None:
        """Scroll so that ``box`` on ``page`` is in view."""
        top = self.layout_.tops[page] + round(box[1] * self.zoom)
        bar = self.verticalScrollBar()
        if not bar.value() <= top <= bar.value() + self.viewport().height() - 40:
            bar.setValue(top - self.viewport().height() // 3)
        self.viewport().update()
        for widget in self._widgets:
            widget.update()

    # -- results from the render thread -----------------------------------------

    def add_render(self, result: PageRendered) -> None:
        request = result.request
        if request.generation != self.generation:
            return  # drawn for a zoom the view has left
        key = (request.page, round(request.scale * 1000))
        image = result.image
        image.setDevicePixelRatio(request.scale / self.zoom)
        self.cache[key] = image
        self.cache_bytes += image.sizeInBytes()
        self.links[request.page] = result.links
        self._trim_cache()
        self._repaint_page(request.page)

    def add_failure(self, result: PageFailed) -> None:
        if result.request.generation == self.generation:
            self.failures[result.request.page] = result.reason
            self._repaint_page(result.request.page)

    def _trim_cache(self) -> None:
        keep = set(self._visible)
        for key in list(self.cache):
            if self.cache_bytes <= CACHE_BYTES:
                break
            if key[0] not in keep:  # never drop what is on screen
                self.cache_bytes -= self.cache.pop(key).sizeInBytes()

    def _repaint_page(self, page: int) -> None:
        for widget in self._widgets:
            if widget.page == page and widget.isVisible():
                widget.update()

    def has_image(self, page: int) -> bool:
        return (page, round(self._scale() * 1000)) in self.cache

    def _image_for(self, page: int) -> QImage | None:
        key = (page, round(self._scale() * 1000))
        image = self.cache.get(key)
        if image is not None:
            self.cache.move_to_end(key)
            return image
        # While the sharp one renders, any other zoom of the page will do.
        return next((im for (p, _), im in self.cache.items() if p == page), None)

    # -- painting ----------------------------------------------------------------

    def paint_page(self, painter: QPainter, page: int, rect: QRectF) -> None:
        if page < 0:
            return
        painter.fillRect(rect, QColor("white"))
        image = self._image_for(page)
        if image is not None:
            painter.drawImage(rect, image)
        else:
            painter.setPen(QColor(120, 120, 120))
            text = self.failures.get(page)
            label = f"Page {page + 1} could not be drawn: {text}" if text else ""
            painter.drawText(
                rect,
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                label or f"Page {page + 1}",
            )
        painter.setPen(self.palette().color(self.palette().ColorRole.Mid))
        painter.drawRect(rect.adjusted(0, 0, -1, -1))
        zoom = self.zoom
        for box in self.matches.get(page, ()):
            current = self.current_match == (page, box)
            colour = QColor(255, 140, 0, 120) if current else QColor(255, 220, 0, 100)
            painter.fillRect(_scaled(box, zoom), colour)
        if self.selection is not None and self.selection[0] == page:
            highlight = QColor(self.palette().highlight().color())
            highlight.setAlpha(90)
            for word in selected_words(self.words.get(page, ()), self.selection[1]):
                painter.fillRect(_scaled(word.box, zoom), highlight)

    # -- mouse: links and selection ---------------------------------------------

    def _link_at(self, page: int, point: QPointF) -> PdfLink | None:
        for link in self.links.get(page, ()):
            x0, y0, x1, y1 = link.box
            if x0 <= point.x() <= x1 and y0 <= point.y() <= y1:
                return link
        return None

    def page_mouse(self, widget: PdfPageWidget, event: QMouseEvent, what: str) -> None:
        page = widget.page
        point = event.position() / self.zoom  # in PDF points
        if what == "press" and event.button() == Qt.MouseButton.LeftButton:
            self.setFocus()
            self._press = (page, point)
            self._dragging = False
            if page not in self.words and self.session is not None:
                self.session.words(page)
        elif what == "move" and self._press is not None:
            start_page, start = self._press
            distance = (event.position() - start * self.zoom).manhattanLength()
            if start_page == page and (self._dragging or distance > 4):
                self._dragging = True
                self.selection = (page, (start.x(), start.y(), point.x(), point.y()))
                widget.update()
        elif what == "move":
            link = self._link_at(page, point)
            widget.setCursor(
                Qt.CursorShape.PointingHandCursor
                if link
                else Qt.CursorShape.IBeamCursor
            )
            widget.setToolTip(plain_tooltip(link_tip(link)) if link else "")
        elif what == "release" and self._press is not None:
            if not self._dragging:
                link = self._link_at(page, point)
                had_selection = self.selection is not None
                self.selection = None
                if had_selection:
                    widget.update()
                if link is not None:
                    self.linkClicked.emit(link)
            self._press = None
            self._dragging = False

    def selected_text(self) -> str:
        if self.selection is None:
            return ""
        page, box = self.selection
        return selected_text(self.words.get(page, ()), normalized(box))

    @Slot()
    def copy_selection(self) -> None:
        text = self.selected_text()
        if text:
            QGuiApplication.clipboard().setText(text)

    def add_words(self, result: WordsReady) -> None:
        self.words[result.page] = result.words
        self._repaint_page(result.page)

    # -- Qt events ---------------------------------------------------------------

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        self._update_pages()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.sizes:
            self._relayout()

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.step_zoom(1 if event.angleDelta().y() > 0 else -1)
            event.accept()
            return
        super().wheelEvent(event)


def _scaled(box: Box, zoom: float) -> QRectF:
    x0, y0, x1, y1 = box
    return QRectF(x0 * zoom, y0 * zoom, (x1 - x0) * zoom, (y1 - y0) * zoom)


def link_tip(link: PdfLink) -> str:
    if link.action is LinkAction.GOTO:
        return f"Go to page {link.page + 1}"
    if link.action is LinkAction.WEB:
        return link.url
    return f"{BLOCKED_NOTICE}: {link.url}" if link.url else BLOCKED_NOTICE
