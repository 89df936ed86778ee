"""A name that hides or reorders letters is shown as it really is, and flagged.

``invoice\u202efdp.sh`` is drawn as "invoicehs.pdf" by any text engine that
honours the right-to-left override. Every place that draws a name must show
the control, so the ``.sh`` stays visible.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QFont, QGuiApplication, QImage, QPainter
from pytestqt.qtbot import QtBot

from app.core.changes.change import Operation
from app.core.changes.index import TurnChanges
from app.core.chat.blocks import ChangesBlock, DeliverableBlock, ToolCallBlock
from app.core.store.deliverables import DeliverableRef
from app.core.trust.display_names import display_name, hides_characters
from app.core.trust.policy import Policy, builtin_rules
from app.core.trust.records import FileEntry
from app.ui.chat.model import accessible_text
from app.ui.chat.paint_cards import paint_deliverable, paint_tool_card
from app.ui.chat.paint_changes import paint_changes
from app.ui.chat.style import Colours
from app.ui.workspace.widget import WorkspaceWidget

HIDDEN = "invoice\u202efdp.sh"
CONTROLS = ("\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f")


class RecordingPainter(QPainter):
    """A painter that remembers every text it draws."""

    def __init__(self, image: QImage) -> None:
        super().__init__(image)
        self.texts: list[str] = []

    def drawText(self, *args: object) -> None:  # type: ignore[override]
        self.texts += [arg for arg in args if isinstance(arg, str)]
        super().drawText(*args)  # type: ignore[call-overload]


def _entry(name: str, folder: Path) -> FileEntry:
    return FileEntry(
        name, str(folder / name), "the invoice", "workspace", 10, 1, 1, 1, "code"
    )


@pytest.mark.parametrize("control", CONTROLS)
def test_every_bidi_control_is_made_visible(control: str) -> None:
    name = f"invoice{control}fdp.sh"

    shown = display_name(name)

    assert control not in shown
    assert f"<U+{ord(control):04X}>" in shown
    assert shown.endswith("fdp.sh")
    assert hides_characters(name)


def test_the_card_draws_the_real_order_and_flags_the_name(
    qtbot: QtBot, tmp_path: Path
) -> None:
    block = DeliverableBlock(
        DeliverableRef("c", "t", 0), _entry(HIDDEN, tmp_path), None
    )
    image = QImage(900, 120, QImage.Format.Format_ARGB32)
    painter = RecordingPainter(image)
    colours = Colours.of(QGuiApplication.palette())

    paint_deliverable(
        painter, QRect(0, 0, 900, 120), block, None, colours, QFont(), False, 1.0
    )
    painter.end()

    drawn = " ".join(painter.texts)
    assert "\u202e" not in drawn
    assert "invoice<U+202E>fdp.sh" in drawn
    assert "hidden characters" in drawn
    assert "\u202e" not in accessible_text(block)


def test_the_tree_tab_and_refusal_show_the_control(
    qtbot: QtBot, tmp_path: Path
) -> None:
    (tmp_path / HIDDEN).write_text("echo hi\n")
    (tmp_path / "secret\u202eyek.env").write_text("x")  # denied: ends in .env
    policy = Policy(builtin_rules(), home=str(tmp_path / "home"))
    widget = WorkspaceWidget(lambda: policy)
    qtbot.addWidget(widget)
    notices: list[str] = []
    widget.notice.connect(notices.append)
    widget.set_root(tmp_path)

    widget.open_path(str(tmp_path / HIDDEN))
    widget.open_path(str(tmp_path / "secret\u202eyek.env"))

    model = widget.tree.model()
    root = model.index(0, 0)
    qtbot.waitUntil(lambda: model.rowCount(root) >= 2)
    names = [model.index(row, 0, root).data() for row in range(model.rowCount(root))]
    assert "invoice<U+202E>fdp.sh" in names
    assert not [name for name in names if "\u202e" in name]
    assert widget.tabs.tabText(0) == "invoice<U+202E>fdp.sh"
    assert notices and "\u202e" not in notices[-1]
    assert "secret<U+202E>yek.env" in notices[-1]
    assert os.path.exists(tmp_path / HIDDEN)  # nothing renamed on disk


def _drawn(paint: Callable[[QPainter], None]) -> str:
    image = QImage(900, 300, QImage.Format.Format_ARGB32)
    painter = RecordingPainter(image)
    paint(painter)
    painter.end()
    return " ".join(painter.texts)


def test_the_tool_call_row_and_its_output_draw_the_real_order(qtbot: QtBot) -> None:
    block = ToolCallBlock(
        "w1", "write_file", "{}", "finished", f"Wrote 21 bytes to {HIDDEN}."
    )
    colours = Colours.of(QGuiApplication.palette())

    drawn = _drawn(
        lambda painter: paint_tool_card(
            painter, QRect(0, 0, 900, 300), block, True, colours, QFont(), 0.0
        )
    )

    assert "\u202e" not in drawn
    assert "Wrote 21 bytes to invoice<U+202E>fdp.sh" in drawn


def test_a_changed_file_row_draws_the_real_order(qtbot: QtBot) -> None:
    from tests.app.ui.chat.test_paint_changes import changed

    block = ChangesBlock(
        TurnChanges("c", 1, (changed(0, HIDDEN, Operation.CREATED),), ())
    )
    colours = Colours.of(QGuiApplication.palette())

    drawn = _drawn(
        lambda painter: paint_changes(
            painter, QRect(0, 0, 900, 300), block, True, colours, QFont(), None
        )
    )

    assert "\u202e" not in drawn
    assert "invoice<U+202E>fdp.sh" in drawn
