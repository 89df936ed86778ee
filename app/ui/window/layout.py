"""Which panes the window shows and how wide: folding, focus on the preview, memory."""

from __future__ import annotations

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtWidgets import QSplitter, QWidget

SPLITTER_KEY = "window/splitter"
CONVERSATIONS_KEY = "window/conversations_visible"
TREE_KEY = "window/tree_visible"
CHAT_MIN_WIDTH = 340
CHAT_PREFERRED = 440
"""The chat keeps this much when a preview opens: a readable column of text."""
CONVERSATIONS_SHARE = 0.15
CHAT_SHARE = 0.45


def _flag(value: object, default: bool) -> bool:
    # INI files give booleans back as the strings "true" and "false".
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no", "")
    return default


class PaneLayout(QObject):
    """The three panes of the window (conversations, chat, workspace) and the tree.

    Each of the conversation list and the file tree can be hidden and shown,
    and that choice is remembered. Focusing the preview hides everything but
    the document tabs, and leaving focus puts back what was shown before. A
    viewer (``deliverables view``) shows only the workspace and remembers
    nothing.

    Signals:
        changed(): a pane was shown or hidden; menus update their checks.
    """

    changed = Signal()

    def __init__(
        self,
        splitter: QSplitter,
        conversations: QWidget,
        chat: QWidget,
        workspace: QWidget,
        tree: QWidget,
        settings: QSettings,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._splitter = splitter
        self._conversations = conversations
        self._chat = chat
        self._workspace = workspace
        self._tree = tree
        self._settings = settings
        self._show_conversations = True
        self._show_tree = True
        self._focus = False
        self._viewer = False

    # -- memory ------------------------------------------------------------------

    def restore(self) -> None:
        """Put back the remembered sizes and the panes that were shown."""
        self._show_conversations = _flag(self._settings.value(CONVERSATIONS_KEY), True)
        self._show_tree = _flag(self._settings.value(TREE_KEY), True)
        state = self._settings.value(SPLITTER_KEY)
        if state is None or not self._splitter.restoreState(state):
            QTimer.singleShot(0, self.default_sizes)
        self._apply()

    def save(self) -> None:
        if self._viewer:
            return  # a viewer's layout is not the window's
        if not self._focus:
            self._settings.setValue(SPLITTER_KEY, self._splitter.saveState())
        self._settings.setValue(CONVERSATIONS_KEY, self._show_conversations)
        self._settings.setValue(TREE_KEY, self._show_tree)

    # -- what is shown -------------------------------------------------------------

    def conversations_visible(self) -> bool:
        return self._show_conversations and not self._focus and not self._viewer

    def tree_visible(self) -> bool:
        return self._show_tree and not self._focus

    def focused(self) -> bool:
        return self._focus

    def is_viewer(self) -> bool:
        return self._viewer

    def set_conversations_visible(self, visible: bool) -> None:
        self._focus = False
        self._viewer = self._viewer and not visible
        self._show_conversations = visible
        self._apply()

    def set_tree_visible(self, visible: bool) -> None:
        self._focus = False
        self._show_tree = visible
        self._apply()

    def set_focus(self, focus: bool) -> None:
        """Give the document tabs the whole window, or put the panes back."""
        self._focus = focus
        self._apply()

    def set_viewer(self, viewer: bool) -> None:
        """A viewer shows the workspace alone: no conversations, no chat."""
        self._viewer = viewer
        self._focus = False
        self._apply()
        if viewer:
            QTimer.singleShot(0, self._fill_with_workspace)

    def _apply(self) -> None:
        self._conversations.setVisible(self.conversations_visible())
        self._chat.setVisible(not self._focus and not self._viewer)
        self._tree.setVisible(self.tree_visible())
        self._workspace.setVisible(True)
        self.changed.emit()

    # -- sizes ---------------------------------------------------------------------

    def default_sizes(self) -> None:
        if self._viewer:
            self._fill_with_workspace()
            return
        width = max(self._splitter.width(), 1200)
        conversations = int(width * CONVERSATIONS_SHARE)
        chat = int(width * CHAT_SHARE)
        self._splitter.setSizes([conversations, chat, width - conversations - chat])

    def _fill_with_workspace(self) -> None:
        self._splitter.setSizes([0, 0, max(self._splitter.width(), 800)])

    def make_room_for_preview(self) -> None:
        """A preview opened: give the workspace at least half of the window.

        The chat keeps a readable column (``CHAT_PREFERRED``) where the window
        is wide enough, and never less than its minimum.
        """
        if self._focus or self._viewer:
            return
        sizes = self._splitter.sizes()
        total = sum(sizes)
        if total <= 0:
            return
        conversations = sizes[0] if self.conversations_visible() else 0
        want = max(total // 2, total - conversations - CHAT_PREFERRED)
        if sizes[2] >= min(want, total // 2):
            return
        room = total - conversations - CHAT_MIN_WIDTH
        workspace = max(sizes[2], min(want, room))
        self._splitter.setSizes(
            [conversations, total - conversations - workspace, workspace]
        )
