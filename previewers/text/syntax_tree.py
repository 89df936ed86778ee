"""Highlighting with tree-sitter grammars, in pygments' token types and colours.

For the languages of ``previewers.text.syntax_grammars`` a file is parsed
once, on a worker, and a window of lines is highlighted by running a query
over that tree, restricted to the window's rows: about a millisecond where
pygments takes several. The grammars are the per-language wheels, which carry
their compiled parsers; no grammar is ever fetched at run time. The queries are our own
(``previewers/text/queries/*.scm``): their capture names are pygments token
types (``@Keyword``, ``@Name.Function``), chosen so that every character gets
the colour pygments' lexer gives it, and the style tables are pygments' own.
Where a grammar cannot tell what a regular-expression lexer tells, the query
file says so beside the pattern (``tests/previewers/text/test_syntax_tree.py``
compares both on real files, character by character).

Overlapping captures resolve as tree-sitter's own highlighter does: a
smaller node wins over the node it lies in, and for the same node the
earlier pattern wins. Text no capture covers takes the language's ``rest``
token: pygments gives every identifier and bracket a token (``Name``,
``Punctuation``, which look alike in every style), and prose in Markdown none.

Text a language hands to another (HTML's <script> and <style>) is parsed by
that grammar from the same bytes, limited to its ranges, so its rows and
columns are the host's: its spans replace the host's there
(``previewers.text.syntax_nested``).

Until the whole-file tree arrives, or for a paged file that never gets one,
a window is parsed on its own (a fraction of a millisecond): it may misread
a window that starts inside a string, as pygments' root state does, and is
redone once the tree is there. tree-sitter holds the interpreter lock for a
whole call, so the full parse reads the text in slices (``PARSE_SLICE``),
which gives the GUI thread the lock between them.

Nothing here imports Qt; tree-sitter is imported only when a file needs it.
"""

from __future__ import annotations

import bisect
import functools
import importlib
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from pygments.token import Token, _TokenType, string_to_tokentype  # type: ignore[import-untyped]

from previewers import highlight
from previewers.highlight import MAX_HIGHLIGHT_CHARS, Span
from previewers.text.syntax_grammars import (
    GrammarSpec,
    grammar_for_name,
    grammar_modules,
)
from previewers.text.syntax_nested import spliced
from previewers.text.syntax_rules import without_inside

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Query, Range, Tree

__all__ = ["GrammarSpec", "TreeHighlighter", "grammar_for_name", "grammar_modules"]

# How deep in the tree a highlighted node may start (0.8 ms for a window of
# nodes 200 deep, against 127 ms for 4,000).
MAX_QUERY_DEPTH = 200

PARSE_SLICE = 16 * 1024
"""Bytes handed to the parser per call: the GUI thread gets the lock between."""

INJECT_ROWS = 2_000
"""Rows searched per call for text handed to another grammar (a few ms)."""


@dataclass(frozen=True)
class Grammar:
    """A loaded grammar and its compiled query; shared by every thread."""

    spec: GrammarSpec
    language: Language
    query: Query
    tokens: dict[str, _TokenType]
    rest: _TokenType | None
    refine: tuple[tuple[_TokenType, re.Pattern[str], _TokenType], ...]
    opaque: frozenset[_TokenType]
    inject: Query | None = None
    """Every ``GrammarSpec.inject`` query in one, read in one pass."""
    inject_to: tuple[GrammarSpec, ...] = ()
    """The grammar each of ``inject``'s patterns hands its text to."""


