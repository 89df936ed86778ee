"""Small widgets every preview family shares: plain-text notices, questions, find."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QWidget,
)


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally.

    Tooltips guess rich text and would load ``<img src=...>`` from disk; escaped
    text inside an explicit rich-text wrapper is displayed as written.
    """
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"


def ask_plain_question(
    parent: QWidget | None,
    title: str,
    text: str,
    accept: QMessageBox.StandardButton = QMessageBox.StandardButton.Open,
) -> bool:
    """Ask a yes/no question whose text may hold untrusted strings.

    The text is plain (a URL or file name is never read as HTML) and the safe
    answer is the default.
    """
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(text)
    refuse = (
        QMessageBox.StandardButton.No
        if accept == QMessageBox.StandardButton.Yes
        else QMessageBox.StandardButton.Cancel
    )
    box.setStandardButtons(accept | refuse)
    box.setDefaultButton(refuse)
    return box.exec() == accept


ISOLATED_LABEL = "Isolated preview — no access to your files or the network"
"""Said beside every page a sandboxed web view shows."""


def notice_label(parent: QWidget, accessible_name: str) -> QLabel:
    """A hidden, plain-text notice strip in the tooltip colours, for a preview's top."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setAccessibleName(accessible_name)
    label.setContentsMargins(8, 4, 8, 4)
    label.setAutoFillBackground(True)
    label.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
    label.setForegroundRole(QPalette.ColorRole.ToolTipText)
    label.hide()
    return label


class FindBarWidget(QWidget):
    """A one-line find bar: text, previous, next, a match count, cancel, close.

    ``count`` and ``cancel`` stay hidden unless the preview counts in the
    background (``show_count``, ``set_busy``).

    Signals:
        searchRequested(str, bool): find the text; True means backwards.
        cancelRequested(): stop the search and the count that are running.
        closeRequested(): the user closed the bar.
    """

    searchRequested = Signal(str, bool)
    cancelRequested = Signal()
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
        self.count = QLabel(self)
        self.count.setTextFormat(Qt.TextFormat.PlainText)
        self.count.setAccessibleName("Match count")
        self.count.hide()
        self.cancel = QPushButton("Cancel", self)
        self.cancel.setAccessibleName("Cancel find")
        self.cancel.hide()
        close = QPushButton("Close", self)
        close.setAccessibleName("Close find bar")
        for widget in (
            self.field,
            self.status,
            self.count,
            previous,
            following,
            self.cancel,
            close,
        ):
            layout.addWidget(widget, 1 if widget is self.field else 0)
        self.cancel.clicked.connect(self.cancelRequested)
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

    def show_count(self, text: str) -> None:
        """Show ``text`` as the match count; an empty text hides it."""
        self.count.setText(text)
        self.count.setVisible(bool(text))

    def set_busy(self, busy: bool) -> None:
        """Offer Cancel while a search or a count runs."""
        self.cancel.setVisible(busy)

    @Slot()
    def _on_field_return_pressed(self) -> None:
        self.searchRequested.emit(self.field.text(), False)

    @Slot()
    def _on_previous_clicked(self) -> None:
        self.searchRequested.emit(self.field.text(), True)

    @Slot()
    def _on_next_clicked(self) -> None:
        self.searchRequested.emit(self.field.text(), False)


def ask_with_message_box(parent: QWidget, url: str) -> bool:
    """Ask before a link leaves the app; the URL is shown as plain text."""
    return ask_plain_question(
        parent, "Open link", f"Open this link in your web browser?\n\n{url}"
    )


def tell_with_message_box(parent: QWidget, message: str) -> None:
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle("Link not opened")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(message)
    box.exec()
