"""The text previewer's background jobs, run directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.trust.safeio import open_verified
from previewers import highlight
from previewers.text.jobs import read_first_page


def test_the_first_page_of_code_comes_with_its_styles_loaded(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    highlight.style_by_name.cache_clear()
    with open_verified(str(path)) as file:
        first = read_first_page(file, str(path), "a.py")
    assert first.highlighter is not None
    # Read here, off the GUI thread: the view's palette then costs nothing.
    assert highlight.style_by_name.cache_info().currsize == 2


def test_plain_text_loads_no_style(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    highlight.style_by_name.cache_clear()
    with open_verified(str(path)) as file:
        first = read_first_page(file, str(path), "notes.txt")
    assert first.highlighter is None
    assert highlight.style_by_name.cache_info().currsize == 0


def test_the_first_window_is_lexed_with_the_first_page_and_matches_a_live_lex(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.rb"  # a language pygments highlights
    path.write_text("def f(x)\n  return x + 1  # one\nend\n" * 300)
    with open_verified(str(path)) as file:
        first = read_first_page(file, str(path), "a.rb")
    primed = first.highlighter
    assert first.whole and isinstance(primed, highlight.WindowHighlighter)
    lines = path.read_text().split("\n")[:40]
    live, live_exact = highlight.WindowHighlighter(primed.lexer).highlight(lines, 0)
    lexed: list[object] = []
    real_lex = highlight._lex
    highlight._lex = lambda *a, **k: lexed.append(a) or real_lex(*a, **k)  # type: ignore[assignment]
    try:
        spans, exact = primed.highlight(lines, 0)
        # The view's first window costs the GUI thread no lexing.
        assert lexed == []
        assert (spans, exact) == (live, live_exact)
        # Another window, or other text, is lexed as before.
        primed.highlight(lines[5:10], 5)
        primed.highlight(["puts 1"], 0)
        assert len(lexed) == 2
    finally:
        highlight._lex = real_lex  # type: ignore[assignment]


def test_a_long_first_line_is_primed_as_the_paged_view_shows_it(
    tmp_path: Path,
) -> None:
    from previewers.text.paged_view import MemoryLines, display_line, split_like_index

    line = "key = [" + ", ".join(str(n) for n in range(20_000)) + "]"
    path = tmp_path / "wide.toml"  # a language pygments highlights
    path.write_text(line + "\n")
    with open_verified(str(path)) as file:
        first = read_first_page(file, str(path), "wide.toml")
    assert not first.whole
    lexed: list[object] = []
    real_lex = highlight._lex
    highlight._lex = lambda *a, **k: lexed.append(a) or real_lex(*a, **k)  # type: ignore[assignment]
    try:
        # What the paged view asks for its first window.
        source = MemoryLines(split_like_index(first.page.text))
        shown = [display_line(text) for text in source.lines(0, 50)]
        first.highlighter.highlight(shown, 0, exact=False)
    finally:
        highlight._lex = real_lex  # type: ignore[assignment]
    assert lexed == []


def test_a_lexer_too_slow_for_the_file_is_found_out_on_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(highlight, "WINDOW_BUDGET_S", 0.0)
    path = tmp_path / "slow.rb"
    path.write_text("def f\n  return 1\nend\n" * 20)
    with open_verified(str(path)) as file:
        first = read_first_page(file, str(path), "slow.rb")
    assert first.highlighter.too_slow


def test_a_grammar_missing_from_the_install_leaves_the_file_to_pygments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    from previewers.text import syntax_tree

    spec = syntax_tree.grammar_for_name("a.py")
    assert spec is not None
    missing = dataclasses.replace(spec, module="tree_sitter_not_installed")
    monkeypatch.setattr(syntax_tree, "grammar_for_name", lambda _name: missing)
    path = tmp_path / "a.py"
    path.write_text("def f(x):\n    return x + 1\n")
    with open_verified(str(path)) as file:
        first = read_first_page(file, str(path), "a.py")
    assert isinstance(first.highlighter, highlight.WindowHighlighter)
    assert first.language == "Python"
