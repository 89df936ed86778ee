"""Deliverable cards as painted: a name gets the room before its size and folder."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect
from PySide6.QtGui import QFont, QGuiApplication, QImage, QPainter
from pytestqt.qtbot import QtBot

from app.core.chat.blocks import DeliverableBlock, telling_folders
from app.core.store.deliverables import DeliverableRef
from app.core.trust.records import FileEntry
from app.ui.chat.paint_cards import paint_deliverable
from app.ui.chat.style import Colours


class RecordingPainter(QPainter):
    """A painter that remembers every text it draws."""

    def __init__(self, image: QImage) -> None:
        super().__init__(image)
        self.texts: list[str] = []

    def drawText(self, *args: object) -> None:  # type: ignore[override]
        self.texts += [arg for arg in args if isinstance(arg, str)]
        super().drawText(*args)  # type: ignore[call-overload]


def _drawn(block: DeliverableBlock, width: int) -> list[str]:
    image = QImage(width, 90, QImage.Format.Format_ARGB32)
    painter = RecordingPainter(image)
    colours = Colours.of(QGuiApplication.palette())
    paint_deliverable(
        painter, QRect(0, 0, width, 90), block, None, colours, QFont(), False, 1.0
    )
    painter.end()
    return painter.texts


def _block(path: Path, folder: str = "", size: int = 2048) -> DeliverableBlock:
    entry = FileEntry(
        path.name, str(path), "what it is", "workspace", size, 1, 1, 1, "markdown"
    )
    return DeliverableBlock(DeliverableRef("c", "t", 0), entry, None, folder)


def test_a_long_name_is_drawn_whole_where_the_card_has_room(
    qtbot: QtBot, tmp_path: Path
) -> None:
    name = "inspector-walkthrough-for-the-quarterly-README.md"
    texts = _drawn(_block(tmp_path / name), 520)
    assert name in texts


def test_same_named_cards_show_the_folders_that_tell_them_apart(
    qtbot: QtBot, tmp_path: Path
) -> None:
    paths = [tmp_path / "src" / "a", tmp_path / "src" / "b", tmp_path / "lib"]
    files = [str(folder / "index.ts") for folder in paths]
    assert telling_folders([*files, str(tmp_path / "x.md")]) == [
        "a",
        "b",
        "lib",
        "",
    ]
    texts = _drawn(_block(paths[0] / "index.ts", "a"), 600)
    assert "index.ts" in texts
    assert "a \u00b7 2.0 KiB" in texts
