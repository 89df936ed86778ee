"""The screenshot is taken once the view is ready, and a failed write says why."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QImage, QPixmap
from PySide6.QtWidgets import QLabel

from app.ui.window.screenshot import save_png, screenshot_when_loaded


def test_a_png_is_written_where_asked(qapp, tmp_path: Path) -> None:
    pixmap = QPixmap(20, 10)
    pixmap.fill(QColor("red"))
    assert save_png(pixmap, tmp_path / "shot.png") is None
    assert QImage(str(tmp_path / "shot.png")).size().width() == 20


def test_a_png_that_cannot_be_written_says_why(qapp, tmp_path: Path) -> None:
    pixmap = QPixmap(4, 4)
    pixmap.fill(QColor("red"))
    reason = save_png(pixmap, tmp_path / "missing" / "shot.png")
    assert reason == "No such file or directory"


def test_the_screenshot_waits_for_loading_not_for_the_deadline(
    qtbot, tmp_path: Path
) -> None:
    label = QLabel("ready")
    qtbot.addWidget(label)
    label.show()
    ready: list[bool] = []
    done: list[bool] = []
    screenshot_when_loaded(
        label,
        tmp_path / "shot.png",
        lambda: bool(ready),
        wait_ms=600_000,
        on_done=done.append,
    )
    ready.append(True)
    qtbot.waitUntil(lambda: done == [True], timeout=5000)
    assert (tmp_path / "shot.png").exists()


def test_a_first_paint_screenshot_is_taken_once_painted_and_says_when(
    qtbot, tmp_path: Path, monkeypatch
) -> None:
    import time

    from PySide6.QtWidgets import QApplication

    from app.ui.window.screenshot import FIRST_PAINT_KEY, screenshot_at_first_paint

    label = QLabel("first")
    qtbot.addWidget(label)
    label.resize(120, 40)
    exits: list[int] = []
    before = time.time_ns()
    screenshot_at_first_paint(label, tmp_path / "first.png")
    assert not (tmp_path / "first.png").exists()  # nothing before a paint
    monkeypatch.setattr(QApplication, "exit", exits.append)
    label.show()
    qtbot.waitUntil(lambda: exits == [0], timeout=5000)
    image = QImage(str(tmp_path / "first.png"))
    assert image.width() == 120
    assert before < int(image.text(FIRST_PAINT_KEY)) <= time.time_ns()
