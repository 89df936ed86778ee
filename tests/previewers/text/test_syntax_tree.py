"""tree-sitter highlighting: pygments' colours on real files, windows as asked."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sysconfig
from collections import Counter
from pathlib import Path

import pytest

from previewers import highlight
from previewers.highlight import (
    MAX_HIGHLIGHT_CHARS,
    ROOT,
    Span,
    StylePalette,
    TokenLook,
    _lex,
    lexer_for_name,
)
from previewers.text import syntax_tree
from previewers.text.syntax_tree import (
    TreeHighlighter,
    TreeScan,
    grammar_for_name,
    load_grammar,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "highlight"
NO_LOOK = TokenLook("", False, False, False)
PALETTES = (StylePalette("default"), StylePalette("native"))


def _installed(package: str, *parts: str) -> Path:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent.joinpath(*parts)


def _dist_file(distribution: str, name: str) -> Path:
    """A file of an installed distribution's metadata (its README)."""
    found = importlib.metadata.distribution(distribution)
    (path,) = [
        file
        for file in found.files or ()
        if file.name == name and file.parent.name.endswith(".dist-info")
    ]
    return Path(str(found.locate_file(path)))


def _stdlib(name: str) -> Path:
    return Path(sysconfig.get_paths()["stdlib"]) / name


# Real files, each in the language its name says (see tests/data/highlight).
SAMPLES = {
    "textwrap.py": lambda: _stdlib("textwrap.py"),
    "subprocess.py": lambda: _stdlib("subprocess.py"),
    "argparse.py": lambda: _stdlib("argparse.py"),
    "mpl.js": lambda: _installed("matplotlib", "backends/web_backend/js/mpl.js"),
    "nbagg_mpl.js": lambda: _installed(
        "matplotlib", "backends/web_backend/js/nbagg_mpl.js"
    ),
    "explorer.js": lambda: _installed("importlinter", "ui/static/explorer.js"),
    "rxjs-Observable.ts": lambda: DATA / "rxjs-Observable.ts",
    "rxjs-ajax.ts": lambda: DATA / "rxjs-ajax.ts",
    "nbformat.v4.5.schema.json": lambda: _installed(
        "nbformat", "v4/nbformat.v4.5.schema.json"
    ),
    "texmath-port.yaml": lambda: _installed("mdit_py_plugins", "texmath/port.yaml"),
    "footnote-port.yaml": lambda: _installed("mdit_py_plugins", "footnote/port.yaml"),
    "activate.sh": lambda: _stdlib("venv/scripts/common/activate"),
    "pkg-errors-errors.go": lambda: DATA / "pkg-errors-errors.go",
    "pkg-errors-stack.go": lambda: DATA / "pkg-errors-stack.go",
    "scopeguard-lib.rs": lambda: DATA / "scopeguard-lib.rs",
    "either-lib.rs": lambda: DATA / "either-lib.rs",
    # The app's own copy of Leaflet's style sheet (BSD-2-Clause, licence beside).
    "leaflet.css": lambda: (
        Path(__file__).resolve().parents[3]
        / "resources/web/libraries/leaflet/1.9.4/dist/leaflet.css"
    ),
}
HTML = Path(__file__).resolve().parents[2] / "data" / "html"
# Pages with inline <script> and <style> (tests/data/html/README.md).
SAMPLES.update(
    {
        name: (lambda name=name: HTML / name)
        for name in (
            "minesweeper.html",
            "contact-form.html",
            "chartjs-dashboard.html",
            "landing-google-fonts.html",
            "react-todo.html",
            "threejs-cube.html",
        )
    }
)
# READMEs as packages ship them, and the project's own report.
SAMPLES.update(
    {
        "report.md": lambda: DATA.parent / "markdown" / "report.md",
        "pymupdf-README.md": lambda: _dist_file("pymupdf", "README.md"),
        "langsmith-sandbox-README.md": lambda: _installed(
            "langsmith", "sandbox/README.md"
        ),
        "texmath-README.md": lambda: _installed("mdit_py_plugins", "texmath/README.md"),
    }
)

