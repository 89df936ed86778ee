"""The lexer table and window highlighting, without Qt."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import pytest
from pygments.token import Token

from previewers.highlight import (
    DARK_STYLE,
    LIGHT_STYLE,
    MAX_HIGHLIGHT_CHARS,
    StylePalette,
    WindowHighlighter,
    lexer_for_name,
    lexer_path,
    scan_checkpoints,
)


def test_table_picks_lexers_by_suffix_and_name_and_unknown_is_plain() -> None:
    assert lexer_path("clean_data.py") == "python:PythonLexer"
    assert lexer_path("Makefile") == "make:MakefileLexer"
    assert lexer_path("notes.txt") is None
    assert lexer_path("table.csv") is None
    assert lexer_for_name("x.unknown") is None


def test_window_spans_are_per_line_and_skip_whitespace() -> None:
    lexer = lexer_for_name("a.py")
    assert lexer is not None
    spans, exact = WindowHighlighter(lexer).highlight(["def f():", "    return 1"], 0)
    assert exact
    assert (spans[0][0].start, spans[0][0].length) == (0, 3)
    assert spans[0][0].token in Token.Keyword
    assert spans[1][0].start == 4


def test_window_inside_a_docstring_resumes_from_the_scan() -> None:
    lines = ["x = 1"] * 50 + ['"""'] + ["def not_code(): pass"] * 900 + ['"""']
    scan = scan_checkpoints("a.py", lines, lambda: False)
    lexer = lexer_for_name("a.py")
    assert lexer is not None
    without = WindowHighlighter(lexer, lambda f, c: lines[f : f + c])
    spans, exact = without.highlight(lines[800:802], 800)
    assert not exact and spans[0][0].token in Token.Keyword
    informed = WindowHighlighter(lexer, lambda f, c: lines[f : f + c])
    informed.adopt(scan)
    spans, exact = informed.highlight(lines[800:802], 800)
    assert exact
    assert [span.token in Token.String for span in spans[0]] == [True]


def test_very_long_lines_stay_plain() -> None:
    lexer = lexer_for_name("a.py")
    assert lexer is not None
    long_line = "x = 1 " * (MAX_HIGHLIGHT_CHARS // 5)
    spans, _ = WindowHighlighter(lexer).highlight([long_line, "y = 2"], 0)
    assert spans[0] == [] and spans[1]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("a.yaml", "key: &a [&a [&a b]]\nc:\n  - d\n  - e: f\n"),
        ("CMakeLists.txt", "project(x)\nadd_executable(x main.c)\n"),
        ("c.scss", "$a: true;\n$b: false;\n"),
        ("d.rb", "a.+(b)\n"),
    ],
)
@pytest.mark.parametrize("style", [LIGHT_STYLE, DARK_STYLE])
def test_every_token_a_lexer_makes_has_a_look(name: str, text: str, style: str) -> None:
    # Styles list only the token types that existed when they were written;
    # newer ones (Token.Punctuation.Indicator) take their parent's look.
    lexer = lexer_for_name(name)
    assert lexer is not None
    spans, _ = WindowHighlighter(lexer).highlight(text.split("\n"), 0)
    palette = StylePalette(style)
    tokens = {span.token for line in spans for span in line}
    assert tokens
    looks = [palette.look(token) for token in tokens]
    assert all(isinstance(look.color, str) for look in looks)


def test_a_missing_token_type_looks_like_its_parent() -> None:
    palette = StylePalette(LIGHT_STYLE)
    child = Token.Keyword.Constant.SomethingNoStyleKnows
    assert palette.look(child) == palette.look(Token.Keyword.Constant)


def test_a_scan_past_its_budget_says_the_lexer_is_too_slow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from previewers import highlight

    monkeypatch.setattr(highlight, "SCAN_BUDGET_S", 0.0)
    found = scan_checkpoints("a.py", ["x = 1"] * 100, lambda: False)
    assert found.too_slow and found.checkpoints == []


def test_a_window_stops_lexing_inside_one_line_at_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from previewers import highlight

    lexer = lexer_for_name("a.yaml")
    assert lexer is not None
    pulled: list[object] = []
    unprocessed = lexer.get_tokens_unprocessed

    def counting(*args: object, **kwargs: object) -> object:
        for found in unprocessed(*args, **kwargs):
            pulled.append(found)
            yield found

    monkeypatch.setattr(lexer, "get_tokens_unprocessed", counting)
    # A clock a second on at every look: past the deadline once a window started.
    ticks = itertools.count()
    clock = SimpleNamespace(perf_counter=lambda: float(next(ticks)))
    monkeypatch.setattr("previewers.highlight.time", clock)
    line = "key: " + "&a [" * 2_000 + "]" * 2_000
    told: list[bool] = []
    highlighter = WindowHighlighter(lexer)
    highlighter.on_too_slow = lambda: told.append(True)
    spans, exact = highlighter.highlight([line], 0)
    # The one line holds thousands of tokens; the budget was asked within it.
    assert len(pulled) <= highlight.BUDGET_CHECK_TOKENS
    # One slow window is plain and asked again; the second in a row turns it off.
    assert spans == [[]] and not exact and not highlighter.too_slow and told == []
    spans, exact = highlighter.highlight([line], 0)
    assert spans == [[]] and exact and highlighter.too_slow and told == [True]


def test_a_slow_window_between_quick_ones_keeps_the_colours(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from previewers import highlight

    lexer = lexer_for_name("a.py")
    assert lexer is not None
    # Each window looks at the clock as it starts and as it ends (and between).
    slow = iter([False, True, False])
    now = [0.0]

    def perf_counter() -> float:
        return now[0]

    def lexing(*args: Any, **kwargs: Any) -> Any:
        now[0] += 1.0 if next(slow, False) else 0.001
        return real_lex(*args, **kwargs)

    real_lex = highlight._lex
    monkeypatch.setattr("previewers.highlight._lex", lexing)
    monkeypatch.setattr(
        "previewers.highlight.time", SimpleNamespace(perf_counter=perf_counter)
    )
    highlighter = WindowHighlighter(lexer)
    lines = ["def f(x):", "    return x + 1"]
    coloured = [highlighter.highlight(lines, 0, exact=False)[0] for _ in range(3)]
    assert coloured[0] and any(coloured[0]) and coloured[1] == [[], []]
    assert coloured[2] == coloured[0] and not highlighter.too_slow
