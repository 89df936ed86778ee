"""Highlighting a visible window: tree-sitter grammars against pygments' lexers."""

from __future__ import annotations

import gc
import importlib.util
import random
import statistics
import sysconfig
import time
from pathlib import Path

import pytest

from previewers.highlight import Highlighter, WindowHighlighter, lexer_for_name
from previewers.text.syntax_tree import TreeHighlighter, grammar_for_name, load_grammar

pytestmark = pytest.mark.benchmark

WINDOW = 60  # lines a tall window shows
JUMPS = 300
DATA = Path(__file__).resolve().parents[1] / "data" / "highlight"


def _installed(package: str, *parts: str) -> Path:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent.joinpath(*parts)


# Real files, as in tests/previewers/text/test_syntax_tree.py.
FILES = {
    "argparse.py": lambda: Path(sysconfig.get_paths()["stdlib"]) / "argparse.py",
    "mpl.js": lambda: _installed("matplotlib", "backends/web_backend/js/mpl.js"),
    "rxjs-ajax.ts": lambda: DATA / "rxjs-ajax.ts",
    "nbformat.v4.5.schema.json": lambda: _installed(
        "nbformat", "v4/nbformat.v4.5.schema.json"
    ),
    "texmath-port.yaml": lambda: _installed("mdit_py_plugins", "texmath/port.yaml"),
    "activate.sh": lambda: (
        Path(sysconfig.get_paths()["stdlib"]) / "venv/scripts/common/activate"
    ),
    "pkg-errors-errors.go": lambda: DATA / "pkg-errors-errors.go",
    "either-lib.rs": lambda: DATA / "either-lib.rs",
    "leaflet.css": lambda: (
        Path(__file__).resolve().parents[2]
        / "resources/web/libraries/leaflet/1.9.4/dist/leaflet.css"
    ),
    # A page with an inline style sheet and script (tests/data/html/README.md).
    # pygments cannot resume its HTML lexer inside a <script>: a window there
    # comes out plain from it, so its time is less work than ours.
    "minesweeper.html": lambda: DATA.parent / "html" / "minesweeper.html",
    # A README with fenced Python and shell, as a package ships it.
    "langsmith-sandbox-README.md": lambda: _installed("langsmith", "sandbox/README.md"),
}


def _window_ms(
    highlighter: Highlighter, lines: list[str], firsts: list[int]
) -> list[float]:
    """Per-window times over the same random jumps, the whole-file pass adopted."""
    highlighter.adopt(highlighter.scan(lines, lambda: False))
    # What the test run keeps alive is no part of a window's cost: a full
    # collection over it took up to 60 ms, past the budget, inside a window.
    gc.collect()
    gc.freeze()
    times = []
    try:
        for first in firsts:
            window = lines[first : first + WINDOW]
            started = time.perf_counter()
            highlighter.highlight(window, first)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        gc.unfreeze()
    assert not highlighter.too_slow
    return sorted(times)


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_window_highlighted_by_tree_sitter_and_by_pygments(
    name: str, report: list[str]
) -> None:
    lines = FILES[name]().read_text(encoding="utf-8").split("\n")
    spec, lexer = grammar_for_name(name), lexer_for_name(name)
    assert spec is not None and lexer is not None
    rng = random.Random(3)
    firsts = [rng.randrange(max(1, len(lines) - WINDOW)) for _ in range(JUMPS)]
    ours = _window_ms(TreeHighlighter(load_grammar(spec)), lines, firsts)
    theirs = _window_ms(WindowHighlighter(lexer), lines, firsts)
    median, p95 = statistics.median(ours), ours[int(len(ours) * 0.95) - 1]
    base = statistics.median(theirs)
    report.append(
        f"highlight {name} ({len(lines)} lines), {WINDOW}-line window at random "
        f"places: tree-sitter median {median:.2f} ms, p95 {p95:.2f} ms "
        f"(target <= 2 ms); pygments median {base:.2f} ms, "
        f"ratio {median / base:.2f}"
    )
