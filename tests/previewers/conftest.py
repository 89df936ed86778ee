"""Open files into previews and release them after each test."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from app.core.trust.safeio import open_verified
from previewers.context import STANDALONE, PreviewContext
from previewers.registry import choose
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget

OpenPreview = Callable[..., PreviewWidget]


@pytest.fixture
def open_preview(qtbot: object) -> Iterator[OpenPreview]:
    """Open ``path`` safely and build the registry's preview for it."""
    made: list[PreviewWidget] = []

    def make(
        path: Path,
        *,
        source_view: bool = False,
        context: PreviewContext = STANDALONE,
    ) -> PreviewWidget:
        file = open_verified(str(path))
        source = PreviewSource.from_file(str(path), file, source_view=source_view)
        preview = choose(source).create(source, file, None, context=context)
        made.append(preview)
        return preview

    yield make
    for preview in made:
        preview.release()
        preview.deleteLater()


class StallMeter:
    """The longest the GUI thread went without serving a 10 ms timer.

    Use as a context manager around a wait that runs the event loop; after
    it, ``longest`` is the biggest gap between two ticks, in seconds.
    """

    def __init__(self) -> None:
        self.longest = 0.0
        self._last = 0.0
        self._timer = QTimer()
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self._last)
        self._last = now

    def __enter__(self) -> StallMeter:
        self._last = time.perf_counter()
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.stop()
        self._tick()
