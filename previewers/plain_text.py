"""Plain-text pieces the previews share: bounded decoding and the find bar.

The code previewer shows text files; web and PDF previews use ``load_text`` for
their source views and ``FindBarWidget`` for find.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import (
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from app.core.safeio import VerifiedFile
from app.core.sizes import human_size
from app.formats.encoding import detect_encoding

MIB = 1 << 20
TEXT_LIMIT = 2 * MIB
"""Text up to this size loads whole; beyond it only this much is shown."""


@dataclass(frozen=True)
class TextLoadResult:
    """Decoded text and what the user should know about how it was decoded."""

    text: str
    encoding: str
    notices: tuple[str, ...]
    truncated: bool
    size: int


def load_text(file: VerifiedFile, limit: int = TEXT_LIMIT) -> TextLoadResult:
    """Read and decode at most ``limit`` bytes, never splitting a character.

    Reads go through the descriptor. A byte order mark (UTF-8/16/32) picks the
    encoding and is dropped; otherwise UTF-8, with invalid bytes replaced.
    """
    # A few bytes past the limit say whether there is more to the file.
    data = file.read(limit + 4, 0)
    size = max(file.current_identity().size, len(data))
    truncated = len(data) > limit
    found = detect_encoding(data)
    encoding, skip = found.codec, len(found.bom)
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
        notices.append(f"Showing the first {human_size(limit)} of {human_size(size)}.")
    return TextLoadResult(text, encoding, tuple(notices), truncated, size)


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
