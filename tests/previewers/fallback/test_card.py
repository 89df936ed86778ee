"""The fallback card: plain-text facts from magic bytes, and action buttons."""

from __future__ import annotations

import zipfile
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from app.core.filetype.sizes import human_size
from previewers.fallback.card import FILE_ACTIONS, FallbackCardWidget
from tests.previewers.conftest import OpenPreview


def _docx(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:document/>")
    return path


def test_card_shows_type_from_magic_size_and_path(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = _docx(tmp_path / "report.bin")
    card = open_preview(path)
    assert isinstance(card, FallbackCardWidget)
    assert card.is_loaded()
    texts = [label.text() for label in card.findChildren(QLabel)]
    assert "Word document (.docx, ZIP container)" in texts
    assert human_size(path.stat().st_size, exact=True) in texts
    assert "report.bin" in texts


def test_untrusted_name_is_shown_as_plain_text(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "<img src=x>.bin"
    path.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(64))
    card = open_preview(path)
    labels = card.findChildren(QLabel)
    assert all(
        label.textFormat() == Qt.TextFormat.PlainText
        for label in labels
        if label.text()
    )
    assert "<img src=x>.bin" in [label.text() for label in labels]


def test_each_button_requests_its_action(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "tool"
    path.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(64))
    card = open_preview(path)
    assert isinstance(card, FallbackCardWidget)
    requested: list[str] = []
    card.actionRequested.connect(requested.append)
    for action, _text in FILE_ACTIONS:
        qtbot.mouseClick(card.buttons[action], Qt.MouseButton.LeftButton)
    assert requested == [
        "open_native",
        "show_in_file_manager",
        "save_copy",
        "copy_path",
    ]
    assert all(button.accessibleName() for button in card.buttons.values())


def test_fallback_screenshot(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = _docx(tmp_path / "quarterly report.docx")
    card = open_preview(path)
    card.resize(800, 420)
    image = card.grab()
    assert not image.isNull()
    assert image.save(str(tmp_path / "fallback.png"))
