"""The library pane: search, filters and the list of every deliverable.

It only asks the store's library index what to list; every action on an item
is the window's, which checks the item again as its card would be checked.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Final

from PySide6.QtCore import (
    QDate,
    QModelIndex,
    QPoint,
    Qt,
    QTimer,
    Signal,
    SignalInstance,
)
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.store import STORE_FAILURES
from app.core.store.library import STATES, Library, LibraryFilter, LibraryItem
from app.ui.library.model import ITEM_ROLE, LibraryModel

# Typing waits this long for the next key before asking the store.
SEARCH_DELAY_MS: Final = 150
DATES: Final = (
    ("Any time", None),
    ("Today", timedelta(days=1)),
    ("Last 7 days", timedelta(days=7)),
    ("Last 30 days", timedelta(days=30)),
    ("Last year", timedelta(days=365)),
)
BETWEEN: Final = "Between dates"
PREPARING: Final = (
    "Preparing the library: every file stored before this version is being"
    " listed. This happens once."
)
_STATE_LABELS: Final = {
    "unchecked": "Not checked yet",
    "unchanged": "Unchanged",
    "modified": "Modified since",
    "missing": "Missing",
    "refused": "Refused",
}


def _midnight(day: QDate) -> datetime:
    """The local midnight that starts ``day``."""
    return datetime(day.year(), day.month(), day.day()).astimezone()


def _kind_label(kind: str) -> str:
    return kind.upper() if kind in _ACRONYMS else kind.capitalize()


_ACRONYMS: Final = frozenset({"pdf", "csv", "html", "json"})


class _Choice(QToolButton):
    """A drop-down of checkable values: any number of them, none meaning all."""

    def __init__(self, label: str, parent: QWidget) -> None:
        super().__init__(parent)
        self._label = label
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setAccessibleName(f"{label} filter")
        self.setMenu(QMenu(self))
        self._update_text()

    def set_values(self, values: list[tuple[str, str]]) -> None:
        """Offer ``(value, label)`` pairs, keeping the checks of those still offered."""
        chosen = self.chosen()
        menu = self.menu()
        menu.clear()
        for value, label in values:
            action = QAction(label, menu)
            action.setCheckable(True)
            action.setChecked(value in chosen)
            action.setData(value)
            action.toggled.connect(self._update_text)
            menu.addAction(action)
        self._update_text()

    def choose(self, values: set[str]) -> None:
        for action in self.menu().actions():
            action.setChecked(action.data() in values)

    def chosen(self) -> frozenset[str]:
        return frozenset(str(a.data()) for a in self.menu().actions() if a.isChecked())

    def _update_text(self) -> None:
        count = len(self.chosen())
        self.setText(self._label if not count else f"{self._label} ({count})")


class LibraryPaneWidget(QWidget):
    """Every presented and imported deliverable, newest first.

    Signals:
        openRequested(object): open this ``LibraryItem`` in the workspace.
        turnRequested(object): show the turn that gave this ``LibraryItem``.
        versionsRequested(object): show this ``LibraryItem``'s versions.
        saveRequested(object): save copies of these ``LibraryItem``\\ s.
        exportRequested(object): export the conversation of this ``LibraryItem``.
        refused(str): the store could not answer; why, for the notice bar.
        listed(object): these ``LibraryItem``\\ s are listed now.
        menuRequested(object, QPoint): the card's menu for this ``LibraryItem``,
            at this global position.
    """

    openRequested = Signal(object)
    turnRequested = Signal(object)
    versionsRequested = Signal(object)
    saveRequested = Signal(object)
    exportRequested = Signal(object)
    refused = Signal(str)
    listed = Signal(object)
    menuRequested = Signal(object, QPoint)

    def __init__(self, library: Library, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Library pane")
        self._library = library
        self.model = LibraryModel(self)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search names and descriptions")
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("Search the library")
        self.kinds = _Choice("Kind", self)
        self.agents = _Choice("Agent", self)
        self.states = _Choice("State", self)
        self.states.set_values([(s, _STATE_LABELS[s]) for s in STATES])
        self.workspace = QComboBox(self)
        self.workspace.setAccessibleName("Workspace filter")
        self.workspace.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.workspace.setMinimumContentsLength(14)
        self.dates = QComboBox(self)
        self.dates.setAccessibleName("Date filter")
        for label, _span in DATES:
            self.dates.addItem(label)
        self.dates.addItem(BETWEEN)
        # Shown for "Between dates": the first and the last day, both included.
        today = QDate.currentDate()
        self.date_from = QDateEdit(today.addDays(-7), self)
        self.date_to = QDateEdit(today, self)
        for edit, name in ((self.date_from, "From"), (self.date_to, "To")):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setAccessibleName(f"{name} date")
            edit.hide()
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setAccessibleName("Library items")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.doubleClicked.connect(self._on_table_double_clicked)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._on_table_menu_requested)
        self.count = QLabel(self)
        self.count.setTextFormat(Qt.TextFormat.PlainText)
        # Shown while the index is filled for what was stored before it.
        self.preparing = QLabel(PREPARING, self)
        self.preparing.setTextFormat(Qt.TextFormat.PlainText)
        self.preparing_bar = QProgressBar(self)
        self.preparing_bar.setRange(0, 0)  # busy: the fill reports no steps
        self.preparing_bar.setAccessibleName("Preparing the library")
        self._preparing = False
        self.open_button = QPushButton("Open", self)
        self.turn_button = QPushButton("Go to the turn", self)
        self.versions_button = QPushButton("Versions…", self)
        self.save_button = QPushButton("Save a copy…", self)
        # Short, so the row fits the column; the tooltip and name say it all.
        self.export_button = QPushButton("Export…", self)
        self.export_button.setAccessibleName("Export conversation…")
        self.export_button.setToolTip(
            "Save every deliverable of this item's conversation, with an index"
        )
        self._buttons()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        self._layout()
        self._connect()
        self._update_buttons()

    def _buttons(self) -> None:
        self.open_button.clicked.connect(lambda: self._emit_one(self.openRequested))
        self.turn_button.clicked.connect(lambda: self._emit_one(self.turnRequested))
        self.versions_button.clicked.connect(
            lambda: self._emit_one(self.versionsRequested)
        )
        self.save_button.clicked.connect(
            lambda: self.saveRequested.emit(self.selected_items())
        )
        self.export_button.clicked.connect(lambda: self._emit_one(self.exportRequested))

    def _layout(self) -> None:
        title = QLabel("Library", self)
        title.setTextFormat(Qt.TextFormat.PlainText)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addWidget(self.search, 1)
        filters = QHBoxLayout()
        for widget in (self.kinds, self.agents, self.states):
            filters.addWidget(widget)
        filters.addWidget(self.workspace, 1)
        filters.addWidget(self.dates)
        filters.addWidget(self.date_from)
        filters.addWidget(self.date_to)
        actions = QHBoxLayout()
        actions.addWidget(self.count, 1)
        for button in (
            self.open_button,
            self.turn_button,
            self.versions_button,
            self.save_button,
            self.export_button,
        ):
            actions.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addLayout(filters)
        layout.addWidget(self.preparing)
        layout.addWidget(self.preparing_bar)
        self.preparing.hide()
        self.preparing_bar.hide()
        layout.addWidget(self.table, 1)
        layout.addLayout(actions)

    def _connect(self) -> None:
        self.search.textChanged.connect(self._timer.start)
        for choice in (self.kinds, self.agents, self.states):
            choice.menu().triggered.connect(self.refresh)
        self.workspace.activated.connect(self.refresh)
        self.dates.activated.connect(self._on_dates_activated)
        self.date_from.dateChanged.connect(self.refresh)
        self.date_to.dateChanged.connect(self.refresh)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)

    # -- what is listed --------------------------------------------------------

    def set_preparing(self, preparing: bool, failure: str = "") -> None:
        """Say the index is being filled (nothing to list yet), or why it was not."""
        self._preparing = preparing
        self.preparing.setText(PREPARING if preparing else failure)
        self.preparing.setVisible(preparing or bool(failure))
        self.preparing_bar.setVisible(preparing)
        controls: tuple[QWidget, ...] = (
            *(self.search, self.kinds, self.agents, self.states),
            *(self.workspace, self.dates, self.table),
        )
        for widget in controls:
            widget.setEnabled(not preparing)

    def reload(self) -> None:
        """Read the filter choices and the list again (the store changed)."""
        if self._preparing:
            return  # filled off the GUI thread; listed when that is done
        try:
            choices = self._library.choices()
        except STORE_FAILURES as error:
            self.refused.emit(f"The library cannot be read: {error}")
            return
        self.kinds.set_values([(k, _kind_label(k)) for k in choices.kinds])
        self.agents.set_values([(a, a) for a in choices.agents])
        current = self.workspace.currentData()
        self.workspace.clear()
        self.workspace.addItem("Every workspace", "")
        for folder in choices.workspaces:
            if folder:
                self.workspace.addItem(folder, folder)
        found = self.workspace.findData(current)
        self.workspace.setCurrentIndex(max(found, 0))
        self.refresh()

    def current_filter(self) -> LibraryFilter:
        since, until = self._date_range()
        folder = self.workspace.currentData()
        return LibraryFilter(
            kinds=self.kinds.chosen(),
            agents=self.agents.chosen(),
            workspaces=frozenset({folder}) if folder else frozenset(),
            states=self.states.chosen(),
            since=since,
            until=until,
            text=self.search.text(),
        )

    def _date_range(self) -> tuple[datetime | None, datetime | None]:
        index = self.dates.currentIndex()
        if index < len(DATES):
            span = DATES[index][1]
            return (None if span is None else datetime.now(UTC) - span), None
        first, last = self.date_from.date(), self.date_to.date().addDays(1)
        # Local days: from the first one's midnight to the midnight after the last.
        return _midnight(first), _midnight(last)

    def _on_dates_activated(self, index: int) -> None:
        between = index == len(DATES)
        self.date_from.setVisible(between)
        self.date_to.setVisible(between)
        self.refresh()

    def refresh(self) -> None:
        """List what the filters and the search ask for now."""
        self._timer.stop()
        if self._preparing:
            return
        try:
            items = self._library.items(self.current_filter())
        except STORE_FAILURES as error:
            self.refused.emit(f"The library cannot be read: {error}")
            return
        self.model.set_items(items)
        self.count.setText(f"{len(items)} items" if len(items) != 1 else "1 item")
        self.table.resizeColumnsToContents()
        self._update_buttons()
        self.listed.emit(items)

    # -- selection ---------------------------------------------------------------

    def selected_items(self) -> list[LibraryItem]:
        selected = self.table.selectionModel().selectedRows()
        rows = sorted({index.row() for index in selected})
        return [self.model.item(row) for row in rows]

    def select_row(self, row: int) -> None:
        self.table.selectRow(row)

    def _emit_one(self, signal: SignalInstance) -> None:
        chosen = self.selected_items()
        if len(chosen) == 1:
            signal.emit(chosen[0])

    def _update_buttons(self) -> None:
        count = len(self.selected_items())
        for button in (
            self.open_button,
            self.turn_button,
            self.versions_button,
            self.export_button,
        ):
            button.setEnabled(count == 1)
        self.save_button.setEnabled(count >= 1)
        self.save_button.setText("Save copies…" if count > 1 else "Save a copy…")

    def _on_table_menu_requested(self, point: QPoint) -> None:
        item = self.table.indexAt(point).data(ITEM_ROLE)
        if isinstance(item, LibraryItem):
            where = self.table.viewport().mapToGlobal(point)
            self.menuRequested.emit(item, where)

    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        item = index.data(ITEM_ROLE)
        if isinstance(item, LibraryItem):
            self.openRequested.emit(item)
