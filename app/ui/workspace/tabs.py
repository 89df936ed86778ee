"""Document tabs: at most five previews; the least recently used inactive one goes."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, Signal, Slot
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.filetype import Kind, kind_from_name
from app.ui.cards.actions import offers_source
from previewers.widget import PreviewWidget
from previewers.widgets import plain_tooltip

if TYPE_CHECKING:
    from app.workspace.protocol import Workspace

MAX_TABS = 5

# Tab context menu: (action name, text). File actions are forwarded to the card
# actions; the others the workspace handles itself.
TAB_MENU: tuple[tuple[str, str], ...] = (
    ("reload", "Reload"),
    ("show_source", "Show source"),
    ("reveal", "Reveal in file tree"),
    ("copy_path", "Copy path"),
    ("open_native", "Open with system app"),
    ("show_in_file_manager", "Show in file manager"),
    ("save_copy", "Save a copy…"),
    ("close", "Close tab"),
)
# Not offered for a remote file: each would hand its path to this computer.
REMOTE_ABSENT = frozenset({"open_native", "show_in_file_manager", "save_copy"})
# Offered only for a remote file, in place of Save a copy: streamed over SSH.
REMOTE_TAB_MENU: tuple[tuple[str, str], ...] = (("save_local", "Save to local…"),)


class DiskState(StrEnum):
    """What the watcher last saw of an open file, compared with its preview."""

    SAME = "same"
    CHANGED = "changed"
    DELETED = "deleted"


class DocumentPageWidget(QWidget):
    """One tab: a change notice bar above the preview.

    Signals:
        reloadRequested(): the user pressed Reload on the change notice.
    """

    reloadRequested = Signal()

    def __init__(
        self, preview: PreviewWidget, ref: object | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.ref = ref
        # The kind the file's record holds, for reloads; None: no record.
        self.kind: Kind | None = None
        # The remote workspace the file is on; None: a file on this computer.
        self.remote: Workspace | None = None
        self.disk_state = DiskState.SAME
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.notice_bar = QFrame(self)
        self.notice_bar.setAutoFillBackground(True)
        self.notice_bar.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.notice_bar.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.notice_bar.setAccessibleName("File change notice")
        bar = QHBoxLayout(self.notice_bar)
        bar.setContentsMargins(8, 4, 8, 4)
        self.notice_label = QLabel(self.notice_bar)
        self.notice_label.setTextFormat(Qt.TextFormat.PlainText)
        self.notice_label.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.reload_button = QPushButton("Reload", self.notice_bar)
        self.reload_button.setAccessibleName("Reload the changed file")
        self.reload_button.clicked.connect(self.reloadRequested)
        bar.addWidget(self.notice_label, 1)
        bar.addWidget(self.reload_button)
        self.notice_bar.hide()
        layout.addWidget(self.notice_bar)
        self._layout = layout
        self.preview = preview
        layout.addWidget(preview, 1)

    @property
    def path(self) -> str:
        return self.preview.source.path

    @property
    def source_view(self) -> bool:
        return self.preview.source.source_view

    def replace_preview(self, preview: PreviewWidget) -> None:
        """Show ``preview`` instead of the current one, which is released."""
        old = self.preview
        self._layout.replaceWidget(old, preview)
        self.preview = preview
        old.release()
        old.hide()
        old.deleteLater()
        self.set_disk_state(DiskState.SAME)

    def set_disk_state(self, state: DiskState) -> None:
        self.disk_state = state
        if state is DiskState.SAME:
            self.notice_bar.hide()
            return
        if state is DiskState.CHANGED:
            self.notice_label.setText("This file changed on disk.")
        else:
            self.notice_label.setText("This file was deleted on disk.")
        self.reload_button.setVisible(state is DiskState.CHANGED)
        self.notice_bar.show()

    def notice_text(self) -> str:
        return self.notice_label.text() if self.notice_bar.isVisibleTo(self) else ""

    def release(self) -> None:
        self.preview.release()


def tab_menu(page: DocumentPageWidget) -> list[tuple[str, str]]:
    """The tab menu's (action, text) pairs for ``page``: its file's actions."""
    remote = page.remote is not None
    kind = page.kind if page.kind is not None else kind_from_name(page.path)
    shown = []
    for action, text in TAB_MENU:
        if remote and action in REMOTE_ABSENT:
            continue  # a remote path is never handed to this computer's apps
        if action == "show_source" and (
            page.source_view or not offers_source(page.path, kind)
        ):
            continue
        shown.append((action, text))
        if remote and action == "copy_path":
            shown.extend(REMOTE_TAB_MENU)
    return shown


def _tab_title(page: DocumentPageWidget) -> str:
    # "&" marks a mnemonic in tab text; a file name means it literally.
    title = page.preview.source.name.replace("&", "&&")
    return f"{title} (source)" if page.source_view else title


EMPTY_HINT = (
    "Click a deliverable card, or double-click a file in the tree, to preview it here."
)


class DocumentTabsWidget(QTabWidget):
    """Up to ``MAX_TABS`` document pages, least recently used evicted first.

    Signals:
        pageReleased(str): a page was closed or evicted; its path.
        pageEvicted(str): a page was closed to make room for a new one; its
            file's name.
        menuActionRequested(str, object): a tab menu action and its page.
        focusToggled(bool): the focus button asks for the whole window, or not.
    """

    pageReleased = Signal(str)
    pageEvicted = Signal(str)
    menuActionRequested = Signal(str, object)
    focusToggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTabsClosable(True)
        self.setMovable(True)
        self.setDocumentMode(True)
        self.setUsesScrollButtons(True)
        self.setAccessibleName("Document tabs")
        self.tabBar().setAccessibleName("Open documents")
        self.tabBar().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tabBar().customContextMenuRequested.connect(
            self._on_tab_bar_context_menu_requested
        )
        self.tabCloseRequested.connect(self._on_self_tab_close_requested)
        self.currentChanged.connect(self._on_self_current_changed)
        self.focus_button = QToolButton(self)
        self.focus_button.setCheckable(True)
        self.focus_button.setAutoRaise(True)
        self.focus_button.setText("\u2922")
        self.focus_button.setAccessibleName("Focus the preview")
        self.focus_button.setToolTip(
            "Focus the preview: give it the whole window (F11)"
        )
        self.focus_button.toggled.connect(self._on_focus_button_toggled)
        self.setCornerWidget(self.focus_button, Qt.Corner.TopRightCorner)
        self._empty_message = EMPTY_HINT
        # Most recently used last.
        self._recent: list[DocumentPageWidget] = []

    def set_empty_message(self, text: str) -> None:
        """What the empty workspace says (a refusal, in a viewer), plain text."""
        self._empty_message = text or EMPTY_HINT
        self.update()

    def set_focus_checked(self, focused: bool) -> None:
        blocked = self.focus_button.blockSignals(True)
        self.focus_button.setChecked(focused)
        self.focus_button.setText("\u2921" if focused else "\u2922")
        self.focus_button.setToolTip(
            "Show the other panes again (F11)"
            if focused
            else "Focus the preview: give it the whole window (F11)"
        )
        self.focus_button.blockSignals(blocked)

    def _on_focus_button_toggled(self, checked: bool) -> None:
        self.focusToggled.emit(checked)

    def pages(self) -> list[DocumentPageWidget]:
        return [self.page(i) for i in range(self.count())]

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.count():
            return
        # An empty workspace says what to do instead of showing a blank pane.
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        painter.drawText(
            self.rect().adjusted(24, 24, -24, -24),
            int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap),
            self._empty_message,
        )
        painter.end()

    def page(self, index: int) -> DocumentPageWidget:
        widget = self.widget(index)
        assert isinstance(widget, DocumentPageWidget)
        return widget

    def current_page(self) -> DocumentPageWidget | None:
        widget = self.currentWidget()
        return widget if isinstance(widget, DocumentPageWidget) else None

    def find_page(self, path: str, source_view: bool) -> DocumentPageWidget | None:
        for page in self.pages():
            if page.path == path and page.source_view == source_view:
                return page
        return None

    def add_page(
        self, preview: PreviewWidget, ref: object | None
    ) -> DocumentPageWidget:
        """Show ``preview`` in a new, current tab, evicting one if five are open."""
        while self.count() >= MAX_TABS:
            self._evict_least_recent()
        self._empty_message = EMPTY_HINT
        page = DocumentPageWidget(preview, ref, self)
        index = self.addTab(page, _tab_title(page))
        self.setTabToolTip(index, plain_tooltip(page.path))
        self.setCurrentIndex(index)
        self._touch(page)
        return page

    def replace_preview(self, page: DocumentPageWidget, preview: PreviewWidget) -> None:
        page.replace_preview(preview)
        index = self.indexOf(page)
        self.setTabText(index, _tab_title(page))

    def activate(self, page: DocumentPageWidget) -> None:
        self.setCurrentWidget(page)
        self._touch(page)

    def close_page(self, page: DocumentPageWidget) -> None:
        index = self.indexOf(page)
        if index < 0:
            return
        if page in self._recent:
            self._recent.remove(page)
        self.removeTab(index)
        page.release()
        page.hide()
        page.deleteLater()
        self.pageReleased.emit(page.path)

    def close_all(self) -> None:
        for page in self.pages():
            self.close_page(page)

    def step(self, offset: int) -> None:
        """Activate the tab ``offset`` places away, wrapping round."""
        if self.count():
            self.setCurrentIndex((self.currentIndex() + offset) % self.count())

    def _evict_least_recent(self) -> None:
        current = self.current_page()
        candidates = [page for page in self._recent if page is not current]
        if not candidates:
            candidates = [page for page in self.pages() if page is not current]
        evicted = candidates[0] if candidates else self.page(0)
        name = evicted.preview.source.name
        self.close_page(evicted)
        self.pageEvicted.emit(name)

    def _touch(self, page: DocumentPageWidget) -> None:
        if page in self._recent:
            self._recent.remove(page)
        self._recent.append(page)

    @Slot(int)
    def _on_self_current_changed(self, index: int) -> None:
        if index >= 0:
            self._touch(self.page(index))

    @Slot(int)
    def _on_self_tab_close_requested(self, index: int) -> None:
        self.close_page(self.page(index))

    @Slot(QPoint)
    def _on_tab_bar_context_menu_requested(self, position: QPoint) -> None:
        index = self.tabBar().tabAt(position)
        if index < 0:
            return
        page = self.page(index)
        menu = QMenu(self)
        for action, text in tab_menu(page):
            item = menu.addAction(text)
            item.setData(action)
        chosen = menu.exec(self.tabBar().mapToGlobal(position))
        if chosen is not None:
            self.menuActionRequested.emit(chosen.data(), page)
