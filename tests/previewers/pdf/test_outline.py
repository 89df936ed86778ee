"""The outline's tree: its shape from levels, and rows made known in batches."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex

from app.formats.pdf_doc import OutlineEntry
from previewers.pdf.outline import BATCH, OutlineTree, PdfOutlineModel


def _entries(*levels: int) -> list[OutlineEntry]:
    return [OutlineEntry(level, f"E{n}", n, None) for n, level in enumerate(levels)]


def test_levels_give_the_tree_and_a_jump_is_one_step_deeper() -> None:
    tree = OutlineTree.of(_entries(1, 2, 2, 5, 1, 0))
    assert tree.parents == (-1, 0, 0, 2, -1, -1)
    assert tree.rows == (0, 0, 1, 0, 1, 2)
    assert tree.children[0] == (0, 4, 5)  # the root's


def test_the_model_walks_a_deep_outline_and_says_where_each_entry_goes(
    qtbot: object,
) -> None:
    model = PdfOutlineModel(OutlineTree.of(_entries(*range(1, 1001))))
    index = QModelIndex()
    depth = 0
    while model.hasChildren(index):
        index = model.index(0, 0, index)
        depth += 1
    assert depth == 1000 and index.data() == "E999"
    entry = model.entry(index)
    assert entry is not None and entry.page == 999
    assert model.parent(index).data() == "E998"


def test_many_children_are_made_known_a_batch_at_a_time(qtbot: object) -> None:
    model = PdfOutlineModel(OutlineTree.of(_entries(*[1] * (2 * BATCH + 1))))
    root = QModelIndex()
    assert model.rowCount(root) == BATCH
    assert not model.index(BATCH, 0).isValid()
    fetches = 0
    while model.canFetchMore(root):
        model.fetchMore(root)
        fetches += 1
    assert fetches == 2 and model.rowCount(root) == 2 * BATCH + 1
    assert model.index(2 * BATCH, 0).data() == f"E{2 * BATCH}"
    model.set_tree(OutlineTree.of(_entries(1)))
    assert model.rowCount(root) == 1 and not model.canFetchMore(root)
