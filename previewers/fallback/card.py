"""The fallback card: facts about a file the app does not preview, and its actions.

Nothing is converted or extracted; the only read is the head the source already
holds, which names the type from its magic bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from app.core.filetype.sizes import human_size
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget

# (action name, button text); the workspace forwards the name to the card actions.
FILE_ACTIONS: tuple[tuple[str, str], ...] = (
    ("open_native", "Open with system app"),
    ("show_in_file_manager", "Show in file manager"),
    ("save_copy", "Save a copy…"),
    ("copy_path", "Copy path"),
)


def format_mtime(mtime_ns: int) -> str:
    return datetime.fromtimestamp(mtime_ns / 1e9).strftime("%Y-%m-%d %H:%M:%S")


def _plain_label(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class FallbackCardWidget(PreviewWidget):
    """Name, type from magic bytes, size, modified time, path, and file actions.

    Signals:
        actionRequested(str): one of the names in ``FILE_ACTIONS``.
        (and those of ``PreviewWidget``)
    """

    actionRequested = Signal(str)

    def __init__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None = None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> None:
        super().__init__(source, file, parent, context=context)
        self.type_text = source.type.description
        self.buttons: dict[str, QPushButton] = {}
        self.set_content(self._build(source))
        # Everything shown is already known: the card is complete at once.
        self.mark_loaded()

    def _build(self, source: PreviewSource) -> QWidget:
        outer = QWidget(self)
        outer_layout = QVBoxLayout(outer)
        outer_layout.addStretch(1)
        card = QFrame(outer)
        card.setFrameShape(QFrame.Shape.StyledPanel)
        card.setMaximumWidth(640)
        card.setAccessibleName(f"File card for {source.name}")
        layout = QVBoxLayout(card)
        layout.setContentsMargins(20, 16, 20, 16)
        header = QHBoxLayout()
        icon = QLabel(card)
        icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_FileIcon).pixmap(40, 40)
        )
        name = _plain_label(source.name, card)
        font = name.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        name.setFont(font)
        name.setWordWrap(True)
        name.setAccessibleName("File name")
        header.addWidget(icon)
        header.addWidget(name, 1)
        layout.addLayout(header)
        note = _plain_label(
            "This file type has no preview; nothing is converted.", card
        )
        note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        layout.addWidget(note)
        facts = QFormLayout()
        facts.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        facts.addRow(_plain_label("Type:", card), _plain_label(self.type_text, card))
        facts.addRow(
            _plain_label("Size:", card),
            _plain_label(human_size(source.identity.size, exact=True), card),
        )
        facts.addRow(
            _plain_label("Modified:", card),
            _plain_label(format_mtime(source.identity.mtime_ns), card),
        )
        path = QLineEdit(source.path, card)
        path.setReadOnly(True)
        path.setCursorPosition(0)
        path.setAccessibleName("File path")
        facts.addRow(_plain_label("Path:", card), path)
        layout.addLayout(facts)
        row = QHBoxLayout()
        for action, text in FILE_ACTIONS:
            button = QPushButton(text, card)
            button.setAccessibleName(f"{text.rstrip('…')} {source.name}")
            button.clicked.connect(self._make_action_slot(action))
            self.buttons[action] = button
            row.addWidget(button)
        row.addStretch(1)
        layout.addLayout(row)
        centre = QHBoxLayout()
        centre.addStretch(1)
        centre.addWidget(card, 4)
        centre.addStretch(1)
        outer_layout.addLayout(centre)
        outer_layout.addStretch(2)
        return outer

    def _make_action_slot(self, action: str) -> Callable[[], None]:
        def _on_button_clicked() -> None:
            self.actionRequested.emit(action)

        return _on_button_clicked