@functools.cache
def load_grammar(spec: GrammarSpec) -> Grammar:
    """Import ``spec``'s grammar and compile its query (milliseconds; on a worker)."""
    from tree_sitter import Language, Query

    module = importlib.import_module(spec.module)
    language = Language(getattr(module, spec.function)())
    source = files("previewers.text").joinpath("queries", spec.query).read_text()
    if spec.words_from:
        lists = importlib.import_module(spec.words_from)
        source = re.sub(
            r"WORDS:(\w+)",
            lambda found: " ".join(f'"{word}"' for word in getattr(lists, found[1])),
            source,
        )
    query = Query(language, source)
    names = [query.capture_name(index) for index in range(query.capture_count)]
    # Captures named with a leading "_" only serve a predicate.
    tokens = {name: string_to_tokentype(name) for name in names if name[0] != "_"}
    rest = string_to_tokentype(spec.rest) if spec.rest else None
    refine = tuple(
        (string_to_tokentype(outer), re.compile(pattern), string_to_tokentype(inner))
        for outer, pattern, inner in spec.refine
    )
    opaque = frozenset(string_to_tokentype(name) for name in spec.opaque)
    sources = "\n".join(found for found, _ in spec.inject)
    inject = Query(language, sources) if sources else None
    inject_to = tuple(
        inner
        for found, inner in spec.inject
        for _ in range(Query(language, found).pattern_count)
    )
    return Grammar(
        spec, language, query, tokens, rest, refine, opaque, inject, inject_to
    )


def _parse(grammar: Grammar, data: bytes, cancelled: Callable[[], bool]) -> Tree | None:
    """Parse ``data`` in slices, so the lock is let go between them; ``None``
    when ``cancelled`` said stop."""
    from tree_sitter import Parser

    parser = Parser(grammar.language)

    def read(offset: int, _point: object) -> bytes:
        return data[offset : offset + PARSE_SLICE]

    stopped = False

    def progress(_offset: int, _has_error: bool) -> bool:
        nonlocal stopped
        stopped = stopped or cancelled()
        return stopped

    try:
        tree = parser.parse(read, progress_callback=progress)
    except ValueError:
        if stopped:  # the parser says "failed" when it was told to stop
            return None
        raise
    if stopped:
        return None
    # A tree read through a callback keeps no text, and the query's text
    # predicates then cost twenty times more; parsing the bytes again on the
    # finished tree reuses all of it (a few milliseconds for 2 MiB).
    return parser.parse(data, old_tree=tree)


def _plain_lines(lines: Sequence[str]) -> list[str]:
    # As pygments does: a line too long to highlight is parsed as empty.
    return [line if len(line) <= MAX_HIGHLIGHT_CHARS else "" for line in lines]


@dataclass(frozen=True)
class Nested:
    """Trees of the text other grammars read (``GrammarSpec.inject``), in
    the text's order: one per range, as pygments lexes each <script> or
    fenced block on its own, each parsed from the whole text but only within
    its range, so its rows and columns are the host's."""

    trees: tuple[tuple[Grammar, Tree, Nested], ...] = ()
    """Each tree with what its grammar hands on in turn (HTML in Markdown)."""
    rows: tuple[tuple[int, int], ...] = ()
    """Each tree's first and last row; ranges never overlap, so both ascend."""

    def overlapping(
        self, first: int, count: int
    ) -> Iterator[tuple[Grammar, Tree, Nested, int, int]]:
        """The trees with rows among ``count`` rows from ``first``, and the
        first and last of those rows."""
        index = bisect.bisect_left(self.rows, first, key=lambda rows: rows[1])
        last = first + count - 1
        while index < len(self.rows) and self.rows[index][0] <= last:
            start, end = self.rows[index]
            grammar, tree, deeper = self.trees[index]
            yield grammar, tree, deeper, max(start, first), min(end, last)
            index += 1


