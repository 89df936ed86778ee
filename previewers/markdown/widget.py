"""The Markdown preview: rendered with raw HTML off, an outline, a source toggle.

Links never open by themselves: an anchor scrolls, an http(s) link asks first
and goes to the system browser, anything else is not opened. Images come only
from the workspace, vetted on a worker (``previewers.markdown.document``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QStringListModel, Qt, QUrl, Slot
from PySide6.QtGui import (
    QDesktopServices,
    QFont,
    QFontDatabase,
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

from app.core.safeio import VerifiedFile
from app.formats.markdown_html import RenderedMarkdown
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

_WEB_SCHEMES = frozenset({"http", "https"})


class MarkdownPreviewWidget(PreviewWidget):
    """Rendered Markdown beside its outline, with a toggle to the source text.

    ``ask_open(parent, url)``, ``tell(parent, message)`` and ``open_url(url)`` are
    attributes so a test (or an embedding) can replace the dialogs and the browser.

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
        self.source_text = QPlainTextEdit(container)
        self.source_text.setReadOnly(True)
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
        self.mark_loaded()

    # -- what the workspace uses ---------------------------------------------------

    def text(self) -> str:
        """The rendered text, as the user reads it."""
        return self.document.toPlainText()

    def notice_text(self) -> str:
        return self.notice.text()

    def headings(self) -> list[str]:
        return [line.strip() for line in self.outline_model.stringList()]

    def scroll_to_heading(self, number: int) -> None:
        """Put heading ``number`` (from 0, in document order) at the top."""
        if not 0 <= number < len(self._heading_positions):
            return
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

    def zoom_out(self) -> None:
        self.view.zoomOut(1)
        self.source_text.zoomOut(1)

    def zoom_reset(self) -> None:
        self.view.setFont(QFont())
        self.source_text.setFont(
            QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        )

    # -- slots ---------------------------------------------------------------------

    @Slot(bool)
    def _on_source_button_toggled(self, on: bool) -> None:
        self.stack.setCurrentWidget(self.source_text if on else self.view)
        self.source_button.setText("Show rendered" if on else "Show source")

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
