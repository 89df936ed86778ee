"""The library in the window: shown beside the conversations, its items acted on.

Every action goes through what a card's action goes through: a presented item
is a ``DeliverableRef`` checked by ``FileActions``, an imported item an
``ImportedFileRef`` opened only through its verified record. The index is
never asked whether something may be opened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractItemView, QMenu, QStackedWidget

from app.core.changes.index import ChangeRef, change_ref_for
from app.core.chat.blocks import ChangesBlock, DeliverableBlock, ImportedFileBlock
from app.core.filetype import Kind
from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.core.store.imported_files import ImportedFileRef
from app.core.store.library import PRESENTED, Library, LibraryItem, LibraryKey
from app.core.trust.policy import PermissionMode, Policy
from app.ui.cards.actions import FileActions
from app.ui.chat.thumbnails import ThumbnailMaker
from app.ui.chat.view import ChatView
from app.ui.library.keeping import Keeper
from app.ui.library.pane import LibraryPaneWidget
from app.ui.library.preparing import LibraryPreparer
from app.ui.library.states import StateChecker
from app.ui.notice import NoticeBarWidget
from previewers.context import ColorScheme

if TYPE_CHECKING:
    # Versions and diffs load when first asked for, not with the window.
    from app.ui.changes.diff_view import DiffDialog
    from app.ui.library.versions import VersionsDialog


class Window(Protocol):
    """What of the main window the library acts through."""

    file_actions: FileActions
    chat: ChatView
    notice_bar: NoticeBarWidget

    def current_conversation_id(self) -> str | None: ...

    def show_conversation(self, conversation_id: str) -> None: ...


def item_ref(
    item: LibraryItem, store: Store
) -> DeliverableRef | ImportedFileRef | ChangeRef:
    """The reference a card (or "Changed files" row) of this item holds: all
    an action may start from."""
    key = item.key
    if item.changed:
        return change_ref_for(store, key.conversation_id, item.position, item.item)
    if item.imported:
        return ImportedFileRef(key.conversation_id, key.ref)
    return DeliverableRef(key.conversation_id, key.ref, key.entry)


class LibraryLink(QObject):
    """Puts the library pane in the middle column and carries out its requests."""

    def __init__(
        self,
        window: Window,
        store: Store,
        middle: QStackedWidget,
        policy_for: Callable[[str], Policy],
        mode: Callable[[], PermissionMode | None],
    ) -> None:
        super().__init__(middle)
        self._window = window
        self._store = store
        self._middle = middle
        self._policy_for = policy_for
        self._mode = mode
        self.versions_dialog: VersionsDialog | None = None
        self.diff_dialog: DiffDialog | None = None
        self.library = Library(store)
        self.pane = LibraryPaneWidget(self.library, middle)
        middle.addWidget(self.pane)
        self._chat_min_width = middle.minimumWidth()
        middle.currentChanged.connect(self._fit_middle)
        # Filters filled from what is listed widen the pane's controls.
        self.pane.installEventFilter(self)
        self.pane.openRequested.connect(self.open_item)
        self.pane.turnRequested.connect(self.go_to_turn)
        self.pane.versionsRequested.connect(self.show_versions)
        self.pane.menuRequested.connect(self._on_pane_menu_requested)
        self.keeper = Keeper(store, policy_for, mode, self)
        self.keeper.finished.connect(
            lambda text, ok: window.notice_bar.show_message(
                text, "info" if ok else "warning"
            )
        )
        self.pane.saveRequested.connect(self.save_items)
        self.states = StateChecker(store, policy_for, mode, self)
        self.pane.listed.connect(self.states.check)
        self.pane.listed.connect(self._request_thumbnails)
        # One maker per workspace: each request is checked under its policy.
        self._thumbnails: dict[str, ThumbnailMaker] = {}
        self.states.checked.connect(self.pane.model.set_states)
        self.pane.exportRequested.connect(self.export_conversation)
        self.pane.refused.connect(
            lambda text: window.notice_bar.show_message(text, "warning")
        )
        self.preparer = LibraryPreparer(self.library, self)
        self.preparer.finished.connect(self._on_prepared)
        if self.preparer.start():
            self.pane.set_preparing(True)

    def _on_prepared(self, failure: str) -> None:
        self.pane.set_preparing(False, failure)
        if self.showing():
            self.pane.reload()

    def _fit_middle(self) -> None:
        # The chat's column is narrow by default; the library's filters and
        # buttons need more, so while it is shown the panes beside give room.
        need = self.pane.minimumSizeHint().width() if self.showing() else 0
        self._middle.setMinimumWidth(max(self._chat_min_width, need))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.pane and event.type() == QEvent.Type.LayoutRequest:
            self._fit_middle()
        return False

    def show(self) -> None:
        """Show the library in place of the chat, read afresh."""
        self._middle.setCurrentWidget(self.pane)
        self.pane.reload()
        self.pane.search.setFocus()

    def showing(self) -> bool:
        return self._middle.currentWidget() is self.pane

    def open_item(self, item: LibraryItem) -> bool:
        """Open ``item`` in the workspace, checked again as its card would be."""
        ref = item_ref(item, self._store)
        actions = self._window.file_actions
        if isinstance(ref, ImportedFileRef):
            return actions.open_imported(ref)
        if isinstance(ref, ChangeRef):
            return actions.open_change(ref)
        return actions.perform("open", ref)

    def menu_for(self, item: LibraryItem) -> QMenu | None:
        """A presented item's card menu, every action checked as the card's is.

        An imported item has none here: its actions need Verify, in its chat;
        nor has a changed file, which opens as its "Changed files" row does.
        """
        ref = item_ref(item, self._store)
        if not isinstance(ref, DeliverableRef):
            return None
        return self._window.file_actions.menu_for(ref, self.pane)

    def _on_pane_menu_requested(self, item: LibraryItem, where: QPoint) -> None:
        menu = self.menu_for(item)
        if menu is not None:
            menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            menu.popup(where)

    def go_to_turn(self, item: LibraryItem) -> None:
        """Show the conversation with the item's card in sight and selected."""
        conversation_id = item.key.conversation_id
        window = self._window
        if window.current_conversation_id() != conversation_id:
            window.show_conversation(conversation_id)
        self._middle.setCurrentIndex(0)
        model = window.chat.chat_model()
        model.load_all_history()
        wanted = item_ref(item, self._store)
        for row in range(model.rowCount()):
            block = model.block(row)
            if (
                isinstance(block, DeliverableBlock | ImportedFileBlock)
                and block.ref == wanted
            ) or (
                isinstance(block, ChangesBlock)
                and isinstance(wanted, ChangeRef)
                and block.changes.turn_position == wanted.turn_position
            ):
                index = model.index(row)
                window.chat.setCurrentIndex(index)
                window.chat.scrollTo(
                    index, QAbstractItemView.ScrollHint.PositionAtCenter
                )
                return

    def _request_thumbnails(self, items: list[LibraryItem]) -> None:
        """Thumbnails of the listed images, made as their cards' are."""
        wanted: dict[str, list[DeliverableRef]] = {w: [] for w in self._thumbnails}
        for item in items:
            if item.kind != Kind.IMAGE or item.imported or item.changed:
                continue
            ref = item_ref(item, self._store)
            if isinstance(ref, DeliverableRef):
                wanted.setdefault(item.workspace, []).append(ref)
        for workspace, refs in wanted.items():
            maker = self._thumbnails.get(workspace)
            if maker is None:
                maker = ThumbnailMaker(self._store, self._policy_for, self._mode, self)
                maker.made.connect(self._on_thumbnail_made)
                self._thumbnails[workspace] = maker
            maker.request(workspace, refs)

    def _on_thumbnail_made(self, ref: object, image: object) -> None:
        if isinstance(ref, DeliverableRef):
            cid, call, index = ref.conversation_id, ref.tool_call_id, ref.index
            key = LibraryKey(cid, PRESENTED, call, index)
            self.pane.model.set_thumbnail(
                key, image if isinstance(image, QImage) else None
            )

    # -- keeping -----------------------------------------------------------------

    def save_items(self, items: list[LibraryItem]) -> None:
        """Save a copy of each item into a folder the user picks."""
        if not items:
            return
        folder = self.keeper.choose_folder(self.pane, "Save copies into")
        if folder:
            self.keeper.save(items, folder)

    def export_conversation(self, item: LibraryItem) -> None:
        """Export the deliverables of ``item``'s conversation with an index."""
        folder = self.keeper.choose_folder(self.pane, "Export the deliverables into")
        if folder:
            self.keeper.export(item.key.conversation_id, folder)

    # -- versions ----------------------------------------------------------------

    def _policy_of(self, item: LibraryItem) -> Policy:
        try:
            workspace = self._store.conversation(item.key.conversation_id).workspace
        except KeyError:
            workspace = ""
        return self._policy_for(workspace)

    def show_versions(self, item: LibraryItem) -> VersionsDialog:
        """The item's versions, each saying whether its text can be compared."""
        from app.core.changes.versions import version_text
        from app.ui.library.versions import VersionsDialog

        store, mode = self._store, self._mode()

        def text_of(version: LibraryItem) -> object:
            return version_text(store, version, self._policy_of(version), mode=mode)

        dialog = VersionsDialog(self.library.versions(item.item), text_of, self.pane)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.compareRequested.connect(self.compare)
        dialog.turnRequested.connect(self.go_to_turn)
        dialog.show()
        self.versions_dialog = dialog
        return dialog

    def compare(self, older: LibraryItem, newer: LibraryItem) -> DiffDialog:
        """Two versions in the diff view; worked out off the GUI thread."""
        from app.core.changes.versions import compare_versions
        from app.ui.changes.diff_view import DiffDialog

        store, mode = self._store, self._mode()
        policy = self._policy_of(newer)
        dark = ColorScheme.of(self.pane.palette()) is ColorScheme.DARK
        dialog = DiffDialog(f"{newer.folder}/{newer.name}", dark=dark, parent=self.pane)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.view.load(
            lambda cancelled: compare_versions(
                store, older, newer, policy, mode=mode, cancelled=cancelled
            )
        )
        dialog.show()
        self.diff_dialog = dialog
        return dialog
