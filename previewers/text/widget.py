"""The code and text preview: highlighted text up to 2 MiB, paged text beyond.

A file up to one page (2 MiB) shows whole in a ``CodeTextView``; a larger one
shows its first page at once in a ``PagedTextView`` while a line index is built
on the pool, after which the view scrolls over the whole file. The views and
pygments load when the first page has been read.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QMetaMethod, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QFont, QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QProgressBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.filetype import Kind
from app.core.filetype.sizes import counted, human_size
from app.core.trust.safeio import VerifiedFile
from app.formats.encoding import CHOOSABLE, UTF8, TextEncoding
from app.formats.json_load import JSON_SIZE_LIMIT
from app.formats.text_pages import BuildCancelledError, FenceBrokenError, Page
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource
from previewers.text.jobs import (
    CountOutcome,
    FirstPage,
    IndexOutcome,
    Progress,
    SearchOutcome,
    read_first_page,
)
from previewers.widget import PreviewWidget

if TYPE_CHECKING:
    from app.formats.line_index import LineIndex
    from previewers.highlight import Highlighter, LexPass
    from previewers.text.paged_view import PagedTextView
    from previewers.text.syntax_tree import TreeScan
    from previewers.text.view import CodeTextView, TextNoticeWidget

# Prose wraps at the window edge by default; code and tables do not.
_WRAPPED_KINDS = frozenset({Kind.TEXT, Kind.MARKDOWN})
CHANGED_NOTICE = "This file changed on disk; reload to see the new version."
OVERSIZE_NOTICE = (
    f"This JSON file is larger than {JSON_SIZE_LIMIT >> 20} MiB, so it is shown as "
    "text without a tree."
)
"""The notice for JSON that comes here because the tree will not take it."""
TOO_SLOW_NOTICE = (
    "Highlighting is off for this file: its language's lexer is too slow on it."
)
_MIN_POINTS, _MAX_POINTS = 6.0, 72.0


class CodePreviewWidget(PreviewWidget):
    """Text with line numbers, highlighting, find, go to line, wrap and zoom.

    Signals:
        reloadRequested(): the file changed under a paged view; reload the tab.
        (and those of ``PreviewWidget``)
    """

    reloadRequested = Signal()

    def __init__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None = None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> None:
        super().__init__(source, file, parent, context=context)
        from previewers.text.view import GoToLineBarWidget, TextNoticeWidget
        from previewers.widgets import FindBarWidget

        self.code_view: CodeTextView | None = None
        self.paged_view: PagedTextView | None = None
        self._index: LineIndex | None = None
        self._text = ""
        self._needle = ""
        self._pending_find: tuple[str, bool] | None = None
        self._search: threading.Event | None = None
        self._count: threading.Event | None = None
        self._counted: tuple[str, int] | None = None
        self._index_progress = Progress()
        self._search_progress = Progress()
        self._count_progress = Progress()
        self._base_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._facts = ""
        self._encoding: TextEncoding = UTF8
        self._codec_choice: str | None = None
        self._generation = 0  # a text read again in another encoding drops old work
        self.scan_done = False
        """Whether the lexer checkpoints of a whole-file text have arrived."""
        self.highlighting_stopped = False
        """Whether highlighting was turned off because the lexer is too slow."""
        container = QWidget(self)
        self._body = QVBoxLayout(container)
        self._body.setContentsMargins(0, 0, 0, 0)
        self._body.setSpacing(0)
        self.notice: TextNoticeWidget = TextNoticeWidget(container)
        self.notice.reloadClicked.connect(self.reloadRequested)
        self._placeholder = QLabel("Loading…", container)
        self._placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.find_bar = FindBarWidget(container)
        self.find_bar.hide()
        self.find_bar.searchRequested.connect(self._on_find_bar_search_requested)
        self.find_bar.closeRequested.connect(self._on_find_bar_close_requested)
        self.find_bar.cancelRequested.connect(self._on_find_bar_cancel_requested)
        self.find_bar.field.textChanged.connect(self._on_find_field_text_changed)
        self.go_bar = GoToLineBarWidget(container)
        self.go_bar.hide()
        self.go_bar.lineRequested.connect(self.go_to_line)
        self.go_bar.closeRequested.connect(self._on_go_bar_close_requested)
        self._body.addWidget(self.notice)
        self._body.addWidget(self._placeholder, 1)
        self._body.addWidget(self.find_bar)
        self._body.addWidget(self.go_bar)
        self._body.addWidget(self._build_status_row(container))
        self.set_content(container)
        for keys, slot in (
            ("Ctrl+G", self.focus_go_to_line),
            ("F3", self._on_find_next_shortcut),
            ("Shift+F3", self._on_find_previous_shortcut),
        ):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self._timer = QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._read_first_page()

    def _read_first_page(self) -> None:
        path, name, codec, generation = (
            self._source.path,
            self._source.name,
            self._codec_choice,
            self._generation,
        )
        self.run_in_background(
            lambda opened, _cancelled: (
                generation,
                read_first_page(opened, path, name, codec),
            ),
            self._on_first_page_read,
        )

    def _build_status_row(self, parent: QWidget) -> QWidget:
        row = QWidget(parent)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(6, 1, 4, 1)
        self.status = QLabel(row)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setAccessibleName("Text facts")
        self.progress = QProgressBar(row)
        self.progress.setRange(0, 100)
        self.progress.setTextVisible(False)
        self.progress.setFixedSize(120, 6)
        self.progress.setAccessibleName("Indexing progress")
        self.progress.hide()
        self.wrap_button = QToolButton(row)
        self.wrap_button.setText("Wrap lines")
        self.wrap_button.setCheckable(True)
        self.wrap_button.setAutoRaise(True)
        self.wrap_button.setAccessibleName("Wrap long lines")
        self.wrap_button.toggled.connect(self.set_wrap)
        self.encoding_button = QToolButton(row)
        self.encoding_button.setText("Reopen with encoding…")
        self.encoding_button.setAutoRaise(True)
        self.encoding_button.setAccessibleName("Reopen with encoding")
        self.encoding_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.encoding_menu = QMenu(self.encoding_button)
        self.encoding_menu.setAccessibleName("Encodings")
        for codec in CHOOSABLE:
            action = self.encoding_menu.addAction(TextEncoding(codec).label)
            action.setData(codec)
            action.setCheckable(True)
        self.encoding_menu.triggered.connect(self._on_encoding_menu_triggered)
        self.encoding_button.setMenu(self.encoding_menu)
        self.encoding_button.hide()
        layout.addWidget(self.status, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.encoding_button)
        layout.addWidget(self.wrap_button)
        return row

    def _on_encoding_menu_triggered(self, action: QAction) -> None:
        codec = action.data()
        if isinstance(codec, str):
            self.reopen_with(codec)

    def reopen_with(self, codec: str) -> None:
        """Read the text again in ``codec`` (one of ``CHOOSABLE``)."""
        from previewers.text.view import TextNoticeWidget

        self._generation += 1
        self._codec_choice = codec
        self._timer.stop()
        self._index = None
        self._pending_find = None
        self._text = ""
        old = self.code_view or self.paged_view
        self.code_view = self.paged_view = None
        if old is not None:
            self._placeholder = QLabel("Loading…", old.parentWidget())
            self._placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self._body.replaceWidget(old, self._placeholder)
            old.deleteLater()
        notice = TextNoticeWidget(self.notice.parentWidget())
        notice.reloadClicked.connect(self.reloadRequested)
        self._body.replaceWidget(self.notice, notice)
        self.notice.deleteLater()
        self.notice = notice
        self.wrap_button.setEnabled(True)
        self.wrap_button.setToolTip("")
        self.status.setText("Reading…")
        self._read_first_page()

    # -- loading -----------------------------------------------------------------------

    @Slot(object)
    def _on_first_page_read(self, result: tuple[int, FirstPage]) -> None:
        from previewers.text.paged_view import TokenFormats

        generation, first = result
        if generation != self._generation:
            return
        page = first.page
        self._encoding = encoding = first.encoding
        legacy = encoding.unit == 1 and not encoding.utf8
        for action in self.encoding_menu.actions():
            action.setChecked(action.data() == encoding.codec)
        # Offered where it can help: a file without a byte order mark.
        self.encoding_button.setVisible(
            not encoding.bom or self._codec_choice is not None
        )
        if legacy and self._codec_choice is None:
            self.notice.add(
                f"This file is not UTF-8; it is shown as {encoding.name}. "
                "If the text looks wrong, use Reopen with encoding…"
            )
        if self._source.kind is Kind.JSON and not self._source.source_view:
            # JSON over the tree's size limit falls through to this view.
            self.notice.add(OVERSIZE_NOTICE)
        if page.had_invalid_bytes:
            self.notice.add(
                f"Some bytes are not valid {encoding.name} and are shown as \ufffd."
            )
        highlighter = first.highlighter
        formats = TokenFormats(self.is_dark()) if highlighter is not None else None
        self._facts = f"{first.language} · {encoding.name} · {human_size(first.size)}"
        if first.whole:
            self._show_whole(page.text)
            if highlighter is not None and formats is not None and self.code_view:
                self.code_view.set_highlighter(self._highlighter(highlighter), formats)
                self._scan_checkpoints(highlighter)
        else:
            self._show_paged(page)
            if highlighter is not None and formats is not None and self.paged_view:
                self.paged_view.highlighter = self._highlighter(highlighter)
                self.paged_view.formats = formats
                self.paged_view.set_source(self.paged_view.source())
            if not page.is_last:
                self._build_index()
        self._update_status()
        self.mark_loaded()

    def _highlighter(self, highlighter: Highlighter) -> Highlighter:
        highlighter.on_too_slow = self._on_highlighter_too_slow
        if highlighter.too_slow:
            self._on_highlighter_too_slow()
        return highlighter

    def _on_highlighter_too_slow(self) -> None:
        # Called while a view lays out its lines: the notice waits for the loop.
        QTimer.singleShot(0, self, self._show_too_slow_notice)

    @Slot()
    def _show_too_slow_notice(self) -> None:
        self.highlighting_stopped = True
        self.notice.add(TOO_SLOW_NOTICE)
        view = self.code_view or self.paged_view
        if view is not None:
            view.viewport().update()

    def _swap_placeholder(self, view: QWidget) -> None:
        self._body.replaceWidget(self._placeholder, view)
        self._placeholder.deleteLater()
        view.setFont(QFont(self._base_font))
        view.setAccessibleName(f"Text of {self._source.name}")

    def _show_whole(self, text: str) -> None:
        from previewers.text.view import CodeTextView, normalise_text

        view = CodeTextView(self)
        self.code_view = view
        self._swap_placeholder(view)
        self._text = normalise_text(text)
        view.setPlaceholderText("This file is empty.")
        view.setPlainText(self._text)
        wrap = self._source.kind in _WRAPPED_KINDS and not self._source.source_view
        self.wrap_button.setChecked(wrap)
        self.set_wrap(wrap)
        self.go_bar.set_total(view.blockCount())

    def _show_paged(self, page: Page) -> None:
        from previewers.text.paged_view import (
            MemoryLines,
            PagedTextView,
            split_like_index,
        )

        view = PagedTextView(self)
        self.paged_view = view
        self._swap_placeholder(view)
        view.fenceBroken.connect(self._on_paged_view_fence_broken)
        view.set_source(MemoryLines(split_like_index(page.text)))
        self.wrap_button.setEnabled(False)
        self.wrap_button.setToolTip("Long files are shown without wrapping.")
        self.go_bar.set_total(view.source().total, exact=page.is_last)

    def _scan_checkpoints(self, highlighter: Highlighter) -> None:
        """The whole text's pass (lexer checkpoints, or a parsed tree), on a worker."""
        lines = self._text.split("\n")
        self.run_in_background(
            lambda _file, cancelled: highlighter.scan(lines, cancelled.is_set),
            self._on_checkpoints_scanned,
        )

    @Slot(object)
    def _on_checkpoints_scanned(self, scan: LexPass | TreeScan) -> None:
        view = self.code_view
        if scan.too_slow and view is not None and view.highlighter is not None:
            view.highlighter.too_slow = True
            self._show_too_slow_notice()
        elif view is not None and view.highlighter is not None:
            view.highlighter.adopt(scan)
            view.rehighlight_visible()
        self.scan_done = True

    def _build_index(self) -> None:
        path, progress = self._source.path, self._index_progress
        encoding, generation = self._encoding, self._generation
        self.progress.show()
        self._timer.start()

        def job(file: VerifiedFile, cancelled: threading.Event) -> IndexOutcome:
            from app.formats.line_index import LineIndex

            try:
                index = LineIndex.build(
                    file,
                    path=path,
                    progress=progress.update,
                    cancelled=cancelled.is_set,
                    encoding=encoding,
                )
            except FenceBrokenError as error:
                return IndexOutcome(None, str(error), generation)
            return IndexOutcome(index, "", generation)

        self.run_in_background(job, self._on_index_built)

    @Slot(object)
    def _on_index_built(self, outcome: IndexOutcome) -> None:
        if outcome.generation != self._generation:
            return
        from previewers.text.paged_view import IndexedLines

        self._index_progress.share = 1.0
        if outcome.index is None:
            self._on_paged_view_fence_broken(outcome.error)
        elif self.paged_view is not None and not self.paged_view.is_frozen():
            self._index = outcome.index
            self.paged_view.set_source(IndexedLines(outcome.index, self.borrow_file))
            self.go_bar.set_total(outcome.index.total_lines)
        self._update_status()
        if self._pending_find is not None and self._index is not None:
            needle, backward = self._pending_find
            self._pending_find = None
            self.find_next(needle, backward)

    # -- what the workspace and tests use -------------------------------------------

    def is_indexed(self) -> bool:
        return self._index is not None

    def index_share(self) -> float:
        return self._index_progress.share

    def notice_text(self) -> str:
        return self.notice.text()

    def find_status(self) -> str:
        return self.find_bar.status.text()

    def match_count_text(self) -> str:
        """What the find bar says of the match count in a paged file ('' if none)."""
        return self.find_bar.count.text() if self.find_bar.count.isVisible() else ""

    def text(self) -> str:
        """The whole text (whole-file view) or the lines on screen (paged view)."""
        if self.code_view is not None:
            return self.code_view.toPlainText()
        if self.paged_view is not None:
            return "\n".join(self.paged_view.shown_lines())
        return ""

    def line_count(self) -> int:
        """Lines as a person counts them: a final line end opens no new line."""
        if self.code_view is not None:
            text = self._text
            return text.count("\n") + (0 if not text or text.endswith("\n") else 1)
        return self.paged_view.source().total if self.paged_view is not None else 0

    def current_line(self) -> int:
        """The 1-based line of the cursor (or of the first selected line)."""
        if self.code_view is not None:
            return self.code_view.textCursor().blockNumber() + 1
        found = self.paged_view.selected_range() if self.paged_view else None
        return found[0] + 1 if found else 0

    @Slot(bool)
    def set_wrap(self, wrap: bool) -> None:
        if self.code_view is None:
            return
        self.code_view.setLineWrapMode(
            self.code_view.LineWrapMode.WidgetWidth
            if wrap
            else self.code_view.LineWrapMode.NoWrap
        )
        if self.wrap_button.isChecked() != wrap:
            self.wrap_button.setChecked(wrap)

    @Slot(int)
    def go_to_line(self, line: int) -> None:
        """Select 1-based ``line`` (clamped to the file) and scroll to it."""
        if self.code_view is not None:
            from PySide6.QtGui import QTextCursor

            block = self.code_view.document().findBlockByNumber(
                min(max(line, 1), self.code_view.blockCount()) - 1
            )
            cursor = QTextCursor(block)
            cursor.movePosition(
                QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor
            )
            self.code_view.setTextCursor(cursor)
            self.code_view.centerCursor()
        elif self.paged_view is not None:
            self.paged_view.go_to_line(line - 1)

    def focus_go_to_line(self) -> None:
        self.go_bar.show()
        self.go_bar.field.setFocus()
        self.go_bar.field.selectAll()

    def focus_find(self) -> None:
        self.find_bar.show()
        if self.code_view is not None:
            selected = self.code_view.textCursor().selectedText()
            if selected and "\u2029" not in selected:
                self.find_bar.field.setText(selected)
        self.find_bar.field.setFocus()
        self.find_bar.field.selectAll()

    def find_next(self, text: str, backward: bool = False) -> bool:
        """Select the next match; the paged view searches on the pool (False now)."""
        if not text:
            self.find_bar.status.clear()
            return False
        if self.code_view is not None:
            self._count_matches(text)
            index = self.code_view.step_match(backward)
            total = len(self.code_view.matches)
            self.find_bar.status.setText(
                f"{index + 1:,} of {total:,}" if total else "No matches"
            )
            return total > 0
        if self.paged_view is not None:
            self._start_paged_search(text, backward)
        return False

    def zoom_in(self) -> None:
        self._set_points(self._view_font().pointSizeF() + 1)

    def zoom_out(self) -> None:
        self._set_points(self._view_font().pointSizeF() - 1)

    def zoom_reset(self) -> None:
        self._set_points(self._base_font.pointSizeF())

    def release(self) -> None:
        self._timer.stop()
        self._stop_paged_jobs()
        super().release()

    # -- internals ---------------------------------------------------------------------

    def _view(self) -> QWidget | None:
        return self.code_view or self.paged_view

    def _view_font(self) -> QFont:
        view = self._view()
        return view.font() if view is not None else QFont(self._base_font)

    def _set_points(self, points: float) -> None:
        view = self._view()
        if view is None:
            return
        font = QFont(view.font())
        font.setPointSizeF(min(max(points, _MIN_POINTS), _MAX_POINTS))
        view.setFont(font)

    def _count_matches(self, text: str) -> None:
        from previewers.text.view import find_matches

        if self.code_view is not None and text != self._needle:
            self._needle = text
            self.code_view.set_matches(find_matches(self._text, text))

    def _update_status(self) -> None:
        if self.paged_view is not None and self._index is None:
            share = int(self._index_progress.share * 100)
            if self._timer.isActive():
                self.progress.setValue(share)
                lines = f"Indexing lines… {share} %"
            else:
                lines = f"{self.paged_view.source().total:,}+ lines"
        else:
            self.progress.hide()
            count = self.line_count()
            lines = counted(count, "line")
        self.status.setText(f"{self._facts} · {lines}" if self._facts else lines)

    def _start_paged_search(self, needle: str, backward: bool) -> None:
        view, index = self.paged_view, self._index
        if view is None or view.is_frozen():
            self.find_bar.status.setText("Find stopped: the file changed on disk.")
            return
        if index is None:
            self._pending_find = (needle, backward)
            self.find_bar.status.setText("Find starts when the line index is ready…")
            return
        if self._search is not None:
            self._search.set()
        stop = self._search = threading.Event()
        match = view.current_match()
        line, column = match if match else (view.top_line(), -1)
        column += 0 if backward else 1
        progress = self._search_progress
        progress.share = 0.0
        self._timer.start()
        self.find_bar.status.setText("Searching…")
        self.find_bar.set_busy(True)
        if self._counted is None or self._counted[0] != needle:
            self._start_paged_count(index, needle)

        def job(file: VerifiedFile, cancelled: threading.Event) -> SearchOutcome:
            def is_stopped() -> bool:
                return stop.is_set() or cancelled.is_set()

            try:
                found = index.find(
                    needle,
                    line,
                    start_column=max(column, 0),
                    backward=backward,
                    progress=progress.update,
                    cancelled=is_stopped,
                )
                if found is None and (line, column) > (0, 0):
                    # Wrap round once, from the other end.
                    start = (index.total_lines, 0) if backward else (0, 0)
                    found = index.find(
                        needle,
                        start[0],
                        start_column=start[1],
                        backward=backward,
                        cancelled=is_stopped,
                    )
            except BuildCancelledError:
                return SearchOutcome(needle, None, "cancelled")
            except (FenceBrokenError, ValueError) as error:
                return SearchOutcome(needle, None, str(error))
            return SearchOutcome(needle, found, "")

        self.run_in_background(job, self._on_paged_search_finished)

    def _start_paged_count(self, index: LineIndex, needle: str) -> None:
        """Count the matches in the whole file on the pool; the view goes on."""
        if self._count is not None:
            self._count.set()
        stop = self._count = threading.Event()
        self._counted = None
        progress = self._count_progress
        progress.share = 0.0
        self.find_bar.show_count("Counting… 0 %")

        def job(file: VerifiedFile, cancelled: threading.Event) -> CountOutcome:
            try:
                count = index.count(
                    needle,
                    progress=progress.update,
                    cancelled=lambda: stop.is_set() or cancelled.is_set(),
                )
            except BuildCancelledError:
                return CountOutcome(needle, None, "cancelled")
            except (FenceBrokenError, ValueError) as error:
                return CountOutcome(needle, None, str(error))
            return CountOutcome(needle, count, "")

        def finished(outcome: CountOutcome) -> None:
            self._on_paged_count_finished(stop, outcome)

        self.run_in_background(job, finished)

    def _on_paged_count_finished(
        self, stop: threading.Event, outcome: CountOutcome
    ) -> None:
        if stop is not self._count:  # a later count or a cancel took its place
            return
        self._count = None
        self.find_bar.set_busy(self._search is not None)
        if outcome.count is None:  # cancelled, or the file changed
            self.find_bar.show_count("")
            return
        self._counted = (outcome.needle, outcome.count)
        count = outcome.count
        self.find_bar.show_count(counted(count, "match", "matches"))

    def _stop_paged_jobs(self) -> None:
        for running in (self._search, self._count):
            if running is not None:
                running.set()
        self._search = self._count = None

    @Slot()
    def _on_find_bar_cancel_requested(self) -> None:
        busy = self._search is not None or self._count is not None
        self._stop_paged_jobs()
        self._pending_find = None
        self.find_bar.set_busy(False)
        self.find_bar.show_count("")
        if busy:
            self.find_bar.status.setText("Find cancelled")

    @Slot(object)
    def _on_paged_search_finished(self, outcome: SearchOutcome) -> None:
        view = self.paged_view
        if outcome.error == "cancelled" or view is None:
            return
        self._search = None
        self.find_bar.set_busy(self._count is not None)
        if outcome.error:
            self.find_bar.status.setText(outcome.error)
        elif outcome.found is None:
            self.find_bar.status.setText("No matches")
        else:
            line, column = outcome.found
            view.show_match(line, column, len(outcome.needle))
            self.find_bar.status.setText(f"Line {line + 1:,}")

    @Slot(str)
    def _on_paged_view_fence_broken(self, _reason: str) -> None:
        self._timer.stop()
        self.progress.hide()
        connected = self.isSignalConnected(QMetaMethod.fromSignal(self.reloadRequested))
        self.notice.reload_button.setVisible(connected)
        self.notice.add(CHANGED_NOTICE if connected else CHANGED_NOTICE + " (F5)")
        self._update_status()

    @Slot()
    def _on_timer_timeout(self) -> None:
        if self._index is None and self.paged_view is not None:
            self._update_status()
        if self._search is not None:
            share = int(self._search_progress.share * 100)
            self.find_bar.status.setText(f"Searching… {share} %")
        if self._count is not None:
            share = int(self._count_progress.share * 100)
            self.find_bar.show_count(f"Counting… {share} %")
        if self._search is None and self._count is None and self._index is not None:
            self._timer.stop()

    @Slot(str, bool)
    def _on_find_bar_search_requested(self, text: str, backward: bool) -> None:
        self.find_next(text, backward)

    @Slot(str)
    def _on_find_field_text_changed(self, text: str) -> None:
        if self.code_view is None:
            return
        self._count_matches(text)
        total = len(self.code_view.matches)
        self.find_bar.status.setText(
            ""
            if not text
            else counted(total, "match", "matches")
            if total
            else "No matches"
        )

    @Slot()
    def _on_find_bar_close_requested(self) -> None:
        self._stop_paged_jobs()
        self._counted = None
        self.find_bar.set_busy(False)
        self.find_bar.show_count("")
        self.find_bar.hide()
        if self.code_view is not None:
            self._needle = ""
            self.code_view.set_matches([])
        elif self.paged_view is not None:
            self.paged_view.clear_match()
        view = self._view()
        if view is not None:
            view.setFocus()

    @Slot()
    def _on_go_bar_close_requested(self) -> None:
        self.go_bar.hide()
        view = self._view()
        if view is not None:
            view.setFocus()

    @Slot()
    def _on_find_next_shortcut(self) -> None:
        self.find_next(self.find_bar.field.text(), False)

    @Slot()
    def _on_find_previous_shortcut(self) -> None:
        self.find_next(self.find_bar.field.text(), True)
