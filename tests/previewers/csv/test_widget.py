"""The CSV preview: first rows, row index, ragged rows, sorting, copy, bad input."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, QModelRoleData, Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from app.formats import csv_index
from previewers import registry
from previewers.csv import CsvPreviewer
from previewers.csv import model as csv_model
from previewers.csv import widget as csv_view
from previewers.csv.model import BLOCK, CACHE_BLOCKS, CELL_CHARS, CsvTableModel
from previewers.csv.widget import CsvPreviewWidget
from tests.previewers.conftest import OpenPreview


@pytest.fixture(autouse=True)
def csv_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(
        registry.REGISTRY, "_table", [CsvPreviewer(), *registry.REGISTRY._table]
    )
    yield


def _write(path: Path, rows: list[list[Any]], delimiter: str = ",") -> Path:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator="\n").writerows(rows)
    path.write_text(buffer.getvalue())
    return path


def _open(qtbot: QtBot, open_preview: OpenPreview, path: Path) -> CsvPreviewWidget:
    preview = open_preview(path)
    assert isinstance(preview, CsvPreviewWidget)
    qtbot.waitUntil(preview.is_settled)
    qtbot.waitUntil(preview.is_indexed)
    return preview


def _people(tmp_path: Path, count: int = 5) -> Path:
    rows: list[list[Any]] = [["name", "age"]]
    rows += [[f"person {n}", 20 + (n * 7) % 50] for n in range(count)]
    return _write(tmp_path / "people.csv", rows)


def test_header_rows_and_counts_show(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _people(tmp_path))
    model = preview.model
    assert model is not None
    assert model.headerData(1, Qt.Orientation.Horizontal) == "age"
    assert preview.cell(0, 0) == "person 0"
    assert preview.status_text().startswith("5 rows · 2 columns · comma-separated")


def test_tsv_is_detected(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = _write(tmp_path / "t.tsv", [["a", "b"], ["1", "x, y"]], "\t")
    preview = _open(qtbot, open_preview, path)
    assert preview.cell(0, 1) == "x, y"
    assert "tab-separated" in preview.status_text()


def test_rows_beyond_the_head_come_from_the_index_in_blocks(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    count = BLOCK * (CACHE_BLOCKS + 8)
    preview = _open(qtbot, open_preview, _people(tmp_path, count))
    model = preview.model
    assert model is not None and model.rowCount() == count
    assert preview.cell(count - 1, 0) == f"person {count - 1}"
    for row in range(0, count, BLOCK):
        preview.cell(row, 0)
    # Never the whole file: at most the cache's blocks are held.
    assert model.cached_rows() <= BLOCK * CACHE_BLOCKS < count


def test_a_jump_reads_one_block_and_scrolling_up_reads_back_from_it(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    count = BLOCK * 8
    preview = _open(qtbot, open_preview, _people(tmp_path, count))
    preview.resize(600, 400)
    with qtbot.waitExposed(preview):
        preview.show()
    model, view = preview.model, preview.view
    assert model is not None
    top = BLOCK * 3 - 5  # the screen straddles two aligned blocks
    bar = view.verticalScrollBar()
    view.scrollTo(model.index(top, 0), view.ScrollHint.PositionAtTop)
    assert view.rowAt(0) == top and view.rowAt(view.viewport().height() - 1) > top + 5
    before = model.fetches
    view.viewport().repaint()
    assert model.fetches == before + 1
    # One row up at a time: the row above comes with the rows above it.
    for _ in range(BLOCK // 2):
        bar.setValue(bar.value() - 1)
        view.viewport().repaint()
    assert view.rowAt(0) == top - BLOCK // 2
    assert model.fetches == before + 2
    last = view.rowAt(view.viewport().height() - 1)
    assert preview.cell(last, 0) == f"person {last}"
    assert model.fetches == before + 2


def test_ragged_rows_are_padded_and_flagged(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "ragged.csv"
    path.write_text("a,b,c\n1,2,3\n4\n5,6,7,8\n")
    preview = _open(qtbot, open_preview, path)
    model = preview.model
    assert model is not None
    assert [preview.cell(1, n) for n in range(3)] == ["4", "", ""]
    assert preview.cell(2, 2) == "7\t8"
    assert model.index(1, 0).data(Qt.ItemDataRole.BackgroundRole) is not None
    assert model.index(0, 0).data(Qt.ItemDataRole.BackgroundRole) is None
    assert "different number of cells" in model.index(1, 0).data(
        Qt.ItemDataRole.ToolTipRole
    )
    assert model.headerData(1, Qt.Orientation.Vertical).startswith("\u26a0")


def test_huge_fields_are_elided_with_the_full_text_kept(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    big = "x" * 200_000
    path = _write(tmp_path / "big.csv", [["a", "b"], [big, "two\nlines"]])
    preview = _open(qtbot, open_preview, path)
    model = preview.model
    assert model is not None
    shown = model.index(0, 0).data()
    assert len(shown) == CELL_CHARS + 1 and shown.endswith("\u2026")
    assert preview.cell(0, 0) == big
    assert model.index(0, 1).data() == "two\u23celines"


def test_cells_never_become_rich_text(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    markup = '<img src="/etc/passwd">' + "y" * CELL_CHARS
    rows = [["name", "n"], [markup, "1"], ["x", "2"]]
    preview = _open(qtbot, open_preview, _write(tmp_path / "h.csv", rows))
    model = preview.model
    assert model is not None
    row = 0 if model.headerData(0, Qt.Orientation.Horizontal) == "name" else 1
    tooltip = model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "<img" not in tooltip and "&lt;img src=" in tooltip
    assert model.index(row, 0).data().startswith('<img src="/etc/passwd">')


def test_clicking_a_header_sorts_small_files(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _people(tmp_path, 6))
    ages = [preview.cell(n, 1) for n in range(6)]
    preview.view.horizontalHeader().sectionClicked.emit(1)
    qtbot.waitUntil(lambda: "Sorting" not in preview.status_text())
    assert [preview.cell(n, 1) for n in range(6)] == sorted(ages, key=int)
    preview.view.horizontalHeader().sectionClicked.emit(1)
    qtbot.waitUntil(lambda: preview.cell(0, 1) == max(ages, key=int))


def test_sorting_is_off_for_large_files(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(csv_view, "SORT_LIMIT_BYTES", 10)
    preview = _open(qtbot, open_preview, _people(tmp_path, 6))
    assert not preview.view.horizontalHeader().sectionsClickable()
    assert "sorting is off for large files" in preview.status_text()


def test_copy_gives_tsv_with_formula_cells_escaped(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    rows = [["a", "b", "n"], ["=1+1", "plain", "1"], ["x", "y", "2"]]
    path = _write(tmp_path / "f.csv", rows)
    preview = _open(qtbot, open_preview, path)
    model = preview.model
    assert model is not None
    selection = preview.view.selectionModel()
    for row, column in ((0, 0), (0, 1), (1, 1)):
        selection.select(
            model.index(row, column), QItemSelectionModel.SelectionFlag.Select
        )
    preview.copy_selection()
    assert QGuiApplication.clipboard().text() == "'=1+1\tplain\n\ty"


def test_unbalanced_quote_shows_a_notice(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "quote.csv"
    path.write_text('a,b\n1,"open\n2,3\n4,5\n')
    preview = _open(qtbot, open_preview, path)
    assert "never closed" in preview.notice_text()
    assert preview.model is not None and preview.model.rowCount() >= 1


def test_empty_file_shows_an_empty_table(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")
    preview = _open(qtbot, open_preview, path)
    assert preview.is_loaded()
    assert preview.status_text().startswith("0 rows")


def test_invalid_utf8_shows_replacement_characters(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes(b"name,city,n\nJos\xe9,Par\xeds,1\nAnn,Rome,2\n")
    preview = _open(qtbot, open_preview, path)
    assert preview.cell(0, 0) == "Jos\ufffd"


def test_utf16_table_gets_a_clear_failure(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "wide.csv"
    path.write_bytes("a,b\n1,2\n".encode("utf-16"))
    preview = open_preview(path)
    qtbot.waitUntil(preview.is_settled)
    assert "UTF-8" in preview.message_text()


def test_file_truncated_while_indexing_keeps_rows_and_asks_for_reload(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _people(tmp_path, 50)
    real_build = csv_index.CsvIndex.build

    def truncate_then_build(table: Any, **kwargs: Any) -> Any:
        with open(path, "r+b") as handle:
            handle.truncate(40)
        return real_build(table, **kwargs)

    monkeypatch.setattr(csv_view.CsvIndex, "build", truncate_then_build)
    preview = _open(qtbot, open_preview, path)
    assert "changed on disk" in preview.notice_text()
    assert preview.cell(0, 0) == "person 0"
    assert preview.status_text().startswith("first 50 rows")


def test_file_changed_after_indexing_stops_reading_rows(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    count = BLOCK * 4
    path = _people(tmp_path, count)
    preview = _open(qtbot, open_preview, path)
    with open(path, "ab") as handle:
        handle.write(b"late,1\n")
    assert preview.cell(count - 1, 0) == ""
    assert "changed on disk" in preview.notice_text()


def test_row_index_starts_after_the_first_rows_are_painted(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_build = csv_view.CsvIndex.build
    painted_before_build: list[bool] = []
    preview: CsvPreviewWidget | None = None

    def watched_build(table: Any, **kwargs: Any) -> csv_index.CsvIndex:
        assert preview is not None and preview.model is not None
        painted_before_build.append(preview.model.clock.last > 0)
        return real_build(table, **kwargs)

    monkeypatch.setattr(csv_view.CsvIndex, "build", watched_build)
    made = open_preview(_people(tmp_path, 300))
    assert isinstance(made, CsvPreviewWidget)
    preview = made
    preview.resize(500, 300)
    preview.show()
    qtbot.waitUntil(preview.is_indexed)
    assert painted_before_build == [True]


def test_display_text_is_made_once_per_row_and_other_roles_cost_nothing(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    preview = _open(qtbot, open_preview, _people(tmp_path, 50))
    model = preview.model
    assert model is not None
    made: list[str] = []
    real_display = csv_model.display_cell

    def counted(text: str) -> str:
        made.append(text)
        return real_display(text)

    monkeypatch.setattr(csv_model, "display_cell", counted)
    for _ in range(3):
        assert model.index(7, 0).data() == "person 7"
        assert model.index(7, 1).data() == str(20 + (7 * 7) % 50)
    assert made == ["person 7", str(20 + (7 * 7) % 50)]
    for role in (
        Qt.ItemDataRole.FontRole,
        Qt.ItemDataRole.TextAlignmentRole,
        Qt.ItemDataRole.SizeHintRole,
        Qt.ItemDataRole.DecorationRole,
    ):
        assert model.index(7, 0).data(role) is None


def test_find_selects_the_next_cell_and_wraps(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _people(tmp_path, 3000))
    preview.focus_find()
    assert not preview.find_bar.isHidden()
    preview.find_next("PERSON 2999")
    qtbot.waitUntil(lambda: preview.find_status() == "Row 3,000, column 1")
    current = preview.view.currentIndex()
    assert (current.row(), current.column()) == (2999, 0)
    preview.find_next("person 12")  # wraps to the first match from the top
    qtbot.waitUntil(lambda: preview.find_status() == "Row 13, column 1")
    preview.find_next("person 12")
    qtbot.waitUntil(lambda: preview.find_status() == "Row 121, column 1")
    preview.find_next("person 12", backward=True)
    qtbot.waitUntil(lambda: preview.find_status() == "Row 13, column 1")
    preview.find_next("no such cell")
    qtbot.waitUntil(lambda: preview.find_status() == "No matches")


def test_find_in_a_sorted_table_selects_the_row_where_it_is_shown(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _people(tmp_path, 6))
    preview.view.horizontalHeader().sectionClicked.emit(1)
    qtbot.waitUntil(lambda: "Sorting" not in preview.status_text())
    preview.find_next("person 3")
    qtbot.waitUntil(lambda: preview.find_status().startswith("Row 4,"))
    assert preview.cell(preview.view.currentIndex().row(), 0) == "person 3"


def test_a_painted_cell_asks_the_model_once_for_the_roles_it_serves(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "ragged.csv"
    path.write_text("a,b\n1,2\n3\n4,5,6\n")
    preview = _open(qtbot, open_preview, path)
    model = preview.model
    assert model is not None
    asked: list[int] = []
    cells: list[tuple[int, int]] = []
    data = csv_model.CsvTableModel.data
    multi_data = csv_model.CsvTableModel.multiData

    def counted(self: Any, index: Any, role: int = 0) -> Any:
        asked.append(role)
        return data(self, index, role)

    def counted_cells(self: Any, index: Any, span: Any) -> None:
        cells.append((index.row(), index.column()))
        multi_data(self, index, span)

    monkeypatch.setattr(csv_model.CsvTableModel, "data", counted)
    monkeypatch.setattr(csv_model.CsvTableModel, "multiData", counted_cells)
    preview.resize(500, 300)
    preview.show()
    qtbot.waitExposed(preview)
    preview.view.viewport().grab()
    # One call per painted cell; font, alignment, colours, check state...
    # are never asked one by one.
    assert (0, 0) in cells and (2, 1) in cells
    assert set(asked) <= set(csv_model._SERVED)
    assert int(Qt.ItemDataRole.DisplayRole) not in asked
    # What one call sets is what ``data`` says role by role.
    ragged = model.index(1, 0)
    for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole):
        item = QModelRoleData(int(role))
        model.multiData(ragged, item)
        assert item.data() == data(model, ragged, int(role)) is not None
    assert model.headerData(1, Qt.Orientation.Vertical).startswith("\u26a0")


def test_a_table_of_no_rows_shows_and_announces_no_empty_range(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")
    preview = _open(qtbot, open_preview, path)
    assert preview.status_text().startswith("0 rows")
    model = CsvTableModel(None, 1, [])
    ranges: list[tuple[bool, bool]] = []
    model.dataChanged.connect(
        lambda top, bottom, _roles=(): ranges.append((top.isValid(), bottom.isValid()))
    )
    model.set_fetcher(lambda first, count: [], 0)
    # Qt warns of an invalid range; an empty table has no range to announce.
    assert ranges == []


def test_a_single_row_is_data_not_a_header_over_no_rows(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = _write(tmp_path / "one.csv", [["name", "age", "town"]])
    preview = _open(qtbot, open_preview, path)
    assert preview.status_text().startswith("1 row · 3 columns")
    assert preview.cell(0, 2) == "town"


def test_lone_cr_line_ends_are_refused_with_the_reason(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "mac.csv"
    path.write_bytes(b"name,age\r1,2\r3,4\r")
    preview = open_preview(path)
    qtbot.waitUntil(preview.is_settled)
    assert "carriage return alone" in preview.message_text()


def _sales(tmp_path: Path) -> Path:
    rows: list[list[Any]] = [
        ["id", "date", "region", "product", "units", "price", "note"]
    ]
    rows += [
        [n, f"2024-03-{n:02d}", "North", "Widget", 40 - n, f"{n}.50", ""]
        for n in range(1, 9)
    ]
    return _write(tmp_path / "sales.csv", rows)


def test_a_header_over_a_mostly_empty_column_is_found_and_sorting_keeps_it(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _sales(tmp_path))
    model = preview.model
    assert model is not None
    assert model.headerData(6, Qt.Orientation.Horizontal) == "note"
    assert preview.header_box.isChecked() and preview.header_box.isEnabled()
    assert "· header row" in preview.status_text()

    preview.view.horizontalHeader().sectionClicked.emit(4)  # units, descending data
    qtbot.waitUntil(lambda: preview.cell(0, 4) == "32")
    cells = {preview.cell(n, 0) for n in range(model.rowCount())}
    assert "id" not in cells and model.rowCount() == 8


def test_first_row_is_header_can_be_turned_off_and_on(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = _open(qtbot, open_preview, _sales(tmp_path))

    preview.header_box.setChecked(False)
    qtbot.waitUntil(lambda: preview.is_indexed() and preview.cell(0, 0) == "id")
    assert preview.model is not None and preview.model.rowCount() == 9
    assert "no header row" in preview.status_text()
    assert preview.model.headerData(0, Qt.Orientation.Horizontal) != "id"

    preview.header_box.setChecked(True)
    qtbot.waitUntil(lambda: preview.is_indexed() and preview.cell(0, 0) == "1")
    assert preview.model.headerData(0, Qt.Orientation.Horizontal) == "id"
    assert preview.index is not None and preview.index.row_count == 8


def test_a_painted_cell_reads_only_the_slots_it_fills(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "ragged.csv"
    path.write_text("a,b\n1,2\n3\n4,5,6\n")
    preview = _open(qtbot, open_preview, path)
    cells: list[int] = []
    roles: list[int] = []
    multi_data = csv_model.CsvTableModel.multiData
    role = QModelRoleData.role

    def counted_cells(self: Any, index: Any, span: Any) -> None:
        cells.append(index.row())
        multi_data(self, index, span)

    def counted_role(self: QModelRoleData) -> int:
        roles.append(1)
        return role(self)

    monkeypatch.setattr(csv_model.CsvTableModel, "multiData", counted_cells)
    monkeypatch.setattr(QModelRoleData, "role", counted_role)
    preview.resize(500, 300)
    preview.show()
    qtbot.waitExposed(preview)
    image = preview.view.viewport().grab().toImage()
    # Of the delegate's seven roles only the display and background slots are
    # looked at, not each slot in turn.
    assert cells and len(roles) <= 2 * len(cells)
    # And the ragged row is still tinted where the others are not.
    view = preview.view
    plain_row = view.visualRect(view.model().index(0, 1)).center()
    ragged_row = view.visualRect(view.model().index(1, 1)).center()
    ragged_row.setX(ragged_row.x() + 40)
    plain_row.setX(plain_row.x() + 40)
    assert image.pixelColor(ragged_row) != image.pixelColor(plain_row)


def test_a_cell_of_a_row_without_tint_reads_only_its_text_slot(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    preview = _open(qtbot, open_preview, _people(tmp_path, 20))
    cells: list[int] = []
    roles: list[int] = []
    multi_data = csv_model.CsvTableModel.multiData
    role = QModelRoleData.role

    def counted_cells(self: Any, index: Any, span: Any) -> None:
        cells.append(index.row())
        multi_data(self, index, span)

    def counted_role(self: QModelRoleData) -> int:
        roles.append(1)
        return role(self)

    monkeypatch.setattr(csv_model.CsvTableModel, "multiData", counted_cells)
    monkeypatch.setattr(QModelRoleData, "role", counted_role)
    preview.resize(500, 300)
    preview.show()
    qtbot.waitExposed(preview)
    preview.view.viewport().grab()
    # No row is ragged: one role looked at per painted cell, not two.
    assert cells and len(roles) == len(cells)
