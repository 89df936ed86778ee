"""Open files into previews and release them after each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.core.safeio import open_verified
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
