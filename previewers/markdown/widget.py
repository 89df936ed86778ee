"""The Markdown preview: rendered with raw HTML off, an outline, a source toggle.

Links never open by themselves: an anchor scrolls, an http(s) link asks first
and goes to the system browser, anything else is not opened. Images come only
from the workspace, vetted on a worker (``previewers.markdown.document``).

A document with Mermaid diagrams or math is drawn in a page in the sandboxed
web view, which the registry lends as ``show_page``.
The page is shown as soon as it exists, so it draws at the view's size; if it
cannot finish, the rich-text view takes its place with a notice. "Show
source" is one click away either way.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QStringListModel, Qt, QUrl, Signal, Slot
from PySide6.QtGui import (
    QDesktopServices,
    QFont,
    QFontDatabase,
    QPalette,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListView,
    QPlainTextEdit,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.trust.safeio import VerifiedFile
from app.formats.diagram_page import DRAWN_SCRIPT, PageColors
from app.formats.markdown_html import HEADING_ID_PREFIX, RenderedMarkdown
from previewers.context import STANDALONE, PreviewContext
from previewers.markdown.build import MarkdownJob, MarkdownLoad, adopt, build
from previewers.markdown.document import (
    IMAGE_COUNT_LIMIT,
    MARKDOWN_LIMIT,
    MarkdownDocument,
    MarkdownTextView,
)
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget
from previewers.widgets import (
    ask_with_message_box,
    tell_with_message_box,
)

if TYPE_CHECKING:
    from app.core.serve.manifest import Bundle
    from previewers.markdown import ShowBoundPage

_WEB_SCHEMES = frozenset({"http", "https"})
NO_PAGE_NOTICE = "Diagrams and math are shown as text: {}"
PAGE_ENDED_NOTICE = "The diagrams and math could not be drawn ({}); shown as text."


def _sentence(reason: str) -> str:
    """``reason`` as the end of a sentence: lower-case start, a full stop."""
    reason = reason.rstrip(".")
    return f"{reason[:1].lower()}{reason[1:]}."


def page_colors(palette: QPalette) -> PageColors:
    """The colours of a drawn page, from the preview's palette."""
    role = QPalette.ColorRole
    return PageColors(
        text=palette.color(role.Text).name(),
        background=palette.color(role.Base).name(),
        muted=palette.color(role.PlaceholderText).name(),
        link=palette.color(role.Link).name(),
        code_background=palette.color(role.AlternateBase).name(),
        border=palette.color(role.Mid).name(),
    )


