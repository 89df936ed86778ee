"""The text previewer's background jobs, run directly."""

from __future__ import annotations

from pathlib import Path

from app.core.safeio import open_verified
from previewers.text import highlight
from previewers.text.jobs import read_first_page


def test_the_first_page_of_code_comes_with_its_styles_loaded(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    highlight.style_by_name.cache_clear()
    with open_verified(str(path)) as file:
        first = read_first_page(file, str(path), "a.py")
    assert first.lexer is not None
    # Read here, off the GUI thread: the view's palette then costs nothing.
    assert highlight.style_by_name.cache_info().currsize == 2


def test_plain_text_loads_no_style(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    highlight.style_by_name.cache_clear()
    with open_verified(str(path)) as file:
        first = read_first_page(file, str(path), "notes.txt")
    assert first.lexer is None
    assert highlight.style_by_name.cache_info().currsize == 0
