"""A non-modal message in a row of its own: plain text, an action, close.

The window keeps the row's room whether a message shows or not
(``keep_room``): showing one never moves what is under the pointer, and it
never covers a control or content, as a bar floating over a preview's
bottom row ("Wrap lines", a media transport, the last lines) would. It can
still float over a host (``float_over``) where nothing sits beneath.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from previewers.widgets import plain_tooltip

INFO_TIMEOUT_MS = 6000
FLOAT_MARGIN = 14
FLOAT_WIDTH = 460
ROW_PADDING = 6
PROBLEM_KINDS = frozenset({"warning", "error"})

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
    """A message shown over the window instead of a modal dialog.

    Every text it shows is plain text: messages quote file names and reasons
    that come from agents, and a QLabel would otherwise render them as HTML.
    Floating over a host widget, it sits at the host's bottom right and follows
    its size; a warning or error stays until dismissed or ``clear_problem``.

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
        self._host: QWidget | None = None
        self._one_line = False
        self._full = ""

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
        layout.setContentsMargins(10, ROW_PADDING, 6, ROW_PADDING)
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
        return self._full

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
        self._full = text
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
        self._place()
        self._fit_text()

    def keep_room(self) -> None:
        """Hold one line's height in the parent's layout, shown or hidden.

        The text is then one line, cut at the end where it is too long (the
        whole message is the tooltip and the accessible description).
        """
        self._one_line = True
        self._text.setWordWrap(False)
        self._text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        policy = self.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        policy.setVerticalPolicy(QSizePolicy.Policy.Fixed)
        self.setSizePolicy(policy)
        button = self._action.sizeHint().height() + 2 * ROW_PADDING
        self.setFixedHeight(max(self.sizeHint().height(), button))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_text()

    def _fit_text(self) -> None:
        if not self._one_line:
            return
        lines = self._full.splitlines() or [""]
        shown = lines[0] if len(lines) == 1 else f"{lines[0]} (+{len(lines) - 1} more)"
        width = self._text.width()
        if self._text.isVisible() and width > 0:
            # Cut only once laid out: before that the row has no width yet.
            metrics = self._text.fontMetrics()
            shown = metrics.elidedText(shown, Qt.TextElideMode.ElideRight, width)
        self._text.setText(shown)
        cut = self._text.text() != self._full
        self._text.setToolTip(plain_tooltip(self._full) if cut else "")

    def float_over(self, host: QWidget) -> None:
        """Float over ``host`` (a parent or ancestor), at its bottom right."""
        self._host = host
        self.setParent(host)
        self.setAutoFillBackground(False)
        host.installEventFilter(self)
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._host and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def clear_problem(self) -> None:
        """Hide a warning or error: a later action worked, so it is stale."""
        if self.isVisible() and self._kind in PROBLEM_KINDS:
            self.dismiss()

    def _place(self) -> None:
        host = self._host
        if host is None:
            return
        width = max(200, min(FLOAT_WIDTH, host.width() - 2 * FLOAT_MARGIN))
        height = self.heightForWidth(width)
        if height <= 0:
            height = self.sizeHint().height()
        self.setGeometry(
            host.width() - width - FLOAT_MARGIN,
            host.height() - height - FLOAT_MARGIN,
            width,
            height,
        )
        self.raise_()

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
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        if self._host is not None:
            # Floating: an opaque card, so the text reads over any content.
            painter.setPen(accent)
            painter.setBrush(self.palette().color(QPalette.ColorRole.Base))
            painter.drawRoundedRect(rect, 6, 6)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(tint)
        painter.drawRoundedRect(rect, 6, 6)
        painter.setBrush(accent)
        painter.drawRoundedRect(QRectF(0, 0, 4, self.height()), 2, 2)
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
