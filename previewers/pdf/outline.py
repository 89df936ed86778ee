"""A PDF's outline as a lazy tree model: rows are made only when the view asks.

Each entry's children are shown ``BATCH`` at a time (``fetchMore``, as the
view scrolls to them), because a tree view walks every row it has been told of
when the model resets: 20,000 top-level entries cost the GUI thread 0.5 s.

The tree's shape (who is whose parent, each entry's row) is worked out on the
render thread (``OutlineTree.of``), so a document with 20,000 outline entries
costs the GUI thread only the rows on screen; building one item per entry took
it 1.4 s for 20,000.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt

from app.formats.pdf_doc import OutlineEntry

_Index = QModelIndex | QPersistentModelIndex
_ROOT = 0  # internal id of the invisible root; entry n has id n + 1
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
BATCH = 500
"""Children of one entry made known to the view at a time."""
EXPANDED_ROWS = 50
"""Top-level entries shown open; expanding every one costs a walk of them all."""


@dataclass(frozen=True)
class OutlineTree:
    """Outline entries with each one's parent (-1: top) and row, and children."""

    entries: tuple[OutlineEntry, ...]
    parents: tuple[int, ...]
    rows: tuple[int, ...]
    children: tuple[tuple[int, ...], ...]  # by internal id: the root's first

    @classmethod
    def of(cls, entries: Sequence[OutlineEntry]) -> OutlineTree:
        """The tree the levels describe; a level that jumps is one step deeper."""
        parents: list[int] = []
        rows: list[int] = []
        children: list[list[int]] = [[] for _ in range(len(entries) + 1)]
        chain: list[int] = []  # the open entries, one per level
        for number, entry in enumerate(entries):
            level = min(max(entry.level, 1), len(chain) + 1)
            del chain[level - 1 :]
            parent = chain[-1] if chain else -1
            siblings = children[parent + 1]
            parents.append(parent)
            rows.append(len(siblings))
            siblings.append(number)
            chain.append(number)
        return cls(
            tuple(entries),
            tuple(parents),
            tuple(rows),
            tuple(tuple(found) for found in children),
        )


class PdfOutlineModel(QAbstractItemModel):
    """The outline's titles, one column; ``entry(index)`` says where each goes.

    Signals: those of ``QAbstractItemModel``.
    """

    def __init__(self, tree: OutlineTree | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self._tree = tree or OutlineTree.of(())
        self._shown: dict[int, int] = {}  # by internal id: children made known

    def set_tree(self, tree: OutlineTree) -> None:
        self.beginResetModel()
        self._tree = tree
        self._shown = {}
        self.endResetModel()

    def _known(self, owner: int) -> int:
        return self._shown.get(owner, min(len(self._tree.children[owner]), BATCH))

    def canFetchMore(self, parent: _Index) -> bool:
        owner = parent.internalId() if parent.isValid() else _ROOT
        return self._known(owner) < len(self._tree.children[owner])

    def fetchMore(self, parent: _Index) -> None:
        owner = parent.internalId() if parent.isValid() else _ROOT
        known = self._known(owner)
        more = min(len(self._tree.children[owner]), known + BATCH)
        if more > known:
            self.beginInsertRows(parent, known, more - 1)
            self._shown[owner] = more
            self.endInsertRows()

    def entry(self, index: _Index) -> OutlineEntry | None:
        if not index.isValid():
            return None
        return self._tree.entries[index.internalId() - 1]

    def index(
        self,
        row: int,
        column: int,
        parent: _Index = QModelIndex(),  # noqa: B008
    ) -> QModelIndex:
        owner = parent.internalId() if parent.isValid() else _ROOT
        found = self._tree.children[owner]
        if column != 0 or not 0 <= row < self._known(owner):
            return QModelIndex()
        return self.createIndex(row, 0, found[row] + 1)

    def parent(  # type: ignore[override]
        self,
        index: _Index = QModelIndex(),  # noqa: B008
    ) -> QModelIndex:
        if not index.isValid():
            return QModelIndex()
        up = self._tree.parents[index.internalId() - 1]
        if up < 0:
            return QModelIndex()
        return self.createIndex(self._tree.rows[up], 0, up + 1)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        owner = parent.internalId() if parent.isValid() else _ROOT
        return self._known(owner)

    def hasChildren(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        owner = parent.internalId() if parent.isValid() else _ROOT
        return bool(self._tree.children[owner])

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 1

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        entry = self.entry(index)
        if entry is None:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return entry.title
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _FLAGS

    def open_rows(self) -> list[QModelIndex]:
        """The first top-level entries that have children, to be shown open."""
        found = self._tree.children[_ROOT][:EXPANDED_ROWS]
        return [
            self.createIndex(row, 0, number + 1)
            for row, number in enumerate(found)
            if self._tree.children[number + 1]
        ]
