"""The JSON preview: lazy tree, paging, text tab, JSON Lines and reported problems."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex
from pytestqt.qtbot import QtBot

from app.core.filetype import Kind
from app.formats.json_load import JSON_SIZE_LIMIT
from previewers import registry
from previewers.json import JsonPreviewer
from previewers.json.tree import PAGE
from previewers.json.widget import JsonPreviewWidget
from previewers.source import PreviewSource
from tests.previewers.conftest import OpenPreview


@pytest.fixture(autouse=True)
def json_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(
        registry.REGISTRY, "_table", [JsonPreviewer(), *registry.REGISTRY._table]
    )
    yield


def _open(qtbot: QtBot, open_preview: OpenPreview, path: Path) -> JsonPreviewWidget:
    preview = open_preview(path)
    assert isinstance(preview, JsonPreviewWidget)
    qtbot.waitUntil(preview.is_loaded)
    return preview


def _row(preview: JsonPreviewWidget, row: int, parent: QModelIndex) -> list[str]:
    model = preview.model
    assert model is not None
    return [model.index(row, column, parent).data() for column in range(3)]


def test_root_children_show_key_type_and_value(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "data.json"
    path.write_text(json.dumps({"name": "Ada", "tags": ["a", "b"], "n": None}))
    preview = _open(qtbot, open_preview, path)
    model = preview.model
    assert model is not None
    root = model.index(0, 0)
    assert model.rowCount(root) == 3  # expanded on load
    assert _row(preview, 0, root) == ["name", "string · 3 chars", '"Ada"']
    assert _row(preview, 1, root) == ["tags", "array · 2 items", "[2 items]"]
    assert _row(preview, 2, root) == ["n", "null", "null"]


def test_children_are_built_only_when_expanded(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "nested.json"
    path.write_text(json.dumps({"deep": {"a": 1, "b": 2}}))
    preview = _open(qtbot, open_preview, path)
    model = preview.model
    assert model is not None
    deep = model.index(0, 0, model.index(0, 0))
    assert model.hasChildren(deep) and model.rowCount(deep) == 0
    preview.tree.expand(deep)
    assert model.rowCount(deep) == 2


def test_large_arrays_come_in_pages_with_show_more(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(list(range(PAGE * 2 + 5))))
    preview = _open(qtbot, open_preview, path)
    model = preview.model
    assert model is not None
    root = model.index(0, 0)
    assert model.rowCount(root) == PAGE + 1
    more = model.index(PAGE, 0, root)
    assert more.data().startswith("Show 1,000 more")
    assert model.show_more(more)
    assert model.rowCount(root) == 2 * PAGE + 1
    assert model.show_more(model.index(2 * PAGE, 0, root))
    assert model.rowCount(root) == 2 * PAGE + 5
    assert model.index(2 * PAGE + 4, 0, root).data() == f"[{2 * PAGE + 4}]"


def test_text_tab_shows_pretty_printed_json(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "compact.json"
    path.write_text('{"a":[1,2]}')
    preview = _open(qtbot, open_preview, path)
    preview.show_text()
    qtbot.waitUntil(lambda: preview.text() != "")
    assert preview.text() == '{\n  "a": [\n    1,\n    2\n  ]\n}'


def test_syntax_error_names_line_and_column_and_shows_the_text(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "a": 1,\n  "b" 2\n}\n')
    preview = _open(qtbot, open_preview, path)
    assert "Line 3, column 7" in preview.notice_text()
    context = preview.error_text()
    assert '3 |   "b" 2' in context
    assert context.splitlines()[3].index("^") == context.splitlines()[2].index("2")


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        ('{"a": NaN}', "NaN"),
        ('{"a": 1, "a": 2}', "Duplicate key $.a"),
        ('{"n": ' + "9" * 5000 + "}", "over 4300 digits"),
    ],
)
def test_unusual_values_are_reported_in_the_notice_bar(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, text: str, warning: str
) -> None:
    path = tmp_path / "odd.json"
    path.write_text(text)
    preview = _open(qtbot, open_preview, path)
    assert warning in preview.notice_text()
    assert preview.model is not None


def test_depth_ten_thousand_is_a_notice_not_a_crash(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 10_000 + "]" * 10_000)
    preview = _open(qtbot, open_preview, path)
    assert "nested deeper" in preview.notice_text()


@pytest.mark.parametrize(
    ("data", "words"), [(b"", "Expecting value"), (b'{"a": "\xff"}', "not valid UTF")]
)
def test_empty_and_invalid_utf8_files_give_a_clear_notice(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, data: bytes, words: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    preview = _open(qtbot, open_preview, path)
    assert words in preview.notice_text()


def test_json_lines_show_one_row_per_line_and_bad_lines(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"e": 1}\n\n{"e": 2\n[1, 2]\n')
    preview = _open(qtbot, open_preview, path)
    model = preview.model
    assert model is not None
    assert model.rowCount() == 3
    assert _row(preview, 0, QModelIndex())[:2] == ["line 1", "object · 1 key"]
    bad = _row(preview, 1, QModelIndex())
    assert bad[0] == "line 3" and bad[1] == "error" and "column" in bad[2]
    assert "1 line(s) are not valid JSON: 3" in preview.notice_text()
    assert model.hasChildren(model.index(2, 0))


def test_files_over_the_limit_are_left_to_the_text_previewer() -> None:
    source = PreviewSource.of_head(
        "/x/huge.json", b"[1, 2, 3]", size=JSON_SIZE_LIMIT + 1, kind=Kind.JSON
    )
    assert source.mime == "application/json"
    assert not JsonPreviewer().accepts(source)
    assert registry.choose(source).name != "json"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b'["\xff"]', "not valid UTF"),
        (b"[\x00]", "Not valid JSON"),
        (b"[1] x", "Extra data"),
        (b"[NaN, 1e400]", "too large for a double"),
        (b"[" * 100_000, "nested deeper"),
    ],
)
def test_broken_bytes_land_on_a_json_message_not_the_binary_card(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, data: bytes, words: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(data)
    preview = _open(qtbot, open_preview, path)
    assert words in preview.notice_text()


def test_json_lines_top_rows_come_in_pages(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "many.jsonl"
    path.write_text("".join(f'{{"n": {n}}}\n' for n in range(PAGE + 10)))
    preview = _open(qtbot, open_preview, path)
    model = preview.model
    assert model is not None
    assert model.rowCount() == PAGE + 1
    more = model.index(PAGE, 0)
    assert more.data() == "Show 10 more…"
    assert model.show_more(more)
    assert model.rowCount() == PAGE + 10
    assert _row(preview, PAGE + 9, QModelIndex())[0] == f"line {PAGE + 10}"


def test_a_document_over_the_lazy_limit_is_indexed_and_its_text_cut(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.formats import json_load
    from previewers.json import widget

    monkeypatch.setattr(widget, "LAZY_LIMIT", 100)
    monkeypatch.setattr(widget, "TEXT_TAB_LIMIT", 200)
    monkeypatch.setattr(json_load, "LAZY_LIMIT", 100)
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"rows": list(range(500)), "a": 1, "a ": 2}))
    preview = _open(qtbot, open_preview, path)
    model = preview.model
    assert model is not None
    root = model.index(0, 0)
    assert _row(preview, 0, root)[:2] == ["rows", "array · 500 items"]
    preview.show_text()
    qtbot.waitUntil(lambda: preview.text() != "")
    assert preview.text().startswith('{\n  "rows": [\n    0,')
    assert preview.text().endswith("see the tree)")


def test_find_counts_matches_in_the_text_and_steps_through_them(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "find.json"
    path.write_text(
        json.dumps({"items": [f"Apple {n}" for n in range(5)], "x": "pear"})
    )
    preview = _open(qtbot, open_preview, path)
    preview.focus_find()
    preview.find_next("apple")
    qtbot.waitUntil(lambda: preview.find_status() == "1 of 5")
    assert preview.current_match() == (2, 5)  # line 3: '    "Apple 0",'
    assert preview.find_next("apple")
    assert preview.find_status() == "2 of 5"
    assert preview.find_next("apple", backward=True)
    assert preview.current_match() == (2, 5)
    preview.find_next("no such thing")
    qtbot.waitUntil(lambda: preview.find_status() == "No matches")


def test_a_find_asked_before_the_text_is_ready_waits_for_it(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A search over the lines not built yet would find nothing, and its
    # "No matches" could arrive after the real count and replace it.
    path = tmp_path / "find.json"
    path.write_text(json.dumps({"items": [f"Apple {n}" for n in range(5)]}))
    preview = _open(qtbot, open_preview, path)
    searches: list[str] = []
    real_start = preview._start_find

    def start_find(text: str, backward: bool) -> None:
        searches.append(text)
        real_start(text, backward)

    monkeypatch.setattr(preview, "_start_find", start_find)
    preview.find_next("apple")
    assert preview.find_status() == "Find starts when the text is ready…"
    qtbot.waitUntil(lambda: preview.find_status() == "1 of 5")
    assert searches == ["apple"]  # one search, over the finished text
    assert preview.text().count("Apple") == 5


def test_the_text_of_a_big_document_stops_when_the_preview_closes() -> None:
    import threading

    from app.formats.json_load import JsonStoppedError, LazyDocument, load_json_lazy
    from previewers.json.widget import indented_text

    lazy = load_json_lazy(json.dumps(list(range(100))).encode())
    assert isinstance(lazy, LazyDocument)
    closed = threading.Event()
    assert indented_text(lazy.value, closed).startswith("[\n  0,\n  1,")
    closed.set()
    with pytest.raises(JsonStoppedError):
        indented_text(lazy.value, closed)


def test_a_page_of_plain_values_is_laid_out_without_asking_each_for_children(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from previewers.json.tree import JsonTreeModel

    asked: list[int] = []
    has_children = JsonTreeModel.hasChildren

    def counting(self: JsonTreeModel, parent: QModelIndex = QModelIndex()) -> bool:  # noqa: B008
        asked.append(1)
        return has_children(self, parent)

    monkeypatch.setattr(JsonTreeModel, "hasChildren", counting)
    path = tmp_path / "wide.json"
    path.write_text(json.dumps([f"value {n}" for n in range(5_000)] + [[1, 2]]))
    preview = _open(qtbot, open_preview, path)
    preview.repaint()
    model = preview.model
    assert model is not None
    root = model.index(0, 0)
    assert model.rowCount(root) == PAGE + 1  # a page and its "Show more" row
    # The tree lays out a whole page: every leaf says it has no children, so
    # the layout does not call into Python once per row to ask.
    assert len(asked) < 50
    last = model.index(PAGE - 1, 0, root)
    assert not model.hasChildren(last)


def test_duplicate_keys_are_still_reported_after_the_first_page_is_shown(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "dupes.json"
    items = [{"id": n} for n in range(3_000)]
    text = json.dumps(items)[:-1] + ', {"id": 1, "id": 2}]'
    path.write_text(text)
    preview = _open(qtbot, open_preview, path)
    qtbot.waitUntil(lambda: "Duplicate key $[3000].id" in preview.notice_text())
