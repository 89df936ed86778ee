"""The left pane: a New conversation button, a filter box and the conversations."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.conversations.list_view import ConversationListView


class ConversationsPanelWidget(QWidget):
    """The conversation list with what works on it.

    Signals:
        newRequested(): the user wants a new conversation.
        libraryRequested(): the user wants the library of every deliverable.
    """

    newRequested = Signal()
    libraryRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Conversations pane")
        self.setMinimumWidth(180)
        self.list = ConversationListView(self)
        header = QHBoxLayout()
        header.setContentsMargins(10, 8, 6, 2)
        title = QLabel("Conversations", self)
        title.setTextFormat(Qt.TextFormat.PlainText)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        self.new_button = QToolButton(self)
        self.new_button.setText("+ New")
        self.new_button.setAutoRaise(True)
        self.new_button.setToolTip("New conversation (Ctrl+N)")
        self.new_button.setAccessibleName("New conversation")
        self.new_button.clicked.connect(self.newRequested)
        self.library_button = QToolButton(self)
        self.library_button.setText("Library")
        self.library_button.setAutoRaise(True)
        self.library_button.setToolTip("Every deliverable of every conversation")
        self.library_button.setAccessibleName("Library")
        self.library_button.clicked.connect(self.libraryRequested)
        header.addWidget(title, 1)
        header.addWidget(self.new_button)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter conversations")
        self.filter.setClearButtonEnabled(True)
        self.filter.setAccessibleName("Filter conversations")
        self.filter.textChanged.connect(self.list.set_filter)
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self.filter)
        escape.setContext(Qt.ShortcutContext.WidgetShortcut)
        escape.activated.connect(self.filter.clear)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(header)
        filter_row = QHBoxLayout()
        filter_row.setContentsMargins(8, 0, 8, 2)
        filter_row.addWidget(self.filter)
        filter_row.addWidget(self.library_button)
        layout.addLayout(filter_row)
        layout.addWidget(self.list, 1)

    def focus_filter(self) -> None:
        self.filter.setFocus()
        self.filter.selectAll()
