"""Plain text: the first 2 MiB of a text file, decoded off the GUI thread."""

from __future__ import annotations

import codecs
import threading
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import (
    QFont,
    QFontDatabase,
    QKeySequence,
    QShortcut,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.kinds import Kind
from app.core.safeio import VerifiedFile
from previewers import magic
from previewers.base import PreviewSource, PreviewWidget, notice_label

MIB = 1 << 20
TEXT_LIMIT = 2 * MIB
"""Text up to this size loads whole; beyond it only this much is shown."""

TEXT_KINDS = frozenset(
    {Kind.TEXT, Kind.CODE, Kind.MARKDOWN, Kind.JSON, Kind.CSV, Kind.HTML}
)
# Kinds that read as prose wrap at the window edge; code and tables do not.
_WRAPPED_KINDS = frozenset({Kind.TEXT, Kind.MARKDOWN})
_TEXT_MIMES = frozenset({magic.EMPTY_MIME, "image/svg+xml"})

_MIN_POINTS, _MAX_POINTS = 6, 72


@dataclass(frozen=True)
class TextLoadResult:
    """Decoded text and what the user should know about how it was decoded."""

    text: str
    encoding: str
    notices: tuple[str, ...]
    truncated: bool
    size: int


def _mib(size: int) -> str:
    return f"{size / MIB:.1f}"


def load_text(file: VerifiedFile, limit: int = TEXT_LIMIT) -> TextLoadResult:
    """Read and decode at most ``limit`` bytes, never splitting a character.

    Reads go through the descriptor. A byte order mark (UTF-8/16/32) picks the
    encoding and is dropped; otherwise UTF-8, with invalid bytes replaced.
    """
    # A few bytes past the limit say whether there is more to the file.
    data = file.read(limit + 4, 0)
    size = max(file.current_identity().size, len(data))
    truncated = len(data) > limit
    bom = magic.bom_encoding(data)
    encoding, skip = bom if bom is not None else ("utf-8", 0)
    body = data[skip:limit] if truncated else data[skip:]
    # final=False on a cut file: a character split by the cut is left out whole.
    final = not truncated
    notices: list[str] = []
    try:
        text = codecs.getincrementaldecoder(encoding)("strict").decode(body, final)
    except UnicodeDecodeError:
        text = codecs.getincrementaldecoder(encoding)("replace").decode(body, final)
        notices.append(
            f"Some bytes are not valid {encoding.upper()} and are shown as \ufffd."
        )
    if truncated:
        notices.append(
            f"Showing the first {_mib(limit)} MiB of {_mib(size)} MiB; "
            "paging arrives with the text previewer."
        )
    return TextLoadResult(text, encoding, tuple(notices), truncated, size)


class PlainTextPreviewer:
    """Text kinds, text-looking files and "Show source"; never a binary head."""

    name = "plain-text"

    def accepts(self, source: PreviewSource) -> bool:
        textual = magic.is_textual_mime(source.mime) or source.mime in _TEXT_MIMES
        if not textual or magic.looks_binary(source.head):
            return False
        return (
            source.source_view
            or source.kind in TEXT_KINDS
            or magic.is_textual_mime(source.mime)
        )

    def create(
        self, source: PreviewSource, file: VerifiedFile, parent: QWidget | None
    ) -> PlainTextPreviewWidget:
        return PlainTextPreviewWidget(source, file, parent)


class FindBarWidget(QWidget):
    """A one-line find bar: text, previous, next, close.

    Signals:
        searchRequested(str, bool): find the text; True means backwards.
        closeRequested(): the user closed the bar.
    """

    searchRequested = Signal(str, bool)
    closeRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.field = QLineEdit(self)
        self.field.setPlaceholderText("Find")
        self.field.setAccessibleName("Find text")
        self.field.setClearButtonEnabled(True)
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setAccessibleName("Find status")
        previous = QPushButton("Previous", self)
        previous.setAccessibleName("Find previous")
        following = QPushButton("Next", self)
        following.setAccessibleName("Find next")
        close = QPushButton("Close", self)
        close.setAccessibleName("Close find bar")
        for widget in (self.field, self.status, previous, following, close):
            layout.addWidget(widget, 1 if widget is self.field else 0)
        self.field.returnPressed.connect(self._on_field_return_pressed)
        previous.clicked.connect(self._on_previous_clicked)
        following.clicked.connect(self._on_next_clicked)
        close.clicked.connect(self.closeRequested)
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        escape.activated.connect(self.closeRequested)
        back = QShortcut(QKeySequence("Shift+Return"), self.field)
        back.setContext(Qt.ShortcutContext.WidgetShortcut)
        back.activated.connect(self._on_previous_clicked)

    @Slot()
    def _on_field_return_pressed(self) -> None:
        self.searchRequested.emit(self.field.text(), False)

    @Slot()
    def _on_previous_clicked(self) -> None:
        self.searchRequested.emit(self.field.text(), True)

    @Slot()
    def _on_next_clicked(self) -> None:
        self.searchRequested.emit(self.field.text(), False)


class PlainTextPreviewWidget(PreviewWidget):
    """A read-only monospace text view with a find bar and zoom.

    Signals: those of ``PreviewWidget``.
    """

    def __init__(
        self, source: PreviewSource, file: VerifiedFile, parent: QWidget | None = None
    ) -> None:
        super().__init__(source, file, parent)
        container = QWidget(self)
        layout = QVBoxLayout(container)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.notice = notice_label(container, "Text notice")
        self.editor = QPlainTextEdit(container)
        self.editor.setReadOnly(True)
        self.editor.setUndoRedoEnabled(False)
        self.editor.setAccessibleName(f"Text of {source.name}")
        self.editor.setPlaceholderText("Loading…")
        wrap = source.kind in _WRAPPED_KINDS and not source.source_view
        self.editor.setLineWrapMode(
            QPlainTextEdit.LineWrapMode.WidgetWidth
            if wrap
            else QPlainTextEdit.LineWrapMode.NoWrap
        )
        self._base_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.editor.setFont(QFont(self._base_font))
        self.find_bar = FindBarWidget(container)
        self.find_bar.hide()
        self.find_bar.searchRequested.connect(self._on_find_bar_search_requested)
        self.find_bar.closeRequested.connect(self._on_find_bar_close_requested)
        layout.addWidget(self.notice)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.find_bar)
        self.set_content(container)
        self.run_in_background(_load_job, self._on_loader_finished)

    @Slot(object)
    def _on_loader_finished(self, result: TextLoadResult) -> None:
        self.editor.setPlaceholderText("")
        self.editor.setPlainText(result.text)
        if result.notices:
            self.notice.setText("\n".join(result.notices))
            self.notice.show()
        self.mark_loaded()

    def text(self) -> str:
        return self.editor.toPlainText()

    def notice_text(self) -> str:
        return self.notice.text() if self.notice.isVisibleTo(self) else ""

    def find_next(self, text: str, backward: bool = False) -> bool:
        if not text:
            self.find_bar.status.clear()
            return False
        flags = QTextDocument.FindFlag(0)
        if backward:
            flags |= QTextDocument.FindFlag.FindBackward
        found = self.editor.find(text, flags)
        if not found:
            # Wrap around once, from the other end.
            cursor = self.editor.textCursor()
            cursor.movePosition(
                cursor.MoveOperation.End if backward else cursor.MoveOperation.Start
            )
            self.editor.setTextCursor(cursor)
            found = self.editor.find(text, flags)
        self.find_bar.status.setText("" if found else "Not found")
        return found

    def focus_find(self) -> None:
        self.find_bar.show()
        selected = self.editor.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            self.find_bar.field.setText(selected)
        self.find_bar.field.setFocus()
        self.find_bar.field.selectAll()

    def zoom_in(self) -> None:
        self._set_points(self.editor.font().pointSizeF() + 1)

    def zoom_out(self) -> None:
        self._set_points(self.editor.font().pointSizeF() - 1)

    def zoom_reset(self) -> None:
        self.editor.setFont(QFont(self._base_font))

    def _set_points(self, points: float) -> None:
        font = QFont(self.editor.font())
        font.setPointSizeF(min(max(points, _MIN_POINTS), _MAX_POINTS))
        self.editor.setFont(font)

    @Slot(str, bool)
    def _on_find_bar_search_requested(self, text: str, backward: bool) -> None:
        self.find_next(text, backward)

    @Slot()
    def _on_find_bar_close_requested(self) -> None:
        self.find_bar.hide()
        self.editor.setFocus()


def _load_job(file: VerifiedFile, cancelled: threading.Event) -> TextLoadResult:
    return load_text(file)
