"""A lazy tree model over a parsed JSON value: children are built when expanded.

Each container's children arrive in pages of ``PAGE`` through ``fetchMore``; a
container with more has a last "Show more" row that loads the next page when
activated. JSON Lines files get one top row per line, with the parse error as
the value of a line that did not parse; their top rows come in pages too, each
line parsed when its page is shown. Keys and values are display text only
(the default delegate draws them as plain text).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QPalette

from app.core.filetype.sizes import counted
from app.formats.json_load import (
    JsonLines,
    JsonNode,
    JsonProblem,
    children,
    node,
)

PAGE = 1000
COLUMNS = ("Key", "Type", "Value")
_Index = QModelIndex | QPersistentModelIndex

_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
# A leaf says so: the tree then never asks it ``hasChildren`` when it lays out
# (a page of 1,000 rows is otherwise 3,000 calls into Python).
_LEAF_FLAGS = _FLAGS | Qt.ItemFlag.ItemNeverHasChildren


class JsonItem:
    """One row: a node (or a problem, or a "Show more" row) and its loaded children."""

    __slots__ = (
        "children",
        "fetched",
        "is_more",
        "key",
        "kind",
        "node",
        "parent",
        "problem",
    )

    def __init__(
        self,
        parent: JsonItem | None,
        key: str,
        json_node: JsonNode | None,
        *,
        kind: str = "",
        is_more: bool = False,
    ) -> None:
        self.parent = parent
        self.key = key
        self.node = json_node
        self.kind = kind or (json_node.kind if json_node is not None else "")
        self.is_more = is_more
        self.children: list[JsonItem] = []
        self.fetched = 0
        self.problem: JsonProblem | None = None

    def has_children(self) -> bool:
        return self.node is not None and self.node.has_children

    def can_fetch(self) -> bool:
        return self.node is not None and self.fetched == 0 and self.node.has_children

    def row(self) -> int:
        return self.parent.children.index(self) if self.parent is not None else 0


class _LinesItem(JsonItem):
    """The invisible root of a JSON Lines tree: its children are the lines."""

    __slots__ = ("lines",)

    def __init__(self, lines: JsonLines) -> None:
        super().__init__(None, "", None)
        self.lines = lines

    def has_children(self) -> bool:
        return self.lines.size > 0

    def can_fetch(self) -> bool:
        return self.fetched == 0 and self.lines.size > 0

    def size(self) -> int:
        return self.lines.size

    def page(self, start: int, count: int) -> list[JsonItem]:
        items: list[JsonItem] = []
        for n in range(start, min(start + count, self.lines.size)):
            key = f"line {self.lines.numbers[n]}"
            result = self.lines.line(n)
            if isinstance(result, JsonProblem):
                item = JsonItem(self, key, None, kind="error")
                item.problem = result
            else:
                item = JsonItem(self, key, node(result.value))
            items.append(item)
        return items


def _key_text(json_node: JsonNode) -> str:
    if isinstance(json_node.key, int):
        return f"[{json_node.key}]"
    return str(json_node.key)


def _size_text(json_node: JsonNode) -> str:
    units = {"object": "key", "array": "item", "string": "char"}
    unit = units.get(json_node.kind)
    if unit is None:
        return json_node.kind
    return f"{json_node.kind} · {counted(json_node.size, unit)}"


class JsonTreeModel(QAbstractItemModel):
    """Rows for the root's children (or one per JSON Lines line), loaded lazily.

    Signals: those of ``QAbstractItemModel``.
    """

    def __init__(self, top: list[JsonItem], parent: Any = None) -> None:
        super().__init__(parent)
        self._root = JsonItem(None, "", None)
        for item in top:
            item.parent = self._root
        self._root.children = top

    @classmethod
    def for_value(cls, value: Any, parent: Any = None) -> JsonTreeModel:
        """The tree of one document, its root shown as a single top row."""
        root = node(value)
        return cls([JsonItem(None, "(root)", root)], parent)

    @classmethod
    def for_lines(cls, lines: JsonLines, parent: Any = None) -> JsonTreeModel:
        """One top row per JSON Lines line, in pages; a bad line shows its error."""
        model = cls([], parent)
        model._root = _LinesItem(lines)
        model._append_page(QModelIndex(), model._root)
        return model

    # -- structure -----------------------------------------------------------------

    def _item(self, index: _Index) -> JsonItem:
        if index.isValid():
            item = index.internalPointer()
            assert isinstance(item, JsonItem)
            return item
        return self._root

    def index(
        self,
        row: int,
        column: int,
        parent: _Index = QModelIndex(),  # noqa: B008
    ) -> QModelIndex:
        item = self._item(parent)
        if 0 <= row < len(item.children) and 0 <= column < len(COLUMNS):
            return self.createIndex(row, column, item.children[row])
        return QModelIndex()

    def parent(  # type: ignore[override]
        self,
        index: _Index = QModelIndex(),  # noqa: B008
    ) -> QModelIndex:
        if not index.isValid():
            return QModelIndex()
        item = self._item(index).parent
        if item is None or item is self._root:
            return QModelIndex()
        return self.createIndex(item.row(), 0, item)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._item(parent).children)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def hasChildren(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        item = self._item(parent)
        return item is self._root or bool(item.children) or item.has_children()

    def canFetchMore(self, parent: _Index) -> bool:
        return self._item(parent).can_fetch()

    def fetchMore(self, parent: _Index) -> None:
        item = self._item(parent)
        if item.can_fetch():
            self._append_page(parent, item)

    def _append_page(self, parent: _Index, item: JsonItem) -> None:
        if isinstance(item, _LinesItem):
            new = item.page(item.fetched, PAGE)
            size = item.size()
        else:
            assert item.node is not None
            page = children(item.node, item.fetched, PAGE)
            new = [JsonItem(item, _key_text(child), child) for child in page]
            size = item.node.size
        item.fetched += len(new)
        remaining = size - item.fetched
        if remaining > 0:
            more = JsonItem(item, f"Show {min(PAGE, remaining):,} more…", None)
            more.is_more = True
            more.kind = f"{remaining:,} not shown"
            new.append(more)
        if not new:
            return
        first = len(item.children)
        self.beginInsertRows(parent, first, first + len(new) - 1)
        item.children.extend(new)
        self.endInsertRows()

    def show_more(self, index: QModelIndex) -> bool:
        """Replace a "Show more" row with the next page; False for other rows."""
        item = self._item(index)
        if not item.is_more or item.parent is None:
            return False
        owner = item.parent
        parent_index = self.parent(index)
        row = owner.children.index(item)
        self.beginRemoveRows(parent_index, row, row)
        owner.children.pop(row)
        self.endRemoveRows()
        self._append_page(parent_index, owner)
        return True

    # -- data ----------------------------------------------------------------------

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item = self._item(index)
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(item, column)
        if role == Qt.ItemDataRole.ForegroundRole and (item.is_more or column == 1):
            return QBrush(QPalette().color(QPalette.ColorRole.PlaceholderText))
        if role == Qt.ItemDataRole.ForegroundRole and item.kind == "error":
            return QBrush(Qt.GlobalColor.red)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return " ".join(self._display(item, n) for n in range(len(COLUMNS)))
        return None

    def _display(self, item: JsonItem, column: int) -> str:
        if column == 0:
            return item.key
        if item.node is None:
            return item.kind if column == 1 else _problem_text(item)
        if column == 1:
            return _size_text(item.node)
        return item.node.preview(200).replace("\n", " ")

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
        ):
            return COLUMNS[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        item = index.internalPointer()
        return _FLAGS if item.children or item.has_children() else _LEAF_FLAGS


def _problem_text(item: JsonItem) -> str:
    problem = item.problem
    if problem is None:
        return ""
    where = f" (column {problem.column})" if problem.column else ""
    return problem.message + where