class MarkdownPreviewWidget(PreviewWidget):
    """Rendered Markdown beside its outline, with a toggle to the source text.

    ``ask_open(parent, url)``, ``tell(parent, message)`` and ``open_url(url)`` are
    attributes so a test (or an embedding) can replace the dialogs and the browser.
    ``page_view`` is the preview of the drawn page, once there is one.

    Signals:
        pageRequested(str): a link in the drawn page to a page beside the
            document was followed; its path, for the workspace to open.
        (and those of ``PreviewWidget``)
    """

    pageRequested = Signal(str)

    def __init__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None = None,
        *,
        context: PreviewContext = STANDALONE,
        show_page: ShowBoundPage | None = None,
    ) -> None:
        super().__init__(source, file, parent, context=context)
        self._show_page = show_page
        self.page_view: PreviewWidget | None = None
        self.ask_open: Callable[[QWidget, str], bool] = ask_with_message_box
        self.tell: Callable[[QWidget, str], None] = tell_with_message_box
        self.open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl
        self.rendered: RenderedMarkdown | None = None
        self._heading_positions: tuple[int, ...] = ()
        container = QWidget(self)
        layout = QVBoxLayout(container)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 2, 6, 2)
        self.notice = QLabel(container)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.setWordWrap(True)
        self.notice.setAccessibleName("Markdown notice")
        self.source_button = QToolButton(container)
        self.source_button.setText("Show source")
        self.source_button.setCheckable(True)
        self.source_button.setAccessibleName("Show Markdown source")
        self.source_button.toggled.connect(self._on_source_button_toggled)
        bar.addWidget(self.notice, 1)
        bar.addWidget(self.source_button)
        # A list model, not one item per heading: a file may have 50,000.
        self.outline_model = QStringListModel(container)
        self.outline = QListView(container)
        self.outline.setModel(self.outline_model)
        self.outline.setUniformItemSizes(True)
        self.outline.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.outline.setAccessibleName("Outline")
        self.outline.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.outline.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.outline.activated.connect(self._on_outline_activated)
        self.outline.clicked.connect(self._on_outline_activated)
        self.view = MarkdownTextView(container)
        self.view.setAccessibleName(f"Rendered {source.name}")
        self.document = MarkdownDocument(self.palette(), self.view)
        self.document.setDocumentMargin(14)
        self.view.setDocument(self.document)
        self.view.anchorClicked.connect(self._on_view_anchor_clicked)
        self._coloured = self.context.source_text(
            source.name, self.is_dark(), container
        )
        self.source_text = self._coloured.widget
        self._source_loaded = False
        self.source_text.setReadOnly(True)
        # Prose: its paragraphs wrap, as they did before the source was coloured.
        self.source_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.source_text.setAccessibleName(f"Source of {source.name}")
        self.source_text.setFont(
            QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        )
        self.stack = QStackedWidget(container)
        self.stack.addWidget(self.view)
        self.stack.addWidget(self.source_text)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, container)
        self.splitter.addWidget(self.outline)
        self.splitter.addWidget(self.stack)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([180, 720])
        self.outline.hide()
        layout.addLayout(bar)
        layout.addWidget(self.splitter, 1)
        self.set_content(container)
        # Asked here, on the GUI thread; the worker only reads what it is given.
        remote = self.context.remote is not None
        job = MarkdownJob(
            folder="" if remote else os.path.dirname(os.path.abspath(source.path)),
            root=self.context.reading_root(source.path),
            policy=self.context.policy(),
            dark=self.is_dark(),
            palette=self.palette(),
            remote=remote,
            page_colors=page_colors(self.palette()) if show_page is not None else None,
            title=source.name,
        )

        def load(file: VerifiedFile, cancelled: threading.Event) -> MarkdownLoad:
            return build(file.read(MARKDOWN_LIMIT + 1, 0), job, cancelled)

        self.run_in_background(load, self._on_loader_finished)

    # -- loading -------------------------------------------------------------------

    @Slot(object)
    def _on_loader_finished(self, result: MarkdownLoad) -> None:
        # The documents were built on the worker; here they only change views.
        adopt(result.source)
        if result.document is not None:
            adopt(result.document)
        result.source.setParent(self.source_text)
        self.source_text.setDocument(result.source)
        self._source_loaded = True
        self._colour_source_if_shown()
        notices = list(result.notices)
        if result.rendered is None or result.document is None:
            self.show_source(True)
            self.source_button.setEnabled(False)
            self.notice.setText(" ".join(notices))
            self.mark_loaded()
            return
        old, self.document = self.document, result.document
        self.rendered = result.rendered
        self._heading_positions = result.heading_positions
        result.document.setParent(self.view)
        self.view.setDocument(result.document)
        self.view.fit_images()
        old.deleteLater()
        self.outline_model.setStringList(
            [
                "    " * (heading.level - 1) + heading.text
                for heading in result.rendered.headings
            ]
        )
        self.outline.setVisible(len(result.rendered.headings) > 1)
        notices.extend(result.page_notices)
        skipped = sum(1 for image in result.images if image.image is None)
        skipped += result.rendered.images_left_out
        if skipped and self.context.remote is not None:
            notices.append(
                f"{skipped} image(s) not shown: the images of a document on a "
                "remote host are not loaded. Save the document and its images "
                "to a local folder to see them."
            )
        elif skipped:
            notices.append(
                f"{skipped} image(s) not shown: only images inside the workspace "
                f"that the read policy allows are loaded, at most {IMAGE_COUNT_LIMIT}."
            )
        self.notice.setText(" ".join(notices))
        if result.page is not None and self._show_page is not None:
            self._open_page_view(self._show_page, result.page)
            return
        self.mark_loaded()

    def _open_page_view(self, show_page: ShowBoundPage, bundle: Bundle) -> None:
        """Show the page in place of the rich-text view; it draws from here on.

        Shown at once: a page drawn while hidden lays out at no real width.
        Where no page can be shown (as root) it is refused at once, and the
        rich-text view stays.
        """
        with self.borrow_file() as file:
            # A descriptor of its own for the page's preview, which closes it.
            own = VerifiedFile(os.dup(file.fd), file.identity, file.real_path)
        view = show_page(
            self.source,
            own,
            self.stack,
            bundle=bundle,
            ready_script=DRAWN_SCRIPT,
            what="diagrams and math",
            context=self.context,
        )
        if view.is_settled() and not view.is_loaded():
            view.release()
            view.deleteLater()
            self._tell(NO_PAGE_NOTICE.format(_sentence(view.reason())))
            self.mark_loaded()
            return
        view.setAccessibleName(f"Drawn {self.source.name}")
        view.loaded.connect(self._on_page_view_loaded)
        view.failed.connect(self._on_page_view_failed)
        view.refused.connect(self._on_page_view_failed)
        followed = getattr(view, "pageRequested", None)
        if followed is not None:
            followed.connect(self.pageRequested)
        self.page_view = view
        self.stack.addWidget(view)
        if not self.source_button.isChecked():
            self.stack.setCurrentWidget(view)

    # -- what the workspace uses ---------------------------------------------------

    def release(self) -> None:
        if self.is_released():
            return
        super().release()
        if self.page_view is not None:
            self.page_view.release()

    def text(self) -> str:
        """The rendered text, as the user reads it."""
        return self.document.toPlainText()

    def showing_page(self) -> bool:
        """Whether the drawn page is what the preview shows."""
        view = self.page_view
        return view is not None and self.stack.currentWidget() is view

    def notice_text(self) -> str:
        return self.notice.text()

    def headings(self) -> list[str]:
        return [line.strip() for line in self.outline_model.stringList()]

    def scroll_to_heading(self, number: int) -> None:
        """Put heading ``number`` (from 0, in document order) at the top."""
        if not 0 <= number < len(self._heading_positions):
            return
        if self.page_view is not None and self.rendered:
            anchor = self.rendered.headings[number].anchor
            self.page_view.scroll_to_anchor(HEADING_ID_PREFIX + anchor)
        block = self.document.findBlock(self._heading_positions[number])
        cursor = QTextCursor(block)
        self.view.setTextCursor(cursor)
        layout = self.document.documentLayout()
        self.view.verticalScrollBar().setValue(
            int(layout.blockBoundingRect(block).top())
        )

    def show_source(self, on: bool) -> None:
        self.source_button.setChecked(on)

    def find_next(self, text: str, backward: bool = False) -> bool:
        if not text:
            return False
        if self.page_view is not None and self.showing_page():
            return self.page_view.find_next(text, backward)
        flags = QTextDocument.FindFlag(0)
        if backward:
            flags |= QTextDocument.FindFlag.FindBackward
        view = self.stack.currentWidget()
        assert isinstance(view, (MarkdownTextView, QPlainTextEdit))
        if view.find(text, flags):
            return True
        cursor = view.textCursor()
        cursor.movePosition(
            cursor.MoveOperation.End if backward else cursor.MoveOperation.Start
        )
        view.setTextCursor(cursor)
        return bool(view.find(text, flags))

    def zoom_in(self) -> None:
        self.view.zoomIn(1)
        self.source_text.zoomIn(1)
        if self.page_view is not None:
            self.page_view.zoom_in()

    def zoom_out(self) -> None:
        self.view.zoomOut(1)
        self.source_text.zoomOut(1)
        if self.page_view is not None:
            self.page_view.zoom_out()

    def zoom_reset(self) -> None:
        if self.page_view is not None:
            self.page_view.zoom_reset()
        self.view.setFont(QFont())
        self.source_text.setFont(
            QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        )

    # -- slots ---------------------------------------------------------------------

    def _colour_source_if_shown(self) -> None:
        if self._source_loaded and self.stack.currentWidget() is self.source_text:
            self.colour_source(self._coloured)

    def _rendered_view(self) -> QWidget:
        return self.page_view if self.page_view is not None else self.view

    @Slot(bool)
    def _on_source_button_toggled(self, on: bool) -> None:
        self.stack.setCurrentWidget(self.source_text if on else self._rendered_view())
        self._colour_source_if_shown()
        self.source_button.setText("Show rendered" if on else "Show source")

    @Slot()
    def _on_page_view_loaded(self) -> None:
        self.mark_loaded()

    @Slot(str)
    def _on_page_view_failed(self, reason: str) -> None:
        # The rich-text view stays, with what the page could not do.
        view, self.page_view = self.page_view, None
        if view is not None:
            if not self.source_button.isChecked():
                self.stack.setCurrentWidget(self.view)
            self.stack.removeWidget(view)
            view.release()
            view.deleteLater()
        self._tell(PAGE_ENDED_NOTICE.format(reason.rstrip(".")))
        self.mark_loaded()

    def _tell(self, notice: str) -> None:
        """Add ``notice`` after what the notice line already says."""
        self.notice.setText(f"{self.notice.text()} {notice}".strip())

    @Slot(QModelIndex)
    def _on_outline_activated(self, index: QModelIndex) -> None:
        self.show_source(False)
        self.scroll_to_heading(index.row())

    @Slot(QUrl)
    def _on_view_anchor_clicked(self, url: QUrl) -> None:
        if not url.scheme() and not url.path() and url.hasFragment():
            anchors = (
                [h.anchor for h in self.rendered.headings] if self.rendered else []
            )
            if url.fragment() in anchors:
                self.scroll_to_heading(anchors.index(url.fragment()))
            return
        shown = url.toString()
        if url.scheme().lower() not in _WEB_SCHEMES:
            self.tell(
                self,
                "This link is not opened: only web links (http, https) are."
                f"\n\n{shown}",
            )
            return
        if self.ask_open(self, shown):
            self.open_url(url)
