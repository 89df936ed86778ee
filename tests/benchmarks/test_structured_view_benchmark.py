"""Benchmarks of the JSON and CSV previews as a user sees them: time to a shown view.

Figures are printed with a baseline from the same run: ``json.loads`` for the
JSON tree, and the engine alone (first rows, row index) for the CSV table.
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QHeaderView, QTableView
from pytestqt.qtbot import QtBot

from app.core.trust.safeio import open_verified
from app.formats.csv_index import CsvFile, CsvIndex
from previewers.csv import CsvPreviewer
from previewers.csv.widget import CsvPreviewWidget
from previewers.json import JsonPreviewer
from previewers.json.widget import JsonPreviewWidget
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget

from .test_csv_index_benchmark import GIB, table_block
from .test_json_benchmark import document

pytestmark = pytest.mark.benchmark


def _spin_until(done: Callable[[], bool], timeout: float = 120.0) -> None:
    """Run the event loop until ``done``, checking every millisecond.

    Waiting inside the loop (not spinning) leaves the workers the interpreter.
    """
    deadline = time.perf_counter() + timeout
    loop = QEventLoop()
    while not done():
        QTimer.singleShot(1, loop.quit)
        loop.exec()
        if time.perf_counter() > deadline:
            raise TimeoutError("the preview did not get there in time")


def _create(previewer: JsonPreviewer | CsvPreviewer, path: Path) -> PreviewWidget:
    file = open_verified(str(path))
    source = PreviewSource.from_file(str(path), file)
    widget = previewer.create(source, file, None)
    widget.resize(1000, 700)
    widget.show()
    return widget


def test_json_10mb_to_tree_shown(
    qtbot: QtBot, tmp_path: Path, report: list[str]
) -> None:
    path = tmp_path / "orders.json"
    small = tmp_path / "small.json"
    small.write_text('{"a": [1, 2]}')
    warm = _create(JsonPreviewer(), small)
    _spin_until(warm.is_settled)
    warm.release()
    warm.deleteLater()
    data = document()
    path.write_bytes(data)
    ours, plain = [], []
    for _ in range(5):
        began = time.perf_counter()
        widget = _create(JsonPreviewer(), path)
        assert isinstance(widget, JsonPreviewWidget)
        _spin_until(widget.is_loaded)
        model = widget.model
        assert model is not None and model.rowCount(model.index(0, 0)) > 0
        widget.tree.viewport().repaint()
        ours.append(time.perf_counter() - began)
        widget.release()
        widget.deleteLater()
        began = time.perf_counter()
        json.loads(data)
        plain.append(time.perf_counter() - began)
    median, baseline = statistics.median(ours), statistics.median(plain)
    report.append(
        f"json view {len(data) / 1e6:.1f} MB to root children shown: "
        f"{median * 1000:.0f} ms (target <= 150 ms, parsed off the GUI thread); "
        f"json.loads {baseline * 1000:.0f} ms, ratio {median / baseline:.2f}"
    )


@pytest.fixture(scope="module")
def big_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("csvview")
    if shutil.disk_usage(folder).free < 2 * GIB:
        pytest.skip("needs 2 GiB of free disk for the generated table")
    chunk = table_block() * 16
    path = folder / "large.csv"
    with open(path, "wb") as out:
        written = out.write(b"id,name,note,amount,date\r\n")
        while written + len(chunk) <= GIB:
            written += out.write(chunk)
    yield path
    path.unlink()


def _scroll_frames(view: QTableView, rng: random.Random, count: int) -> list[float]:
    """Repaint times after jumping to random positions, sorted."""
    bar = view.verticalScrollBar()
    frames = []
    for _ in range(count):
        bar.setValue(rng.randint(0, bar.maximum()))
        started = time.perf_counter()
        view.viewport().repaint()
        frames.append(time.perf_counter() - started)
    return sorted(frames)


def _plain_table_like(
    qtbot: QtBot, view: QTableView, rows: list[tuple[str, ...]]
) -> QTableView:
    """A QTableView on a QStandardItemModel (no Python per cell), set up like
    ``view``: what painting the same cells costs with no model code at all."""
    model = QStandardItemModel(len(rows), len(rows[0]))
    for number, cells in enumerate(rows):
        for column, cell in enumerate(cells):
            model.setItem(number, column, QStandardItem(cell))
    plain = QTableView()
    plain.setModel(model)
    plain.setWordWrap(False)
    vertical = plain.verticalHeader()
    vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vertical.setDefaultSectionSize(view.verticalHeader().defaultSectionSize())
    plain.horizontalHeader().setDefaultSectionSize(
        view.horizontalHeader().defaultSectionSize()
    )
    plain.resize(view.size())
    with qtbot.waitExposed(plain):
        plain.show()
    plain.viewport().repaint()  # the first paint pays one-time costs
    return plain


def test_csv_1gib_first_screen_index_and_scrolling(
    qtbot: QtBot, big_table: Path, report: list[str]
) -> None:
    # Engine baselines, measured warm in the same run.
    with open_verified(str(big_table)) as file:
        began = time.perf_counter()
        table = CsvFile(file, name="large.csv")
        table.head_rows(40)
        engine_head = time.perf_counter() - began
        began = time.perf_counter()
        CsvIndex.build(table)
        engine_index = time.perf_counter() - began

    # A first small table pays the one-time costs (fonts, style) of any first view.
    small = big_table.with_name("small.csv")
    small.write_bytes(table_block()[:200_000].rsplit(b"\n", 1)[0] + b"\n")
    warm = _create(CsvPreviewer(), small)
    _spin_until(warm.is_settled)
    warm.release()
    warm.deleteLater()
    began = time.perf_counter()
    widget = _create(CsvPreviewer(), big_table)
    assert isinstance(widget, CsvPreviewWidget)
    _spin_until(widget.is_loaded)
    widget.view.viewport().repaint()
    first_screen = time.perf_counter() - began
    _spin_until(widget.is_indexed)
    indexed = time.perf_counter() - began
    assert widget.index is not None and widget.index.row_count > 1_000_000

    view = widget.view
    rng = random.Random(7)
    view.viewport().repaint()
    cached = []
    for _ in range(30):
        started = time.perf_counter()
        view.viewport().repaint()
        cached.append(time.perf_counter() - started)
    frames = _scroll_frames(view, rng, 300)
    p95 = frames[int(len(frames) * 0.95)]
    baseline = statistics.median(cached)
    with widget.borrow_file():
        head = [row.cells for row in widget.index.rows(0, 20_000)]
    plain = _plain_table_like(qtbot, view, head)
    plain_frames = _scroll_frames(plain, random.Random(7), 300)
    plain_p95 = plain_frames[int(len(plain_frames) * 0.95)]
    plain.deleteLater()
    widget.release()
    widget.deleteLater()
    report.append(
        f"csv view 1 GiB first screen: {first_screen * 1000:.0f} ms "
        f"(target <= 100 ms); engine head alone {engine_head * 1000:.1f} ms"
    )
    report.append(
        f"csv view 1 GiB row index shown: {indexed:.2f} s (target <= 3 s warm); "
        f"engine index alone {engine_index:.2f} s, ratio {indexed / engine_index:.2f}"
    )
    report.append(
        f"csv view scroll frame p95 over random pages: {p95 * 1000:.2f} ms "
        f"(target <= 8 ms); repaint without scrolling {baseline * 1000:.2f} ms, "
        f"ratio {p95 / baseline:.1f}"
    )
    report.append(
        f"csv view scroll frame p95 {p95 * 1000:.2f} ms vs the same cells in a "
        f"QStandardItemModel table (no Python per cell) {plain_p95 * 1000:.2f} ms, "
        f"ratio {p95 / plain_p95:.2f}"
    )


def test_csv_random_jumps_against_a_plain_table_of_the_same_rows(
    qtbot: QtBot, tmp_path: Path, report: list[str]
) -> None:
    path = tmp_path / "table.csv"
    path.write_bytes(b"id,name,note,amount,date\r\n" + table_block() * 4)
    widget = _create(CsvPreviewer(), path)
    assert isinstance(widget, CsvPreviewWidget)
    _spin_until(widget.is_indexed)
    assert widget.index is not None
    view = widget.view
    view.viewport().repaint()
    with widget.borrow_file():
        rows = [row.cells for row in widget.index.rows(0, widget.index.row_count)]
    plain = _plain_table_like(qtbot, view, rows)
    assert plain.model().rowCount() == view.model().rowCount()

    # The same random fractions of the height in turns, frame by frame, so a
    # busy machine slows both alike.
    rng = random.Random(5)
    frames: list[float] = []
    plain_frames: list[float] = []
    for _ in range(300):
        fraction = rng.random()
        for table, times in ((view, frames), (plain, plain_frames)):
            bar = table.verticalScrollBar()
            bar.setValue(round(fraction * bar.maximum()))
            started = time.perf_counter()
            table.viewport().repaint()
            times.append((time.perf_counter() - started) * 1000)
    frames.sort()
    plain_frames.sort()
    p95, plain_p95 = (
        frames[int(len(frames) * 0.95)],
        plain_frames[int(len(plain_frames) * 0.95)],
    )
    plain.deleteLater()
    widget.release()
    widget.deleteLater()
    report.append(
        f"csv random jumps ({len(rows)} rows): p95 {p95:.2f} ms, plain "
        f"QTableView of the same cells (QStandardItemModel) {plain_p95:.2f} ms, "
        f"ratio {p95 / plain_p95:.2f} (target <= 1.2)"
    )
