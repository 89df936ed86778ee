"""The Markdown preview: rendered with raw HTML off, an outline, a source toggle.

Links never open by themselves: an anchor scrolls, an http(s) link asks first
and goes to the system browser, anything else is not opened. Images come only
from the workspace, vetted on a worker (``previewers.markdown.document``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, QUrl, Slot
from PySide6.QtGui import (
    QDesktopServices,
    QFont,
    QFontDatabase,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.safeio import VerifiedFile
from app.formats.encoding import decode, detect_encoding
from app.formats.markdown_html import RenderedMarkdown, render_markdown
from previewers.context import STANDALONE, PreviewContext
from previewers.markdown.document import (
    MARKDOWN_LIMIT,
    LoadedImage,
    MarkdownDocument,
    MarkdownTextView,
    load_images,
    style_sheet,
)
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget
from previewers.widgets import (
    ask_with_message_box,
    tell_with_message_box,
)

_WEB_SCHEMES = frozenset({"http", "https"})


@dataclass(frozen=True)
class MarkdownLoad:
    """The decoded text, its rendering, its images and what to tell the user."""

    text: str
    rendered: RenderedMarkdown
    images: tuple[LoadedImage, ...]
    notices: tuple[str, ...]


def decode_markdown(data: bytes) -> tuple[str, tuple[str, ...]]:
    """Text from bytes (a BOM picks the encoding, else UTF-8) and any notice."""
    encoding = detect_encoding(data)
    text, invalid = decode(data[len(encoding.bom) :], encoding)
    if invalid:
        codec = encoding.codec.upper()
        return text, (f"Some bytes are not valid {codec}; shown as \ufffd.",)
    return text, ()


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
        self.outline = QListWidget(container)
        self.outline.setAccessibleName("Outline")
        self.outline.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.outline.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.outline.itemActivated.connect(self._on_outline_item_activated)
        self.outline.itemClicked.connect(self._on_outline_item_activated)
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
        root = self.context.reading_root(source.path)
        policy = self.context.policy()
        folder = os.path.dirname(os.path.abspath(source.path))
        dark = self.is_dark()

        def job(file: VerifiedFile, cancelled: threading.Event) -> MarkdownLoad:
            text, notices = decode_markdown(file.read(MARKDOWN_LIMIT + 1, 0))
            rendered = render_markdown(text, dark=dark)
            images = (
                ()
                if cancelled.is_set()
                else load_images(rendered.images, folder, root, policy)
            )
            return MarkdownLoad(text, rendered, images, notices)

        self.run_in_background(job, self._on_loader_finished)

    # -- loading -------------------------------------------------------------------

    @Slot(object)
    def _on_loader_finished(self, result: MarkdownLoad) -> None:
        self.rendered = result.rendered
        self.document.set_images(result.images, result.rendered.image_alts)
        self.document.setDefaultStyleSheet(style_sheet(self.palette()))
        self.document.setHtml(result.rendered.html)
        self.view.fit_images()
        self.source_text.setPlainText(result.text)
        for heading in result.rendered.headings:
            item = QListWidgetItem("    " * (heading.level - 1) + heading.text)
            item.setData(Qt.ItemDataRole.UserRole, heading.anchor)
            item.setToolTip("")
            self.outline.addItem(item)
        self.outline.setVisible(len(result.rendered.headings) > 1)
        skipped = sum(1 for image in result.images if image.image is None)
        notices = list(result.notices)
        if skipped:
            notices.append(
                f"{skipped} image(s) not shown: only images inside the workspace "
                "that the read policy allows are loaded."
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
        return [
            self.outline.item(n).text().strip() for n in range(self.outline.count())
        ]

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

    @Slot(QListWidgetItem)
    def _on_outline_item_activated(self, item: QListWidgetItem) -> None:
        self.show_source(False)
        self.view.scrollToAnchor(str(item.data(Qt.ItemDataRole.UserRole)))

    @Slot(QUrl)
    def _on_view_anchor_clicked(self, url: QUrl) -> None:
        if not url.scheme() and not url.path() and url.hasFragment():
            self.view.scrollToAnchor(url.fragment())
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
