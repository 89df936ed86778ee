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

from PySide6.QtCore import QCoreApplication, QModelIndex, Slot
from PySide6.QtGui import QFontDatabase, QTextDocument
from PySide6.QtWidgets import (
    QHeaderView,
    QPlainTextDocumentLayout,
    QPlainTextEdit,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.core.safeio import VerifiedFile
from app.formats.encoding import detect_encoding
from app.formats.json_load import (
    JSON_SIZE_LIMIT,
    LAZY_LIMIT,
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
    pretty_json,
    pretty_parts,
)
from previewers.context import STANDALONE, PreviewContext
from previewers.json.tree import JsonTreeModel
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget
from previewers.widgets import notice_label

LINES_SUFFIXES = (".jsonl", ".ndjson")
TEXT_TAB_LIMIT = 4 * 1024 * 1024
"""The Text tab shows at most this many characters (a QPlainTextEdit slows past it)."""
_CONTEXT_LINES = 3


_CUT_NOTE = "\n… (the rest is not shown; see the tree)"


@dataclass(frozen=True)
class JsonLoad:
    """What the worker parsed: a document, a problem, or JSON Lines."""

    result: JsonDocument | LazyDocument | JsonProblem | JsonLines
    text: str
    """The file's text around a problem ("" when it parsed)."""
    document: QTextDocument | None = None
    """The Text tab's document when it is the file's own text (lines, problems)."""


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


def text_document(text: str) -> QTextDocument:
    """A plain-text document for the Text tab, built on the calling thread.

    Past ``TEXT_TAB_LIMIT`` the text is cut with a note; the document is moved
    to the GUI thread, which only sets it on its view.
    """
    if len(text) > TEXT_TAB_LIMIT:
        text = text[:TEXT_TAB_LIMIT] + _CUT_NOTE
    document = QTextDocument()
    document.setDocumentLayout(QPlainTextDocumentLayout(document))
    document.setPlainText(text)
    application = QCoreApplication.instance()
    if application is not None:
        document.moveToThread(application.thread())
    return document


def indented_text(value: Any) -> str:
    """The Text tab's indented text of ``value``, at most about ``TEXT_TAB_LIMIT``."""
    if isinstance(value, LazyContainer):
        return "".join(pretty_parts(value, TEXT_TAB_LIMIT))
    try:
        return pretty_json(value)
    except RecursionError:
        return "The value is nested too deeply to indent; see the tree."


def _load(data: bytes, lines: bool, cancelled: threading.Event) -> JsonLoad:
    if lines:
        found = load_json_lines(data, cancelled.is_set)
        text = data[: TEXT_TAB_LIMIT * 4].decode("utf-8-sig", "replace")
        return JsonLoad(found, "", text_document(text))
    result: JsonDocument | LazyDocument | JsonProblem
    if len(data) > LAZY_LIMIT:
        result = load_json_lazy(data, cancelled.is_set)
    else:
        result = load_json_fast(data)
    if isinstance(result, JsonProblem):
        encoding = detect_encoding(data)
        text = data[len(encoding.bom) :].decode(encoding.codec, "replace")
        return JsonLoad(result, text, text_document(text))
    return JsonLoad(result, "")


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
        self.text_view = QPlainTextEdit(container)
        self.text_view.setReadOnly(True)
        self.text_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text_view.setFont(fixed)
        self.text_view.setAccessibleName(f"Text of {source.name}")
        self.text_view.setPlaceholderText("Loading…")
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
        if isinstance(result, JsonProblem):
            self._show_problem(result, load)
            self.mark_loaded()
            return
        if isinstance(result, (JsonDocument, LazyDocument)):
            self._value = result.value
            self.model = JsonTreeModel.for_value(result.value, self)
            notices.extend(result.warnings)
            if isinstance(result, JsonDocument) and not result.checked:
                self._check_in_background()
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
            if load.document is not None:
                self._set_document(load.document)
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
        self._set_notices(notices[:20])
        self.mark_loaded()

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
        text = load.text
        self._set_notices([problem_text(problem)])
        context = error_context(text, problem)
        self.error_view.setPlainText(context or problem_text(problem))
        index = self.tabs.indexOf(self.tree)
        self.tabs.removeTab(index)
        self.tabs.insertTab(index, self.error_view, "Error")
        self.tabs.setCurrentIndex(index)
        self.error_view.show()
        if load.document is not None:
            self._set_document(load.document)

    def _set_notices(self, notices: list[str]) -> None:
        self.notice.setText("\n".join(notices))
        self.notice.setVisible(bool(notices))

    def _set_document(self, document: QTextDocument) -> None:
        self._text_pending = False
        self.text_view.setPlaceholderText("")
        document.setParent(self.text_view)
        document.setDefaultFont(self.text_view.font())
        self.text_view.setDocument(document)

    # -- what the workspace uses ---------------------------------------------------

    def notice_text(self) -> str:
        return self.notice.text() if self.notice.isVisibleTo(self) else ""

    def error_text(self) -> str:
        return self.error_view.toPlainText()

    def show_text(self) -> None:
        self.tabs.setCurrentWidget(self.text_view)

    def text(self) -> str:
        return self.text_view.toPlainText()

    # -- slots ---------------------------------------------------------------------

    @Slot(int)
    def _on_tabs_current_changed(self, _index: int) -> None:
        if self.tabs.currentWidget() is not self.text_view or not self._text_pending:
            return
        if self.model is None:
            return
        self._text_pending = False
        value = self._value

        def job(_file: VerifiedFile, cancelled: threading.Event) -> QTextDocument:
            # Indenting is as slow as parsing on large files: only on demand.
            text = indented_text(value)
            if cancelled.is_set():
                raise JsonStoppedError("the preview was closed")
            return text_document(text)

        self.run_in_background(job, self._set_document)

    @Slot(QModelIndex)
    def _on_tree_activated(self, index: QModelIndex) -> None:
        if self.model is not None:
            self.model.show_more(index)
