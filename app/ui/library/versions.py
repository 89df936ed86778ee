"""An item's versions, one per turn that presented its path; two compared.

Each version says whether its text can still be had (a kept copy, or the file
as it is now if it is still that version) or why not; comparing two opens the
diff view the changed files of a turn use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.changes.diffs import NoDiff
from app.core.store.library import LibraryItem
from app.core.trust.display_names import display_name

# A version's text: the text, or why there is none.
TextOf = Callable[[LibraryItem], object]
HEADERS = ("When", "Agent", "Conversation", "Its text")


def availability(text: object) -> str:
    """What the "Its text" column says of a version."""
    if isinstance(text, NoDiff):
        return f"no text: {text.message}"
    return "can be compared"


class VersionsDialog(QDialog):
    """The versions of one item, newest first.

    Signals:
        compareRequested(object, object): diff these (older, newer) versions.
        turnRequested(object): show the turn that gave this version.
    """

    compareRequested = Signal(object, object)
    turnRequested = Signal(object)

    def __init__(
        self,
        versions: Sequence[LibraryItem],
        text_of: TextOf,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._versions = list(versions)
        name = display_name(versions[0].name) if versions else ""
        self.setWindowTitle(f"Versions of {name}")
        title = QLabel(f"{name} — {len(versions)} versions", self)
        title.setTextFormat(Qt.TextFormat.PlainText)
        folder = QLabel(display_name(versions[0].folder) if versions else "", self)
        folder.setTextFormat(Qt.TextFormat.PlainText)
        self.table = QTableWidget(len(versions), len(HEADERS), self)
        self.table.setAccessibleName("Versions")
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        for row, version in enumerate(self._versions):
            text = text_of(version)
            stamp = version.created_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
            where = version.conversation_title
            cells = (stamp, version.agent, where, availability(text))
            for column, value in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(value))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.compare_button = QPushButton("Compare the two selected", self)
        self.turn_button = QPushButton("Go to the turn", self)
        self.compare_button.clicked.connect(self._on_compare_clicked)
        self.turn_button.clicked.connect(self._on_turn_clicked)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.turn_button)
        buttons.addWidget(self.compare_button)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(folder)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self.resize(720, 360)
        self._update_buttons()

    def select(self, *rows: int) -> None:
        self.table.clearSelection()
        for row in rows:
            self.table.selectRow(row)

    def _rows(self) -> list[int]:
        selected = self.table.selectionModel().selectedRows()
        return sorted({index.row() for index in selected})

    def _update_buttons(self) -> None:
        rows = self._rows()
        self.compare_button.setEnabled(len(rows) == 2)
        self.turn_button.setEnabled(len(rows) == 1)

    def _on_compare_clicked(self) -> None:
        rows = self._rows()
        if len(rows) == 2:
            # Newest first: the later row is the older version.
            self.compareRequested.emit(self._versions[rows[1]], self._versions[rows[0]])

    def _on_turn_clicked(self) -> None:
        rows = self._rows()
        if len(rows) == 1:
            self.turnRequested.emit(self._versions[rows[0]])
