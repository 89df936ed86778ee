"""The PDF preview: toolbar, outline, pages, find bar and password prompt.

The pages themselves are ``previewers.pdf.pages``; every PyMuPDF call runs on
the render thread (``previewers.pdf.render``). Links are judged in
``app.formats.pdf_doc``: pages of this document jump, web addresses open after a
confirmation, and everything else is reported and never followed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import Qt, QUrl, Signal, Slot
from PySide6.QtGui import (
    QDesktopServices,
    QIntValidator,
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.core.filetype.sizes import counted
from app.core.trust.safeio import VerifiedFile
from app.formats.pdf_doc import (
    MAX_PDF_BYTES,
    Box,
    DocumentInfo,
    LinkAction,
    PdfLink,
    is_pdf,
)
from previewers.context import STANDALONE, PreviewContext
from previewers.pdf.outline import OutlineTree, PdfOutlineModel
from previewers.pdf.pages import (
    BLOCKED_NOTICE,
    FIT_PAGE,
    FIT_WIDTH,
    PdfPagesView,
    link_tip,
)
from previewers.pdf.render import (
    Opened,
    OpenFailed,
    PageFailed,
    PageRendered,
    PasswordNeeded,
    PdfSession,
    SearchFound,
    TaskFailed,
    WordsReady,
)
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget
from previewers.widgets import FindBarWidget, ask_plain_question


def ask_to_open_url(parent: QWidget, url: str) -> bool:
    """Ask before a web address from a PDF goes to the system browser."""
    return ask_plain_question(
        parent,
        "Open web link?",
        f"The PDF links to this address:\n\n{url}\n\nOpen it in your browser?",
    )


class PdfPasswordWidget(QWidget):
    """Asks for the password of an encrypted PDF.

    Signals:
        submitted(str): the password typed.
    """

    submitted = Signal(str)

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        prompt = QLabel(f"{name} is protected by a password.", self)
        prompt.setTextFormat(Qt.TextFormat.PlainText)
        prompt.setAlignment(Qt.AlignmentFlag.AlignCenter)
        prompt.setWordWrap(True)
        row = QHBoxLayout()
        self.field = QLineEdit(self)
        self.field.setEchoMode(QLineEdit.EchoMode.Password)
        self.field.setPlaceholderText("Password")
        self.field.setAccessibleName("PDF password")
        self.field.setMaximumWidth(280)
        self.unlock = QPushButton("Unlock", self)
        self.unlock.setAccessibleName("Unlock PDF")
        row.addStretch(1)
        row.addWidget(self.field)
        row.addWidget(self.unlock)
        row.addStretch(1)
        self.error = QLabel(self)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error.setAccessibleName("Password status")
        layout.addWidget(prompt)
        layout.addLayout(row)
        layout.addWidget(self.error)
        layout.addStretch(2)
        self.field.returnPressed.connect(self._on_unlock_clicked)
        self.unlock.clicked.connect(self._on_unlock_clicked)

    @Slot()
    def _on_unlock_clicked(self) -> None:
        self.error.setText("Checking…")
        self.submitted.emit(self.field.text())


def _read_pdf(file: VerifiedFile, cancelled: threading.Event) -> bytes | str:
    """The file's bytes, or the reason it is refused."""
    if not is_pdf(file.read(8, 0)):
        return "the file does not start with %PDF- and is not a PDF"
    size = file.current_identity().size
    if size > MAX_PDF_BYTES:
        return f"it is larger than {MAX_PDF_BYTES >> 20} MiB"
    parts: list[bytes] = []
    for chunk in file.chunks():
        if cancelled.is_set():
            return "the preview was closed"
        parts.append(chunk)
    return b"".join(parts)


OUTLINE_MIN_WIDTH = 1000
"""A preview at least this wide shows the outline beside the pages at first."""


