"""An inline, non-modal message bar: plain text, an optional action, a close button."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeyEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QWidget,
)

INFO_TIMEOUT_MS = 6000

# Translucent tints read on both light and dark palettes; the text keeps the
# palette's own colour so contrast follows the system scheme. Painted rather
# than set as a style sheet: a style sheet freezes the children's palette, and
# the text would stay dark after a switch to the dark scheme.
_ACCENTS = {
    "info": QColor(52, 120, 246),
    "warning": QColor(214, 145, 0),
    "error": QColor(210, 45, 45),
}
_TINT_ALPHA = 40
_KIND_LABELS = {"info": "Information", "warning": "Warning", "error": "Error"}


class NoticeBarWidget(QFrame):
    """A message bar shown above a view instead of a modal dialog.

    Every text it shows is plain text: messages quote file names and reasons
    that come from agents, and a QLabel would otherwise render them as HTML.

    Signals:
        closed(): the bar was dismissed by the user, by a timeout or by code.
        actionTriggered(): the optional action button was pressed.
    """

    closed = Signal()
    actionTriggered = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noticeBar")
        self.setAccessibleName("Notice")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._kind = "info"
        self._on_action: Callable[[], None] | None = None

        self._text = QLabel(self)
        self._text.setObjectName("noticeText")
        self._text.setTextFormat(Qt.TextFormat.PlainText)
        self._text.setWordWrap(True)
        self._text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self._action = QPushButton(self)
        self._action.setObjectName("noticeAction")
        self._action.hide()
        self._action.clicked.connect(self._on_action_clicked)

        self._close = QToolButton(self)
        self._close.setObjectName("noticeClose")
        self._close.setText("\N{MULTIPLICATION SIGN}")
        self._close.setAutoRaise(True)
        self._close.setAccessibleName("Close notice")
        self._close.setToolTip("Close notice")
        self._close.clicked.connect(self._on_close_clicked)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.setSpacing(8)
        layout.addWidget(self._text, 1)
        layout.addWidget(self._action)
        layout.addWidget(self._close)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.hide()

    @property
    def kind(self) -> str:
        return self._kind

    def text(self) -> str:
        return self._text.text()

    def action_button(self) -> QPushButton:
        return self._action

    def show_message(
        self,
        text: str,
        kind: str = "info",
        action_text: str | None = None,
        on_action: Callable[[], None] | None = None,
    ) -> None:
        """Show ``text``; info notices without an action hide after a few seconds."""
        if kind not in _ACCENTS:
            raise ValueError(f"unknown notice kind {kind!r}")
        self._kind = kind
        self._text.setText(text)
        self._on_action = on_action
        if action_text:
            self._action.setText(action_text)
            self._action.setAccessibleName(action_text)
            self._action.show()
        else:
            self._action.hide()
        self.update()
        self.setAccessibleDescription(f"{_KIND_LABELS[kind]}: {text}")
        self._timer.stop()
        # An offered action waits for the user; a plain info message goes away.
        if kind == "info" and not action_text:
            self._timer.start(INFO_TIMEOUT_MS)
        self.show()

    def dismiss(self) -> None:
        """Hide the bar and forget its action."""
        self._timer.stop()
        self._on_action = None
        self.hide()
        self.closed.emit()

    def paintEvent(self, event: QPaintEvent) -> None:
        accent = _ACCENTS[self._kind]
        tint = QColor(accent)
        tint.setAlpha(_TINT_ALPHA)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(tint)
        painter.drawRoundedRect(QRectF(self.rect()), 3, 3)
        painter.setBrush(accent)
        painter.drawRect(QRectF(0, 0, 3, self.height()))
        painter.end()
        super().paintEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.dismiss()
            return
        super().keyPressEvent(event)

    def _on_action_clicked(self) -> None:
        callback = self._on_action
        self.actionTriggered.emit()
        self.dismiss()
        if callback is not None:
            callback()

    def _on_close_clicked(self) -> None:
        self.dismiss()

    def _on_timer_timeout(self) -> None:
        self.dismiss()
