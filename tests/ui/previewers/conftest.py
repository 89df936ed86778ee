"""Open files into previews and release them after each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.core.safeio import open_verified
from previewers.base import PreviewSource, PreviewWidget
from previewers.registry import choose

OpenPreview = Callable[..., PreviewWidget]


@pytest.fixture
def open_preview(qtbot: object) -> Iterator[OpenPreview]:
    """Open ``path`` safely and build the registry's preview for it."""
    made: list[PreviewWidget] = []

    def make(path: Path, *, source_view: bool = False) -> PreviewWidget:
        file = open_verified(str(path))
        source = PreviewSource.from_file(str(path), file, source_view=source_view)
        preview = choose(source).create(source, file, None)
        made.append(preview)
        return preview

    yield make
    for preview in made:
        preview.release()
        preview.deleteLater()