class PdfPreviewWidget(PreviewWidget):
    """A PDF: pages in a continuous column, outline, find, zoom and links.

    ``confirm_url`` and ``open_url`` decide what a click on a web link does;
    tests replace them.

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
        self.confirm_url: Callable[[QWidget, str], bool] = ask_to_open_url
        self.open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl
        self.info: DocumentInfo | None = None
        self._search_text = ""
        self._search_id = 0
        self._search_done = False
        self._search_skipped = 0
        self._search_backward = False
        self._found: list[tuple[int, Box]] = []
        self._match_index = -1
        self._build()
        self.session = PdfSession(self._on_session_result)
        self.run_in_background(_read_pdf, self._on_reader_finished)

    def _build(self) -> None:
        container = QWidget(self)
        layout = QVBoxLayout(container)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.toolbar = QWidget(container)
        bar = QHBoxLayout(self.toolbar)
        bar.setContentsMargins(4, 2, 4, 2)
        self.outline_button = self._tool("Outline", "Show outline", checkable=True)
        self.page_field = QLineEdit(self.toolbar)
        self.page_field.setAccessibleName("Page number")
        self.page_field.setMaximumWidth(56)
        self.page_field.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.page_field.setValidator(QIntValidator(1, 1, self.page_field))
        self.page_count_label = QLabel("of 0", self.toolbar)
        self.page_count_label.setTextFormat(Qt.TextFormat.PlainText)
        self.page_count_label.setAccessibleName("Page count")
        zoom_out = self._tool("\u2212", "Zoom out")
        self.zoom_label = QLabel("100 %", self.toolbar)
        self.zoom_label.setTextFormat(Qt.TextFormat.PlainText)
        self.zoom_label.setAccessibleName("Zoom")
        self.zoom_label.setMinimumWidth(48)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        zoom_in = self._tool("+", "Zoom in")
        self.fit_width_button = self._tool("Fit width", "Fit width", checkable=True)
        self.fit_page_button = self._tool("Fit page", "Fit page", checkable=True)
        self.fit_width_button.setChecked(True)
        find = self._tool("Find", "Find in document")
        page_label = QLabel("Page", self.toolbar)
        for widget in (self.outline_button, page_label, self.page_field):
            bar.addWidget(widget)
        bar.addWidget(self.page_count_label)
        bar.addStretch(1)
        for widget in (zoom_out, self.zoom_label, zoom_in):
            bar.addWidget(widget)
        for widget in (self.fit_width_button, self.fit_page_button, find):
            bar.addWidget(widget)
        self.notice = QLabel(container)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.setWordWrap(True)
        self.notice.setAccessibleName("PDF notice")
        self.notice.setContentsMargins(6, 4, 6, 4)
        self.notice.setAutoFillBackground(True)
        self.notice.setBackgroundRole(self.notice.backgroundRole().ToolTipBase)
        self.notice.setForegroundRole(self.notice.foregroundRole().ToolTipText)
        self.notice.hide()
        self.outline = QTreeView(container)
        self.outline.setAccessibleName("Outline")
        self.outline.setHeaderHidden(True)
        self.outline.setEditTriggers(QTreeView.EditTrigger.NoEditTriggers)
        self.outline.setUniformRowHeights(True)  # no size asked of every row
        self.outline_model = PdfOutlineModel(parent=self.outline)
        self.outline.setModel(self.outline_model)
        self.outline.hide()
        self.pages = PdfPagesView(container)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, container)
        self.splitter.addWidget(self.outline)
        self.splitter.addWidget(self.pages)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([200, 600])
        self.password = PdfPasswordWidget(self.source.name, container)
        self.stack = QStackedWidget(container)
        self.stack.addWidget(self.splitter)
        self.stack.addWidget(self.password)
        self.find_bar = FindBarWidget(container)
        self.find_bar.hide()
        layout.addWidget(self.toolbar)
        layout.addWidget(self.notice)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.find_bar)
        self.toolbar.hide()  # until there are pages to act on
        self.set_content(container)
        self.outline_button.toggled.connect(self.outline.setVisible)
        self.page_field.returnPressed.connect(self._on_page_field_return_pressed)
        zoom_out.clicked.connect(self.zoom_out)
        zoom_in.clicked.connect(self.zoom_in)
        self.fit_width_button.clicked.connect(self._on_fit_width_button_clicked)
        self.fit_page_button.clicked.connect(self._on_fit_page_button_clicked)
        find.clicked.connect(self.focus_find)
        self.outline.activated.connect(self._on_outline_activated)
        self.outline.clicked.connect(self._on_outline_activated)
        self.pages.currentPageChanged.connect(self._on_pages_current_page_changed)
        self.pages.zoomChanged.connect(self._on_pages_zoom_changed)
        self.pages.linkClicked.connect(self._on_pages_link_clicked)
        self.password.submitted.connect(self._on_password_submitted)
        self.find_bar.searchRequested.connect(self._on_find_bar_search_requested)
        self.find_bar.closeRequested.connect(self._on_find_bar_close_requested)
        go_to = QShortcut(QKeySequence("Ctrl+G"), self)
        go_to.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        go_to.activated.connect(self.focus_page_field)

    def _tool(self, text: str, name: str, *, checkable: bool = False) -> QToolButton:
        button = QToolButton(self.toolbar)
        button.setText(text)
        button.setAccessibleName(name)
        button.setToolTip(name)
        button.setCheckable(checkable)
        button.setAutoRaise(True)
        return button

    # -- loading ---------------------------------------------------------------

    def release(self) -> None:
        if not self.is_released():
            self.session.close()
        super().release()

    @Slot(object)
    def _on_reader_finished(self, result: bytes | str) -> None:
        if isinstance(result, str):
            self.mark_refused(result)
        else:
            self.session.open(result)

    def _on_session_result(self, result: object) -> None:
        if self.is_released():
            return
        if isinstance(result, PageRendered):
            self.pages.add_render(result)
            if result.notice:
                self._notify(result.notice)
            self.mark_loaded()
        elif isinstance(result, PageFailed):
            self.pages.add_failure(result)
            if result.notice:
                self._notify(result.notice)
            self.mark_loaded()
        elif isinstance(result, WordsReady):
            self.pages.add_words(result)
        elif isinstance(result, SearchFound):
            self._add_matches(result)
        elif isinstance(result, Opened):
            self._show_document(result.info, result.outline)
        elif isinstance(result, PasswordNeeded):
            self.stack.setCurrentWidget(self.password)
            self.password.error.setText("Wrong password." if result.wrong else "")
            self.password.field.selectAll()
            self.password.field.setFocus()
            self.mark_loaded()  # the prompt is what this file shows for now
        elif isinstance(result, OpenFailed | TaskFailed):
            if self.is_settled():
                self._notify(result.reason)
            else:
                self.mark_failed(result.reason)

    def _show_document(self, info: DocumentInfo, outline: OutlineTree) -> None:
        self.info = info
        self.stack.setCurrentWidget(self.splitter)
        count = len(info.page_sizes)
        self.page_count_label.setText(f"of {count}")
        validator = self.page_field.validator()
        if isinstance(validator, QIntValidator):
            validator.setTop(count)
        notes = self._fill_outline(info, outline)
        if info.embedded_files:
            embedded = counted(info.embedded_files, "embedded file")
            notes.append(f"This PDF has {embedded}; they are not opened or extracted.")
        if info.unreadable:
            notes.append(
                "Some parts of this PDF could not be read and are left out: "
                f"{', '.join(info.unreadable)}."
            )
        if notes:
            self._notify(" ".join(notes))
        self.toolbar.show()
        self.pages.set_document(self.session, info)

    def _fill_outline(self, info: DocumentInfo, outline: OutlineTree) -> list[str]:
        """Show the outline; returns the notices it needs."""
        self.outline_model.set_tree(outline)
        notes = []
        if info.outline_left_out:
            notes.append(
                f"The outline shows its first {len(info.outline):,} entries; "
                f"{info.outline_left_out:,} more are left out."
            )
        has_outline = bool(info.outline)
        self.outline_button.setVisible(has_outline)
        # Shown at once only where the pages keep a readable width beside it;
        # in a narrower preview it is one click away.
        self.outline_button.setChecked(
            has_outline and self.width() >= OUTLINE_MIN_WIDTH
        )
        for index in self.outline_model.open_rows():
            self.outline.expand(index)
        return notes

    def _notify(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.show()

    def notice_text(self) -> str:
        return self.notice.text() if self.notice.isVisibleTo(self) else ""

    # -- navigation --------------------------------------------------------------

    def go_to_page(self, page: int, y: float | None = None) -> None:
        """Show ``page`` (from 0), at ``y`` points down the page if given."""
        if self.info is not None:
            self.pages.go_to(page, y)

    @Slot()
    def focus_page_field(self) -> None:
        self.page_field.setFocus()
        self.page_field.selectAll()

    @Slot()
    def _on_page_field_return_pressed(self) -> None:
        text = self.page_field.text()
        if text.isdigit():
            self.go_to_page(int(text) - 1)
            self.pages.setFocus()

    @Slot(int)
    def _on_pages_current_page_changed(self, page: int) -> None:
        self.page_field.setText(str(page + 1))

    @Slot(float)
    def _on_pages_zoom_changed(self, zoom: float) -> None:
        self.zoom_label.setText(f"{round(zoom * 100)} %")
        self.fit_width_button.setChecked(self.pages.fit == FIT_WIDTH)
        self.fit_page_button.setChecked(self.pages.fit == FIT_PAGE)

    @Slot()
    def _on_fit_width_button_clicked(self) -> None:
        self.pages.set_fit(FIT_WIDTH)

    @Slot()
    def _on_fit_page_button_clicked(self) -> None:
        self.pages.set_fit(FIT_PAGE)

    def zoom_in(self) -> None:
        self.pages.step_zoom(1)

    def zoom_out(self) -> None:
        self.pages.step_zoom(-1)

    def zoom_reset(self) -> None:
        self.pages.set_fit(FIT_WIDTH)

    @Slot()
    def _on_outline_activated(self) -> None:
        entry = self.outline_model.entry(self.outline.currentIndex())
        if entry is None:
            return
        if entry.page >= 0:
            self.go_to_page(entry.page, entry.y)
        elif not entry.readable:
            self._notify("Where this outline entry leads could not be read.")
        else:
            self._notify(f"{BLOCKED_NOTICE}.")

    @Slot(object)
    def _on_pages_link_clicked(self, link: PdfLink) -> None:
        if link.action is LinkAction.GOTO:
            self.go_to_page(link.page, link.y)
        elif link.action is LinkAction.WEB:
            if self.confirm_url(self, link.url):
                self.open_url(QUrl(link.url, QUrl.ParsingMode.StrictMode))
        else:
            self._notify(link_tip(link))

    @Slot(str)
    def _on_password_submitted(self, password: str) -> None:
        self.session.authenticate(password)

    # -- find ----------------------------------------------------------------------

    def focus_find(self) -> None:
        self.find_bar.show()
        self.find_bar.field.setFocus()
        self.find_bar.field.selectAll()

    def find_next(self, text: str, backward: bool = False) -> bool:
        if self.info is None or not text:
            self.find_bar.status.clear()
            return False
        if text != self._search_text:
            self._start_search(text, backward)
            return False
        if self._found:
            step = -1 if backward else 1
            self._select_match((self._match_index + step) % len(self._found))
            return True
        return False

    def _start_search(self, text: str, backward: bool) -> None:
        self._search_text = text
        self._search_backward = backward
        self._found = []
        self._match_index = -1
        self._search_done = False
        self._search_skipped = 0
        self.pages.matches = {}
        self.pages.current_match = None
        self.find_bar.status.setText("Searching…")
        count = self.pages.page_count
        self._search_id = self.session.search(text, count, self.pages.current_page())

    def _add_matches(self, result: SearchFound) -> None:
        if result.search_id != self._search_id:
            return
        self._found.extend(result.matches)
        for page, box in result.matches:
            self.pages.matches.setdefault(page, []).append(box)
            self.pages._repaint_page(page)
        self._search_done = result.done
        self._search_skipped += result.skipped
        if self._match_index < 0 and self._found:
            self._select_match(len(self._found) - 1 if self._search_backward else 0)
        else:
            self._show_find_status()

    def _select_match(self, index: int) -> None:
        self._match_index = index
        page, box = self._found[index]
        previous = self.pages.current_match
        self.pages.current_match = (page, box)
        if previous is not None:
            self.pages._repaint_page(previous[0])
        self.pages.show_box(page, box)
        self._show_find_status()

    def _show_find_status(self) -> None:
        if not self._found:
            text = "Not found" if self._search_done else "Searching…"
        else:
            # The search began at the current page and wrapped: order by page.
            total = f"{len(self._found)}{'' if self._search_done else '+'}"
            text = f"{self._match_index + 1} of {total}"
        if self._search_skipped:
            text += f" ({self._search_skipped} unreadable pages skipped)"
        self.find_bar.status.setText(text)

    @Slot(str, bool)
    def _on_find_bar_search_requested(self, text: str, backward: bool) -> None:
        self.find_next(text, backward)

    @Slot()
    def _on_find_bar_close_requested(self) -> None:
        self.find_bar.hide()
        self.session.stop_search()
        self._search_text = ""
        self._found = []
        self.pages.matches = {}
        self.pages.current_match = None
        self.pages.viewport().update()
        for page in self.pages.visible_pages():
            self.pages._repaint_page(page)
        self.pages.setFocus()