def _nested(
    grammar: Grammar, tree: Tree, data: bytes, cancelled: Callable[[], bool]
) -> Nested | None:
    """Parse what ``grammar`` hands to other grammars; ``None`` if cancelled."""
    from tree_sitter import Parser, QueryCursor

    if grammar.inject is None:
        return Nested()
    cursor = QueryCursor(grammar.inject)
    cursor.set_max_start_depth(MAX_QUERY_DEPTH)
    # Row by row range, so the lock is let go between (a query over a whole
    # 1.6 MB Markdown tree holds it for 0.2 s); a node over a range's edge
    # comes twice, so each is kept by where it starts.
    by_start: dict[int, tuple[Range, GrammarSpec]] = {}
    for row in range(0, tree.root_node.end_point.row + 1, INJECT_ROWS):
        if cancelled():
            return None
        cursor.set_point_range((row, 0), (row + INJECT_ROWS, 0))
        for pattern, captures in cursor.matches(tree.root_node):
            for node in captures.get("content", ()):
                by_start[node.start_byte] = node.range, grammar.inject_to[pattern]
    found = [(part, load_grammar(spec)) for _, (part, spec) in sorted(by_start.items())]
    parsers: dict[str, Parser] = {}
    trees: list[tuple[Grammar, Tree, Nested]] = []
    rows: list[tuple[int, int]] = []
    for part, inner in found:
        # No range would mean the whole text.
        if part.end_byte <= part.start_byte:
            continue
        if cancelled():
            return None
        parser = parsers.get(inner.spec.query)
        if parser is None:
            parser = parsers[inner.spec.query] = Parser(inner.language)
        parser.included_ranges = [part]
        parsed = parser.parse(data)
        # Grammars hand on at most twice (Markdown, HTML, JavaScript): no cycle.
        deeper = _nested(inner, parsed, data, cancelled)
        if deeper is None:
            return None
        trees.append((inner, parsed, deeper))
        rows.append((part.start_point.row, part.end_point.row))
    return Nested(tuple(trees), tuple(rows))


@dataclass(frozen=True)
class TreeScan:
    """A whole text's tree (``None`` if parsing gave up: ``too_slow``)."""

    tree: Tree | None
    too_slow: bool = False
    nested: Nested = Nested()


class TreeHighlighter:
    """Highlights windows of lines with one grammar; the ``WindowHighlighter``
    interface, so the views take either.

    Not thread safe, except ``scan``, which makes its own parser.
    """

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self.lead_source: Callable[[int, int], Sequence[str] | None] | None = None
        self.too_slow = False
        """A window took over ``WINDOW_BUDGET_S``: every window is plain now."""
        self.on_too_slow: Callable[[], None] | None = None
        self._tree: Tree | None = None
        self._nested = Nested()
        self._primed: tuple[list[str], list[list[Span]]] | None = None

    @property
    def name(self) -> str:
        return self.grammar.spec.name

    def scan(self, lines: Sequence[str], cancelled: Callable[[], bool]) -> TreeScan:
        """Parse the whole text (on a worker); gives up after ``SCAN_BUDGET_S``."""
        deadline = time.perf_counter() + highlight.SCAN_BUDGET_S
        data = "\n".join(_plain_lines(lines)).encode("utf-8", "surrogatepass")
        stop = lambda: cancelled() or time.perf_counter() > deadline  # noqa: E731
        tree = _parse(self.grammar, data, stop)
        nested = None if tree is None else _nested(self.grammar, tree, data, stop)
        if tree is None or nested is None:
            return TreeScan(None, too_slow=not cancelled())
        return TreeScan(tree, nested=nested)

    def adopt(self, scan: TreeScan) -> None:
        """Take the whole text's tree: windows are exact from now on."""
        if scan.tree is not None:
            self._tree = scan.tree
            self._nested = scan.nested
            self._primed = None

    def prime(self, lines: Sequence[str]) -> None:
        """Highlight the file's first lines now, on a worker, for the first window."""
        shown = list(lines)
        spans, _exact = self.highlight(shown, 0, exact=False)
        if not self.too_slow:
            self._primed = (shown, spans)

    def highlight(
        self, lines: Sequence[str], first: int, *, exact: bool = True
    ) -> tuple[list[list[Span]], bool]:
        """Spans for each of ``lines`` (which begin at line ``first``).

        Returns the spans and whether they are exact (read from the whole
        text's tree). ``exact=False`` never uses that tree: the window is
        parsed on its own, as for a paged file.
        """
        if self.too_slow:
            return [[] for _ in lines], True
        primed = self._primed
        if primed is not None and first == 0 and self._tree is None:
            shown, spans = primed
            if len(lines) <= len(shown) and shown[: len(lines)] == list(lines):
                return spans[: len(lines)], False
        budget = highlight.WINDOW_BUDGET_S  # pygments' own: one place sets both
        started = time.perf_counter()
        found = self._window(lines, first, exact=exact)
        if time.perf_counter() - started > budget:
            # One slow window may be the collector's pause or a busy machine
            # (60 ms seen for a full collection): only twice running is a
            # grammar too slow for the screen.
            started = time.perf_counter()
            found = self._window(lines, first, exact=exact)
            if time.perf_counter() - started > budget:
                self.too_slow = True
                if self.on_too_slow is not None:
                    self.on_too_slow()
                return [[] for _ in lines], True
        return found

    def _window(
        self, lines: Sequence[str], first: int, *, exact: bool
    ) -> tuple[list[list[Span]], bool]:
        if exact and self._tree is not None:
            return self._query(self._tree, self._nested, lines, first), True
        from tree_sitter import Parser

        data = "\n".join(_plain_lines(lines)).encode("utf-8", "surrogatepass")
        tree = Parser(self.grammar.language).parse(data)
        nested = _nested(self.grammar, tree, data, lambda: False) or Nested()
        spans = self._query(tree, nested, lines, 0)
        return spans, self._tree is None and not exact

    def _query(
        self, tree: Tree, nested: Nested, lines: Sequence[str], first: int
    ) -> list[list[Span]]:
        """Spans of ``lines``, rows ``first`` on in ``tree`` and the trees of
        the text it hands to other grammars."""
        return _highlighted(self.grammar, tree, nested, lines, first)