# Where the grammar cannot see what pygments' regular expressions see: per
# language, (pygments' token, ours) -> why. Every other character must look
# the same in both styles.
DEVIATIONS: dict[str, dict[tuple[str, str], str]] = {
    "Python": {
        ("Token.Literal.String.Escape", "Token.Literal.String.Double"): (
            "pygments reads \\' and \\\" as escapes inside raw strings as well"
        ),
        ("Token.Literal.String.Single", "Token.Literal.String.Escape"): (
            "the same, the other way round, in a raw string's last characters"
        ),
        ("None", "Token.Name"): "a line-continuation backslash is plain for pygments",
    },
    "JavaScript": {},
    "TypeScript": {},
    "JSON": {},
    "YAML": {},
    "Bash": {},
    "Go": {},
    "Rust": {
        ("Token.Comment.Preproc", "Token.Punctuation"): (
            "an attribute written among a macro's tokens is tokens to the grammar"
        ),
        ("Token.Name.Class", "Token.Keyword"): (
            'after "->" and a primitive type ending a line, pygments reads the'
            " next line's first word as a type"
        ),
    },
    "HTML": {
        **dict.fromkeys(
            (
                ("Token.Error", "Token.Name"),
                ("Token.Error", "Token.Operator"),
                ("Token.Operator", "Token.Name"),
                ("Token.Keyword", "Token.Name"),
            ),
            "pygments' JavaScript lexer reads no JSX (a <script> compiled in the"
            " page), the grammar does; and a CSS word starting with a hyphen"
            ' ("-apple-system") is an operator and a name for pygments',
        ),
        ("Token.Name", "Token.Keyword.Type"): (
            'pygments\' CSS lexer knows no grid "fr" unit; the grammar reads a unit'
        ),
        **dict.fromkeys(
            (
                ("Token.Name.Tag", "Token.Literal.Number.Integer"),
                ("Token.Name.Tag", "Token.Keyword.Type"),
            ),
            "pygments reads an @media condition as selectors, the grammar as values",
        ),
    },
    "Markdown": {
        ("Token.Generic.Emph", "None"): (
            'pygments reads "_" pairs inside words or formulas ("t_0$ and $t_0")'
            " as emphasis"
        ),
        ("None", "Token.Generic.Strong"): (
            "emphasis over two lines, which pygments' one-line rules miss"
        ),
        ("None", "Token.Name.Tag"): (
            "a badge (an image in a link): pygments takes the image's closing"
            " bracket as the link's"
        ),
        ("None", "Token.Literal.String.Backtick"): (
            "code between double backticks, which pygments does not know"
        ),
    },
    "CSS": {
        **dict.fromkeys(
            (
                ("Token.Literal.Number.Float", "Token.Name"),
                ("Token.Name.Function", "Token.Name"),
                ("Token.Error", "Token.Name"),
            ),
            "an old Internet Explorer filter (progid:...) is no CSS the grammar reads",
        ),
        **dict.fromkeys(
            (
                ("Token.Keyword.Type", "Token.Name"),
                ("Token.Operator", "Token.Name"),
                ("Token.Literal.Number.Integer", "Token.Name"),
            ),
            'the grammar reads a font\'s "16px/24px" as one word',
        ),
    },
}
# How rare the explained differences must be, per language: one character in
# a thousand, or as said.
RARE = {"CSS": 100, "HTML": 25, "Markdown": 25}


def _look(token: object) -> tuple[TokenLook | None, ...]:
    if token is None:
        return (None, None)
    looks = (palette.look(token) for palette in PALETTES)  # type: ignore[arg-type]
    return tuple(None if look == NO_LOOK else look for look in looks)


