"""The JSON preview: a lazy tree and the pretty-printed text, parsed on a worker.

Problems never crash the preview: a syntax error shows its line and column with
the text around it; deep nesting, huge integers, NaN/Infinity and duplicate keys
are listed in a notice bar. Nothing that depends on the file's content runs on
the GUI thread: the parse, the duplicate-key pass (its warnings join the notice
bar when it ends), the indented text and its document are all built on a
worker, and each stops when the preview closes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Slot,
)
from PySide6.QtGui import QFontDatabase, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QPlainTextEdit,
    QTableView,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.core.trust.safeio import VerifiedFile
from app.formats.encoding import detect_encoding
from app.formats.json_load import (
    JSON_SIZE_LIMIT,
    LAZY_LIMIT,
    RAW_LIMIT,
    JsonDocument,
    JsonLines,
    JsonProblem,
    JsonStoppedError,
    LazyContainer,
    LazyDocument,
    check_json,
    load_json_fast,
    load_json_lazy,
    load_json_lines,
    load_json_raw,
    pretty_json,
    pretty_parts,
)
from previewers.context import STANDALONE, PreviewContext
from previewers.json.tree import JsonTreeModel
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget
from previewers.widgets import FindBarWidget, notice_label

LINES_SUFFIXES = (".jsonl", ".ndjson")
TEXT_TAB_LIMIT = 4 * 1024 * 1024
"""The Text tab shows at most this many characters (then a note to see the tree)."""
LINE_CHARS = 10_000
"""A line of the Text tab is drawn up to this many characters."""
MATCH_LIMIT = 100_000
_CONTEXT_LINES = 3


_CUT_NOTE = "\n… (the rest is not shown; see the tree)"


@dataclass(frozen=True)
class JsonLoad:
    """What the worker parsed: a document, a problem, or JSON Lines."""

    result: JsonDocument | LazyDocument | JsonProblem | JsonLines
    lines: tuple[str, ...] | None = None
    """The Text tab's lines when they are the file's own text (lines, problems)."""
    context: str = ""
    """The lines around a problem, with a caret under its column."""


def error_context(text: str, problem: JsonProblem) -> str:
    """The lines around ``problem`` with a caret under its column."""
    if problem.line <= 0:
        return ""
    lines = text.splitlines()
    first = max(problem.line - 1 - _CONTEXT_LINES, 0)
    shown: list[str] = []
    width = len(str(problem.line + _CONTEXT_LINES))
    for number in range(first, min(problem.line + _CONTEXT_LINES, len(lines))):
        line = lines[number]
        if len(line) > 300:  # a minified file: keep the part around the column
            start = max(problem.column - 150, 0) if number == problem.line - 1 else 0
            line = line[start : start + 300]
        else:
            start = 0
        shown.append(f"{number + 1:>{width}} | {line}")
        if number == problem.line - 1:
            column = max(problem.column - 1 - start, 0)
            shown.append(" " * (width + 3 + column) + "^")
    return "\n".join(shown)


def problem_text(problem: JsonProblem) -> str:
    where = f" Line {problem.line}, column {problem.column}." if problem.line else ""
    return problem.message + where


def text_lines(text: str) -> tuple[str, ...]:
    """The Text tab's lines: cut past ``TEXT_TAB_LIMIT`` with a note to see the tree.

    The tab is a list of lines, not a ``QTextDocument``: building a document
    of megabytes holds the interpreter lock for the whole call (0.4 s for
    2 MB), on whichever thread builds it, and the GUI thread waits for it.
    """
    cut = len(text) > TEXT_TAB_LIMIT
    lines = text[:TEXT_TAB_LIMIT].splitlines()
    if cut:
        lines.append(_CUT_NOTE.strip())
    return tuple(lines)


class TextLinesModel(QAbstractListModel):
    """The Text tab's lines, one row each; long lines drawn cut.

    Signals: those of ``QAbstractListModel``.
    """

    def __init__(self, lines: tuple[str, ...] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self.lines = lines

    def set_lines(self, lines: tuple[str, ...]) -> None:
        self.beginResetModel()
        self.lines = lines
        self.endResetModel()

    def rowCount(
        self,
        parent: QModelIndex | QPersistentModelIndex = QModelIndex(),  # noqa: B008
    ) -> int:
        return 0 if parent.isValid() else len(self.lines)

    def data(
        self,
        index: QModelIndex | QPersistentModelIndex,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if not index.isValid() or role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.AccessibleTextRole,
        ):
            return None
        line = self.lines[index.row()]
        return line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + "…"


def find_in_lines(
    lines: tuple[str, ...], needle: str, cancelled: threading.Event
) -> tuple[tuple[int, int], ...]:
    """(line, column) of each case-insensitive match, at most ``MATCH_LIMIT``."""
    wanted = needle.casefold()
    found: list[tuple[int, int]] = []
    for number, line in enumerate(lines):
        if number % 4096 == 0 and cancelled.is_set():
            break
        folded = line.casefold() if not line.isascii() else line.lower()
        column = folded.find(wanted)
        while column != -1 and len(found) < MATCH_LIMIT:
            found.append((number, column))
            column = folded.find(wanted, column + max(len(wanted), 1))
        if len(found) >= MATCH_LIMIT:
            break
    return tuple(found)


def indented_text(value: Any, cancelled: threading.Event | None = None) -> str:
    """The Text tab's indented text of ``value``, at most about ``TEXT_TAB_LIMIT``.

    A big (indexed) document is written child by child and stops, raising
    ``JsonStoppedError``, once ``cancelled`` is set.
    """
    if isinstance(value, LazyContainer):
        parts: list[str] = []
        for part in pretty_parts(value, TEXT_TAB_LIMIT):
            if cancelled is not None and cancelled.is_set():
                raise JsonStoppedError("the preview was closed")
            parts.append(part)
        return "".join(parts)
    try:
        return pretty_json(value)
    except RecursionError:
        return "The value is nested too deeply to indent; see the tree."


def _load(data: bytes, lines: bool, cancelled: threading.Event) -> JsonLoad:
    if lines:
        found = load_json_lines(data, cancelled.is_set)
        text = data[: TEXT_TAB_LIMIT * 4].decode("utf-8-sig", "replace")
        return JsonLoad(found, text_lines(text))
    result: JsonDocument | LazyDocument | JsonProblem
    if len(data) > LAZY_LIMIT:
        result = load_json_lazy(data, cancelled.is_set)
    else:
        raw = load_json_raw(data) if len(data) > RAW_LIMIT else None
        result = raw if raw is not None else load_json_fast(data)
    if isinstance(result, JsonProblem):
        encoding = detect_encoding(data)
        text = data[len(encoding.bom) :].decode(encoding.codec, "replace")
        return JsonLoad(result, text_lines(text), error_context(text, result))
    return JsonLoad(result)


class JsonPreviewWidget(PreviewWidget):
    """A notice bar over two tabs: the lazy tree and the pretty-printed text.

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
        self.model: JsonTreeModel | None = None
        self._value: Any = None
        self._text_pending = True
        """The Text tab's lines are not there yet (asked for, or not)."""
        self._text_asked = False
        container = QWidget(self)
        layout = QVBoxLayout(container)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.notice = notice_label(container, "JSON notice")
        self.tree = QTreeView(container)
        self.tree.setAccessibleName(f"Tree of {source.name}")
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.activated.connect(self._on_tree_activated)
        self.tree.clicked.connect(self._on_tree_activated)
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.text_lines = TextLinesModel(parent=self)
        # A table, not a QListView: that one asks rowCount once per row when it
        # lays out (320,000 Python calls for 160,000 lines).
        self.text_view = QTableView(container)
        self.text_view.setModel(self.text_lines)
        self.text_view.setFont(fixed)
        self.text_view.setShowGrid(False)
        self.text_view.setWordWrap(False)
        self.text_view.horizontalHeader().hide()
        self.text_view.horizontalHeader().setStretchLastSection(True)
        rows = self.text_view.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.text_view.fontMetrics().height() + 2)
        self.text_view.setSelectionBehavior(
            QAbstractItemView.SelectionBehavior.SelectRows
        )
        self.text_view.setAccessibleName(f"Text of {source.name}")
        self.text_view.setSelectionMode(
            QAbstractItemView.SelectionMode.ExtendedSelection
        )
        self.text_view.setHorizontalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAsNeeded
        )
        copy = QShortcut(QKeySequence.StandardKey.Copy, self.text_view)
        copy.setContext(Qt.ShortcutContext.WidgetShortcut)
        copy.activated.connect(self._on_copy_activated)
        self.find_bar = FindBarWidget(container)
        self.find_bar.hide()
        self.find_bar.searchRequested.connect(self._on_find_bar_search_requested)
        self.find_bar.closeRequested.connect(self._on_find_bar_close_requested)
        self._matches: tuple[tuple[int, int], ...] = ()
        self._match_needle = ""
        self._match_at = -1
        self._find_cancel = threading.Event()
        self.error_view = QPlainTextEdit(container)
        self.error_view.setReadOnly(True)
        self.error_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.error_view.setFont(fixed)
        self.error_view.setAccessibleName("Where the JSON is broken")
        self.error_view.hide()
        self.tabs = QTabWidget(container)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.tree, "Tree")
        self.tabs.addTab(self.text_view, "Text")
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        layout.addWidget(self.notice)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.find_bar)
        self.set_content(container)
        lines = source.name.lower().endswith(LINES_SUFFIXES)

        def job(file: VerifiedFile, cancelled: threading.Event) -> JsonLoad:
            return _load(file.read(JSON_SIZE_LIMIT + 1, 0), lines, cancelled)

        self.run_in_background(job, self._on_parser_finished)

    # -- loading -------------------------------------------------------------------

    @Slot(object)
    def _on_parser_finished(self, load: JsonLoad) -> None:
        result = load.result
        notices: list[str] = []
        check = False
        if isinstance(result, JsonProblem):
            self._show_problem(result, load)
            self.mark_loaded()
            return
        if isinstance(result, (JsonDocument, LazyDocument)):
            self._value = result.value
            self.model = JsonTreeModel.for_value(result.value, self)
            notices.extend(result.warnings)
            check = isinstance(result, JsonDocument) and not result.checked
        else:
            self.model = JsonTreeModel.for_lines(result, self)
            bad = list(result.bad)
            if bad:
                numbers = ", ".join(str(number) for number in bad[:10])
                more = "…" if len(bad) > 10 else ""
                notices.append(
                    f"{len(bad)} line(s) are not valid JSON: {numbers}{more}."
                )
            notices.extend(result.warnings)
            if load.lines is not None:
                self._set_lines(load.lines)
        self.tree.setModel(self.model)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.resizeSection(0, 240)
        header.resizeSection(1, 170)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        if isinstance(result, (JsonDocument, LazyDocument)):
            root = self.model.index(0, 0)
            # A shown view expands at its next layout; fetch now so the root's
            # children exist when "loaded" is announced.
            self.model.fetchMore(root)
            self.tree.expand(root)
        # Lay the first page out now, before the duplicate-key pass starts: the
        # layout calls into the model thousands of times, and each call waits
        # for the interpreter lock while that pass runs.
        self.tree.doItemsLayout()
        self._set_notices(notices[:20])
        self.mark_loaded()
        if check:
            self._check_in_background()
        if self.tabs.currentWidget() is self.text_view:
            self._on_tabs_current_changed(self.tabs.currentIndex())

    def _check_in_background(self) -> None:
        """Look for duplicate keys on a worker; their warnings join the notices."""

        def job(file: VerifiedFile, cancelled: threading.Event) -> tuple[str, ...]:
            return check_json(file.read(JSON_SIZE_LIMIT + 1, 0), cancelled.is_set)

        self.run_in_background(job, self._on_check_finished)

    @Slot(object)
    def _on_check_finished(self, warnings: tuple[str, ...]) -> None:
        if warnings:
            shown = [line for line in self.notice.text().split("\n") if line]
            self._set_notices([*shown, *warnings][:20])

    def _show_problem(self, problem: JsonProblem, load: JsonLoad) -> None:
        self._set_notices([problem_text(problem)])
        self.error_view.setPlainText(load.context or problem_text(problem))
        index = self.tabs.indexOf(self.tree)
        self.tabs.removeTab(index)
        self.tabs.insertTab(index, self.error_view, "Error")
        self.tabs.setCurrentIndex(index)
        self.error_view.show()
        if load.lines is not None:
            self._set_lines(load.lines)

    def _set_notices(self, notices: list[str]) -> None:
        self.notice.setText("\n".join(notices))
        self.notice.setVisible(bool(notices))

    def _set_lines(self, lines: tuple[str, ...]) -> None:
        self._text_pending = False
        self.text_lines.set_lines(lines)
        if self._match_needle:
            self.find_next(self._match_needle)

    # -- what the workspace uses ---------------------------------------------------

    def notice_text(self) -> str:
        return self.notice.text() if self.notice.isVisibleTo(self) else ""

    def error_text(self) -> str:
        return self.error_view.toPlainText()

    def show_text(self) -> None:
        self.tabs.setCurrentWidget(self.text_view)

    def text(self) -> str:
        return "\n".join(self.text_lines.lines)

    def find_status(self) -> str:
        return self.find_bar.status.text()

    def focus_find(self) -> None:
        self.find_bar.show()
        self.find_bar.field.setFocus()
        self.find_bar.field.selectAll()

    def find_next(self, text: str, backward: bool = False) -> bool:
        """Find ``text`` in the Text tab (case-insensitive), with a match count.

        The matches are counted on a worker; the next call steps through them.
        """
        if not text:
            self._matches, self._match_needle, self._match_at = (), "", -1
            self.find_bar.status.clear()
            return False
        self.show_text()
        if self._text_pending:
            self._match_needle = text
            self.find_bar.status.setText("Find starts when the text is ready…")
            return False
        if text != self._match_needle or self._match_at < 0:
            self._start_find(text, backward)
            return False
        return self._step_match(backward)

    def _start_find(self, text: str, backward: bool) -> None:
        self._find_cancel.set()
        cancel = self._find_cancel = threading.Event()
        self._match_needle, self._match_at, self._matches = text, -1, ()
        self.find_bar.status.setText("Searching…")
        lines = self.text_lines.lines

        def job(
            _file: VerifiedFile, cancelled: threading.Event
        ) -> tuple[threading.Event, tuple[tuple[int, int], ...]]:
            return cancel, find_in_lines(lines, text, cancel)

        self.run_in_background(job, self._on_find_finished)

    @Slot(object)
    def _on_find_finished(
        self, outcome: tuple[threading.Event, tuple[tuple[int, int], ...]]
    ) -> None:
        search, matches = outcome
        if search is not self._find_cancel:
            return  # a newer search is under way, maybe for the same text
        self._matches = matches
        if not matches:
            self.find_bar.status.setText("No matches")
            return
        self._match_at = -1
        self._step_match(False)

    def _step_match(self, backward: bool) -> bool:
        if not self._matches:
            return False
        step = -1 if backward else 1
        self._match_at = (self._match_at + step) % len(self._matches)
        line, _column = self._matches[self._match_at]
        index = self.text_lines.index(line, 0)
        self.text_view.setCurrentIndex(index)
        self.text_view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        more = "+" if len(self._matches) >= MATCH_LIMIT else ""
        self.find_bar.status.setText(
            f"{self._match_at + 1:,} of {len(self._matches):,}{more}"
        )
        return True

    def current_match(self) -> tuple[int, int] | None:
        """(line, column) of the match shown, if any."""
        if 0 <= self._match_at < len(self._matches):
            return self._matches[self._match_at]
        return None

    # -- slots ---------------------------------------------------------------------

    @Slot(int)
    def _on_tabs_current_changed(self, _index: int) -> None:
        if self.tabs.currentWidget() is not self.text_view or self._text_asked:
            return
        if self.model is None:
            return
        self._text_asked = True
        value = self._value

        def job(_file: VerifiedFile, cancelled: threading.Event) -> tuple[str, ...]:
            # Indenting is as slow as parsing on large files: only on demand.
            text = indented_text(value, cancelled)
            if cancelled.is_set():
                raise JsonStoppedError("the preview was closed")
            return text_lines(text)

        self.run_in_background(job, self._set_lines)

    @Slot()
    def _on_copy_activated(self) -> None:
        rows = sorted(index.row() for index in self.text_view.selectedIndexes())
        if rows:
            lines = self.text_lines.lines
            QGuiApplication.clipboard().setText("\n".join(lines[row] for row in rows))

    @Slot(str, bool)
    def _on_find_bar_search_requested(self, text: str, backward: bool) -> None:
        self.find_next(text, backward)

    @Slot()
    def _on_find_bar_close_requested(self) -> None:
        self._find_cancel.set()
        self.find_bar.hide()

    @Slot(QModelIndex)
    def _on_tree_activated(self, index: QModelIndex) -> None:
        if self.model is not None:
            self.model.show_more(index)