def _highlighted(
    grammar: Grammar, tree: Tree, nested: Nested, lines: Sequence[str], first: int
) -> list[list[Span]]:
    """Spans of ``lines``, rows ``first`` on in ``tree``, with those of the
    text ``grammar`` hands to others spliced in."""
    found = _spans(grammar, tree, lines, first)
    for inner, inner_tree, deeper, low, high in nested.overlapping(first, len(lines)):
        shown = lines[low - first : high - first + 1]
        spans = _highlighted(inner, inner_tree, deeper, shown, low)
        found[low - first : high - first + 1] = spliced(
            found[low - first : high - first + 1], spans, inner_tree, shown, low
        )
    return found


def _spans(
    grammar: Grammar, tree: Tree, lines: Sequence[str], first: int
) -> list[list[Span]]:
    """Spans of ``lines``, rows ``first`` on in ``tree``, read by ``grammar``."""
    from tree_sitter import QueryCursor

    count = len(lines)
    cursor = QueryCursor(grammar.query)
    cursor.set_point_range((first, 0), (first + count, 0))
    # A query's cost grows with the square of the tree's depth: 2,000
    # nested YAML lists took 105 ms on the GUI thread. Real code nests far
    # less; what lies deeper stays plain, as an overlong line does.
    cursor.set_max_start_depth(MAX_QUERY_DEPTH)
    rows: list[list[tuple[int, int, int, _TokenType]]] = [[] for _ in lines]
    widths = [-1] * count
    tokens = grammar.tokens
    for pattern, captures in cursor.matches(tree.root_node):
        for capture, nodes in captures.items():
            token = tokens.get(capture)
            if token is None:
                continue
            for node in nodes:
                _place(node, pattern, token, first, rows, lines, widths)
    rest, refine = grammar.rest, grammar.refine
    if grammar.opaque:
        rows = [without_inside(row, grammar.opaque) for row in rows]
    found = [
        _line_spans(row, line, rest) if len(line) <= MAX_HIGHLIGHT_CHARS else []
        for row, line in zip(rows, lines, strict=True)
    ]
    for rule in refine:
        found = [
            _refined(spans, line, *rule)
            for spans, line in zip(found, lines, strict=True)
        ]
    line_rule = grammar.spec.line_rule
    if line_rule is not None:
        found = [
            line_rule(spans, line) for spans, line in zip(found, lines, strict=True)
        ]
    return found