def _per_character(spans: list[list[Span]], lines: list[str]) -> list[list[object]]:
    tokens: list[list[object]] = []
    for line_spans, line in zip(spans, lines, strict=True):
        row: list[object] = [None] * len(line)
        for span in line_spans:
            row[span.start : span.start + span.length] = [span.token] * span.length
        tokens.append(row[: len(line)])
    return tokens


def _tree_spans(name: str, lines: list[str], window: int = 100) -> list[list[Span]]:
    spec = grammar_for_name(name)
    assert spec is not None
    highlighter = TreeHighlighter(load_grammar(spec))
    highlighter.adopt(highlighter.scan(lines, lambda: False))
    spans: list[list[Span]] = []
    for first in range(0, len(lines), window):
        found, exact = highlighter.highlight(lines[first : first + window], first)
        assert exact and not highlighter.too_slow
        spans.extend(found)
    return spans


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_every_character_has_the_colour_pygments_gives_it(
    sample: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Colours, not speed: a busy machine must not turn a window plain.
    monkeypatch.setattr(highlight, "WINDOW_BUDGET_S", 60.0)
    path = SAMPLES[sample]()
    lines = path.read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")
    lexer = lexer_for_name(sample)
    assert lexer is not None
    theirs = _per_character(_lex(lexer, lines, ROOT, 0, 0).spans, lines)
    ours = _per_character(_tree_spans(sample, lines), lines)
    spec = grammar_for_name(sample)
    assert spec is not None
    allowed = DEVIATIONS[spec.name]
    differing: Counter[tuple[str, str]] = Counter()
    compared = 0
    for line, pygments_row, tree_row in zip(lines, theirs, ours, strict=True):
        for column, character in enumerate(line):
            if character.isspace():
                continue  # a blank shows no colour
            compared += 1
            if _look(pygments_row[column]) != _look(tree_row[column]):
                differing[(str(pygments_row[column]), str(tree_row[column]))] += 1
    assert compared > 1000 or sample.endswith(".yaml")
    unexplained = {
        pair: count for pair, count in differing.items() if pair not in allowed
    }
    assert unexplained == {}
    # The explained ones stay rare.
    assert sum(differing.values()) <= compared // RARE.get(spec.name, 1000)


def test_a_window_before_the_whole_tree_is_parsed_alone_and_redone_later() -> None:
    grammar = load_grammar(grammar_for_name("a.py"))  # type: ignore[arg-type]
    lines = ['"""', "def not_code(): pass", '"""', "x = 1"]
    highlighter = TreeHighlighter(grammar)
    # Alone, the window's first line opens the string differently.
    alone, exact = highlighter.highlight(lines[1:], 1)
    assert not exact
    assert alone[0][0].token is not None
    highlighter.adopt(highlighter.scan(lines, lambda: False))
    spans, exact = highlighter.highlight(lines[1:], 1)
    assert exact
    assert {str(span.token) for span in spans[0]} == {"Token.Literal.String.Doc"}


def test_columns_count_characters_not_utf8_bytes() -> None:
    grammar = load_grammar(grammar_for_name("a.py"))  # type: ignore[arg-type]
    line = "é = 'ü' + x  # ö"
    spans, _exact = TreeHighlighter(grammar).highlight([line], 0, exact=False)
    strings = [span for span in spans[0] if "String" in str(span.token)]
    comments = [span for span in spans[0] if "Comment" in str(span.token)]
    assert [(span.start, span.length) for span in strings] == [(4, 3)]
    assert [(span.start, span.length) for span in comments] == [(13, 3)]


def test_a_line_too_long_to_highlight_stays_plain() -> None:
    grammar = load_grammar(grammar_for_name("a.json"))  # type: ignore[arg-type]
    long_line = '["' + "x" * MAX_HIGHLIGHT_CHARS + '"]'
    spans, _exact = TreeHighlighter(grammar).highlight(
        [long_line, '{"a": 1}'], 0, exact=False
    )
    assert spans[0] == []
    assert spans[1]


def test_the_whole_text_is_parsed_in_slices_and_a_scan_stops_when_asked() -> None:
    grammar = load_grammar(grammar_for_name("a.json"))  # type: ignore[arg-type]
    lines = ['{"key": [1, 2, 3], "text": "value"},'] * 20_000
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return False

    highlighter = TreeHighlighter(grammar)
    scan = highlighter.scan(lines, cancelled)
    assert scan.tree is not None and not scan.too_slow
    # One question per slice: the interpreter lock is let go between them.
    size = sum(len(line) + 1 for line in lines)
    assert len(asked) >= size // syntax_tree.PARSE_SLICE
    stopped = highlighter.scan(lines, lambda: True)
    assert stopped == TreeScan(None, too_slow=False)


def test_the_grammars_are_the_installed_wheels_own() -> None:
    # Each grammar is compiled into its wheel: loading one fetches nothing.
    for name in (
        "a.py",
        "a.js",
        "a.ts",
        "a.tsx",
        "a.json",
        "a.yaml",
        "a.sh",
        "a.go",
        "a.rs",
        "a.html",
        "a.md",
    ):
        spec = grammar_for_name(name)
        assert spec is not None
        grammar = load_grammar(spec)
        assert grammar.query.pattern_count > 0
    assert grammar_for_name("a.rb") is None  # pygments' languages stay there


def _tokens(spans: list[Span], line: str) -> dict[str, str]:
    """Each word of ``line`` (as split on blanks and ";") and its one token,
    or "mixed"."""
    (row,) = _per_character([spans], [line])
    found: dict[str, str] = {}
    column = 0
    for word in line.replace(";", " ").split(" "):
        kinds = {str(token) for token in row[column : column + len(word)]}
        if word:
            found[word] = kinds.pop() if len(kinds) == 1 else "mixed"
        column += len(word) + 1
    return found


@pytest.mark.parametrize("exact", [True, False])
def test_a_script_and_a_style_sheet_in_html_take_their_own_grammars(
    exact: bool,
) -> None:
    grammar = load_grammar(grammar_for_name("page.html"))  # type: ignore[arg-type]
    lines = [
        '<p class="x" > if &amp; return </p>',
        "<script>",
        "const n = 42; // é",
        "</script><style>a { color: red }</style>",
    ]
    highlighter = TreeHighlighter(grammar)
    if exact:
        highlighter.adopt(highlighter.scan(lines, lambda: False))
    spans, _exact = highlighter.highlight(lines, 0, exact=exact)
    markup = _tokens(spans[0], lines[0])
    assert markup["<p"] == "mixed"  # punctuation and a tag
    assert markup['class="x"'] == "mixed"
    assert markup["&amp"] == "Token.Name.Entity"
    assert markup["if"] == "None"  # text in markup is no keyword
    script = _tokens(spans[2], lines[2])
    assert script["const"] == "Token.Keyword"
    assert script["42"] == "Token.Literal.Number.Float"
    assert script["é"] == "Token.Comment.Single"
    closing = _tokens(spans[3], lines[3])
    assert closing["color:"] == "mixed"
    assert closing["red"] == "Token.Keyword.Constant"


def test_a_window_inside_a_script_is_read_from_the_whole_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Scripts are looked for a row at a time: one over several rows is
    # found in each and read once, whole.
    monkeypatch.setattr(syntax_tree, "INJECT_ROWS", 1)
    grammar = load_grammar(grammar_for_name("page.html"))  # type: ignore[arg-type]
    lines = ["<script>", "let s = `", "<b>not markup</b>", "`;", "</script>"]
    highlighter = TreeHighlighter(grammar)
    highlighter.adopt(highlighter.scan(lines, lambda: False))
    spans, exact = highlighter.highlight(lines[2:3], 2)
    assert exact
    assert len(highlighter._nested.trees) == 1
    assert set(_tokens(spans[0], lines[2]).values()) == {
        "Token.Literal.String.Backtick"
    }


def test_a_script_nested_too_deep_stays_plain_and_bad_text_breaks_nothing() -> None:
    grammar = load_grammar(grammar_for_name("page.html"))  # type: ignore[arg-type]
    depth = syntax_tree.MAX_QUERY_DEPTH + 50
    lines = [
        "<div>" * depth + "<script>var a = 1;</script>" + "</div>" * depth,
        "<script>var \udcff = '\udcfe';</script>",  # undecodable bytes, kept
        "<style>" + "a{}" * MAX_HIGHLIGHT_CHARS + "</style>",
        "<script>var b = 2;</script>",
    ]
    highlighter = TreeHighlighter(grammar)
    highlighter.adopt(highlighter.scan(lines, lambda: False))
    spans, exact = highlighter.highlight(lines, 0)
    assert exact and not highlighter.too_slow
    assert "Keyword" not in str(spans[0])
    assert "Token.Keyword" in str(spans[1])
    assert spans[2] == []
    assert "Token.Keyword" in str(spans[3])


def test_markdown_reads_each_paragraph_and_fence_on_its_own() -> None:
    grammar = load_grammar(grammar_for_name("notes.md"))  # type: ignore[arg-type]
    lines = [
        "# Title *not emphasis*",
        "",
        "A `tick that never closes",
        "",
        "Then **bold** and `code`",
        "",
        "> quoted `code`",
        "",
        "```python",
        "def f(): return '''",
        "```",
        "",
        "```js",
        "let s = 1;",
        "```",
        "",
        "```",
        "plain fence",
        "```",
    ]
    highlighter = TreeHighlighter(grammar)
    highlighter.adopt(highlighter.scan(lines, lambda: False))
    spans, exact = highlighter.highlight(lines, 0)
    assert exact
    words = [_tokens(found, line) for found, line in zip(spans, lines, strict=True)]
    assert set(words[0].values()) == {"Token.Generic.Heading"}
    assert words[2]["`tick"] == "None"  # an unclosed tick is text
    assert words[4]["**bold**"] == "Token.Generic.Strong"
    assert words[4]["`code`"] == "Token.Literal.String.Backtick"
    # A quote's line is emphasised whole, as pygments has it.
    assert words[6]["`code`"] == "Token.Generic.Emph"
    assert words[9]["def"] == "Token.Keyword"
    # The Python string left open does not run into the next fence.
    assert words[13]["let"] == "Token.Keyword"
    assert set(words[17].values()) == {"Token.Literal.String.Backtick"}


class _Clock:
    """``time`` for syntax_tree: each window takes the next of ``lengths``."""

    def __init__(self, *lengths: float) -> None:
        self.lengths = list(lengths)
        self.now = 0.0
        self.started = False

    def perf_counter(self) -> float:
        if self.started:
            self.now += self.lengths.pop(0)
        self.started = not self.started
        return self.now


def test_one_window_over_budget_is_timed_again_before_highlighting_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    grammar = load_grammar(grammar_for_name("a.py"))  # type: ignore[arg-type]
    over = highlight.WINDOW_BUDGET_S * 2
    highlighter = TreeHighlighter(grammar)
    # A pause (the collector, a busy machine) once: highlighting goes on.
    monkeypatch.setattr(syntax_tree, "time", _Clock(over, 0.0))
    spans, _exact = highlighter.highlight(["x = 1"], 0, exact=False)
    assert spans[0] and not highlighter.too_slow
    # Slow twice running: the grammar is too slow for the screen.
    monkeypatch.setattr(syntax_tree, "time", _Clock(over, over))
    spans, _exact = highlighter.highlight(["x = 1"], 0, exact=False)
    assert spans == [[]] and highlighter.too_slow
