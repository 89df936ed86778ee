"""The library's rows as a table: kind icon, name, folder, agent, conversation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QIcon, QImage, QPixmap

from app.core.filetype import Kind
from app.core.store.library import LibraryItem, LibraryKey
from app.core.trust.display_names import display_name
from app.ui.cards.icons import kind_file_icon
from previewers.widgets import plain_tooltip

_Index = QModelIndex | QPersistentModelIndex

COLUMNS: Final = ("Name", "Folder", "Agent", "Conversation", "Date", "State")
ITEM_ROLE: Final = Qt.ItemDataRole.UserRole + 1

# What the index remembers of a background check, in the words a card uses.
_STATE_WORDS: Final = {
    "unchecked": "",
    "unchanged": "unchanged",
    "modified": "modified since",
    "missing": "missing",
    "refused": "refused",
}


def state_text(item: LibraryItem) -> str:
    """The state column: an imported file is "not verified" until Verify ran."""
    words = _STATE_WORDS.get(item.state, "")
    if item.imported:
        # Only a verification the store vouches for gives an imported item a state.
        return f"imported · verified · {words}" if words else "imported · not verified"
    return words


def _kind(item: LibraryItem) -> Kind:
    try:
        return Kind(item.kind)
    except ValueError:
        return Kind.OTHER


class LibraryModel(QAbstractTableModel):
    """The items one query found; every text cell is the stored text, shown plain."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[LibraryItem] = []
        self._thumbnails: dict[LibraryKey, QIcon] = {}

    def set_items(self, items: Sequence[LibraryItem]) -> None:
        self.beginResetModel()
        self._items = list(items)
        self.endResetModel()

    def set_states(self, states: Mapping[LibraryKey, str]) -> None:
        """Show what a background check found, keeping rows and selection."""
        for row, item in enumerate(self._items):
            state = states.get(item.key)
            if state is not None and state != item.state:
                self._items[row] = replace(item, state=state)
                cell = self.index(row, len(COLUMNS) - 1)
                self.dataChanged.emit(cell, cell)

    def set_thumbnail(self, key: LibraryKey, image: QImage | None) -> None:
        """Show an image item's thumbnail (made through its card's check)."""
        if image is None:
            self._thumbnails.pop(key, None)
        else:
            self._thumbnails[key] = QIcon(QPixmap.fromImage(image))
        for row, item in enumerate(self._items):
            if item.key == key:
                cell = self.index(row, 0)
                self.dataChanged.emit(cell, cell)

    def has_thumbnail(self, key: LibraryKey) -> bool:
        return key in self._thumbnails

    def item(self, row: int) -> LibraryItem:
        return self._items[row]

    def items(self) -> list[LibraryItem]:
        return list(self._items)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if (
            role == Qt.ItemDataRole.DisplayRole
            and orientation == Qt.Orientation.Horizontal
        ):
            return COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        column = index.column()
        if role == ITEM_ROLE:
            return item
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(item, column)
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return self._thumbnails.get(item.key) or kind_file_icon(_kind(item))
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return plain_tooltip(f"{item.folder}/{item.name}\n{item.description}")
        return None

    @staticmethod
    def _text(item: LibraryItem, column: int) -> str:
        if column == 0:
            name = display_name(item.name)
            return f"{name}  ({item.versions} versions)" if item.versions > 1 else name
        if column == 1:
            return display_name(item.folder)
        if column == 2:
            return item.agent
        if column == 3:
            return item.conversation_title
        if column == 4:
            return item.created_at.astimezone().strftime("%Y-%m-%d %H:%M")
        return state_text(item)