def _place(
    node: Node,
    pattern: int,
    token: _TokenType,
    first: int,
    rows: list[list[tuple[int, int, int, _TokenType]]],
    lines: Sequence[str],
    widths: list[int],
) -> None:
    """Add ``node``'s capture to each window row it covers, in bytes of the row."""
    start_row, start_column = node.start_point
    end_row, end_column = node.end_point
    count = len(rows)
    if start_row == end_row:
        index = start_row - first
        if 0 <= index < count and end_column > start_column:
            rows[index].append((start_column, end_column, pattern, token))
        return
    for row in range(max(start_row, first), min(end_row, first + count - 1) + 1):
        index = row - first
        width = widths[index]
        if width < 0:
            width = widths[index] = len(lines[index].encode("utf-8", "surrogatepass"))
        begin = start_column if row == start_row else 0
        end = end_column if row == end_row else width
        if end > begin:
            rows[index].append((begin, end, pattern, token))


def _line_spans(
    row: list[tuple[int, int, int, _TokenType]], line: str, rest: _TokenType | None
) -> list[Span]:
    """One line's captures (byte ranges) as non-overlapping spans in characters."""
    row.sort(key=_outer_first)
    pieces: list[tuple[int, int, _TokenType]] = []
    stack: list[tuple[int, _TokenType]] = []
    position = 0
    last: tuple[int, int] | None = None
    for begin, end, _pattern, token in row:
        if (begin, end) == last:
            continue  # the same node again: the earlier pattern won
        last = (begin, end)
        while stack and stack[-1][0] <= begin:
            closed, outer = stack.pop()
            if position < closed:
                pieces.append((position, closed, outer))
                position = closed
        if begin < position:
            # Overlaps what an earlier capture covered without lying in it
            # (captures of nodes never do that): keep the earlier one.
            continue
        if stack and position < begin:
            pieces.append((position, begin, stack[-1][1]))
        position = begin
        stack.append((end, token))
    while stack:
        closed, outer = stack.pop()
        if position < closed:
            pieces.append((position, closed, outer))
            position = closed
    ascii_line = line.isascii()
    encoded = b"" if ascii_line else line.encode("utf-8", "surrogatepass")
    spans: list[Span] = []
    covered = 0
    text_token = Token.Text
    for begin, end, token in pieces:
        if rest is not None and covered < begin:
            _add_rest(spans, line, encoded, covered, begin, rest)
        covered = end
        if token is text_token:
            continue
        if ascii_line:
            spans.append(Span(begin, end - begin, token))
        else:
            start = len(encoded[:begin].decode("utf-8", "surrogatepass"))
            length = len(encoded[begin:end].decode("utf-8", "surrogatepass"))
            spans.append(Span(start, length, token))
    if rest is not None:
        width = len(line) if ascii_line else len(encoded)
        if covered < width:
            _add_rest(spans, line, encoded, covered, width, rest)
    return spans


def _refined(
    spans: list[Span],
    line: str,
    outer: _TokenType,
    pattern: re.Pattern[str],
    inner: _TokenType,
) -> list[Span]:
    """``spans`` with ``pattern``'s matches in spans of ``outer`` made ``inner``."""
    out: list[Span] = []
    for span in spans:
        if span.token is not outer:
            out.append(span)
            continue
        start, end = span.start, span.start + span.length
        position = start
        for match in pattern.finditer(line, start, end):
            if match.end() == match.start():
                continue
            if match.start() > position:
                out.append(Span(position, match.start() - position, outer))
            out.append(Span(match.start(), match.end() - match.start(), inner))
            position = match.end()
        if position < end:
            out.append(Span(position, end - position, outer))
    return out


def _outer_first(item: tuple[int, int, int, Any]) -> tuple[int, int, int]:
    return item[0], -item[1], item[2]


def _add_rest(
    spans: list[Span],
    line: str,
    encoded: bytes,
    begin: int,
    end: int,
    rest: _TokenType,
) -> None:
    """The ``rest`` token over a gap between captures, without its edge blanks."""
    if encoded:
        start = len(encoded[:begin].decode("utf-8", "surrogatepass"))
        stop = start + len(encoded[begin:end].decode("utf-8", "surrogatepass"))
    else:
        start, stop = begin, end
    gap = line[start:stop]
    stripped = gap.strip()
    if stripped:
        lead = len(gap) - len(gap.lstrip())
        spans.append(Span(start + lead, len(stripped), rest))
