"""Syntax highlighting of the visible lines only, with our own lexer table.

Pygments' ``get_lexer_for_filename`` scans every lexer module on its first call
(about 0.4 s), so the lexer comes from the table below, by file name, and is
imported only when a file needs it; an unknown name means plain text.

Only the lines on screen are lexed. A window cannot simply start in the lexer's
root state: a line inside a docstring or a block comment would be read as code.
The trade-off taken here: ``scan_checkpoints`` lexes the whole (at most 2 MiB)
text once on a worker and records the lexer's state stack every
``CHECKPOINT_LINES`` lines; a window then starts from the nearest checkpoint
before it. Until the scan is done, a window near a known checkpoint starts there,
and a window far from one starts in the root state (possibly wrong for a few
lines) and is redone when the scan arrives. Paged files over 2 MiB never get a
scan: their windows start in the root state, which is right for logs and most
code. Lines over ``MAX_HIGHLIGHT_CHARS`` stay plain and are lexed as empty lines.

Nothing here imports Qt; the view turns ``Span`` token types into formats.
"""

from __future__ import annotations

import bisect
import functools
import importlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, NamedTuple, Protocol

from pygments.lexer import Lexer, RegexLexer  # type: ignore[import-untyped]
from pygments.style import StyleMeta  # type: ignore[import-untyped]
from pygments.token import Token, _TokenType  # type: ignore[import-untyped]

MAX_HIGHLIGHT_CHARS = 20_000
"""Lines longer than this stay plain (lexing them would stall the view)."""
WINDOW_BUDGET_S = 0.05
"""Two windows in a row that take longer to lex turn highlighting off for the
file: the window is lexed on the GUI thread, where a slow lexer would freeze
the view. One alone may be the collector's pause or a busy machine."""
BUDGET_CHECK_TOKENS = 64
"""Within a line, the budget is asked again after this many tokens: one line
of 20,000 characters can hold thousands of tokens."""
SCAN_BUDGET_S = 10.0
"""The whole-text checkpoint scan (on a worker) gives up after this long."""
CHECKPOINT_LINES = 32
# A window this far past the last known checkpoint starts in the root state
# instead: lexing the gap would cost more than a frame.
MAX_GAP_LINES = 400

_L = "pygments.lexers."
# Lower-case file names and suffixes -> "module:Class" under pygments.lexers.
_BY_NAME: dict[str, str] = {
    "makefile": "make:MakefileLexer",
    "gnumakefile": "make:MakefileLexer",
    "dockerfile": "configs:DockerLexer",
    "cmakelists.txt": "make:CMakeLexer",
    "pyproject.toml": "configs:TOMLLexer",
}
_BY_SUFFIX: dict[str, str] = {
    **dict.fromkeys((".py", ".pyi", ".pyw"), "python:PythonLexer"),
    **dict.fromkeys((".js", ".mjs", ".cjs"), "javascript:JavascriptLexer"),
    ".jsx": "jsx:JsxLexer",
    ".ts": "javascript:TypeScriptLexer",
    ".tsx": "jsx:TsxLexer",
    ".css": "css:CssLexer",
    ".scss": "css:ScssLexer",
    **dict.fromkeys((".c", ".h"), "c_cpp:CLexer"),
    **dict.fromkeys((".cc", ".cpp", ".hpp", ".cxx", ".hh"), "c_cpp:CppLexer"),
    ".rs": "rust:RustLexer",
    ".go": "go:GoLexer",
    ".java": "jvm:JavaLexer",
    **dict.fromkeys((".kt", ".kts"), "jvm:KotlinLexer"),
    ".scala": "jvm:ScalaLexer",
    ".clj": "jvm:ClojureLexer",
    ".swift": "objective:SwiftLexer",
    ".m": "objective:ObjectiveCLexer",
    ".rb": "ruby:RubyLexer",
    ".php": "php:PhpLexer",
    ".pl": "perl:PerlLexer",
    ".lua": "scripting:LuaLexer",
    **dict.fromkeys((".sh", ".bash", ".zsh"), "shell:BashLexer"),
    ".fish": "shell:FishShellLexer",
    ".ps1": "shell:PowerShellLexer",
    ".sql": "sql:SqlLexer",
    ".r": "r:SLexer",
    ".jl": "julia:JuliaLexer",
    ".cs": "dotnet:CSharpLexer",
    ".toml": "configs:TOMLLexer",
    **dict.fromkeys((".yaml", ".yml"), "data:YamlLexer"),
    **dict.fromkeys((".json", ".geojson"), "data:JsonLexer"),
    **dict.fromkeys((".xml", ".svg", ".xsl"), "html:XmlLexer"),
    **dict.fromkeys((".html", ".htm", ".xhtml"), "html:HtmlLexer"),
    **dict.fromkeys((".md", ".markdown"), "markup:MarkdownLexer"),
    ".rst": "markup:RstLexer",
    **dict.fromkeys((".ini", ".cfg", ".conf"), "configs:IniLexer"),
    **dict.fromkeys((".diff", ".patch"), "diff:DiffLexer"),
    ".tex": "markup:TexLexer",
    ".hs": "haskell:HaskellLexer",
    ".ml": "ml:OcamlLexer",
    **dict.fromkeys((".ex", ".exs"), "erlang:ElixirLexer"),
    ".erl": "erlang:ErlangLexer",
    ".dart": "javascript:DartLexer",
    ".proto": "dsls:ProtoBufLexer",
    ".graphql": "graphql:GraphQLLexer",
    ".dockerfile": "configs:DockerLexer",
    ".mk": "make:MakefileLexer",
    ".csv": "",  # tables read better plain; the empty entry says so on purpose
    ".tsv": "",
}


def lexer_path(name: str) -> str | None:
    """``module:Class`` of the lexer for a file name, or ``None`` for plain text."""
    pure = PurePath(name)
    lowered = pure.name.lower()
    found = _BY_NAME.get(lowered) or _BY_SUFFIX.get(pure.suffix.lower())
    return found or None


def lexer_for_name(name: str) -> Lexer | None:
    """A fresh lexer for ``name`` (imports one pygments module), or ``None``."""
    found = lexer_path(name)
    if found is None:
        return None
    module, cls = found.split(":")
    lexer_class = getattr(importlib.import_module(_L + module), cls)
    lexer: Lexer = lexer_class(stripnl=False, ensurenl=False, tabsize=0)
    return lexer


class Highlighter(Protocol):
    """What the views ask of a highlighter: pygments' ``WindowHighlighter`` or
    tree-sitter's ``TreeHighlighter`` (``previewers.text.syntax_tree``)."""

    lead_source: Callable[[int, int], Sequence[str] | None] | None
    too_slow: bool
    on_too_slow: Callable[[], None] | None

    @property
    def name(self) -> str: ...

    def highlight(
        self, lines: Sequence[str], first: int, *, exact: bool = True
    ) -> tuple[list[list[Span]], bool]: ...

    def prime(self, lines: Sequence[str]) -> None: ...

    def scan(self, lines: Sequence[str], cancelled: Callable[[], bool]) -> Any:
        """A pass over the whole text for ``adopt``; run on a worker."""

    def adopt(self, scan: Any) -> None: ...


class Span(NamedTuple):
    """A run of one token type in one line: ``start`` and ``length`` in chars.

    A named tuple: a window makes a thousand or more, and a tuple is built
    several times faster than a frozen dataclass.
    """

    start: int
    length: int
    token: _TokenType


@dataclass(frozen=True)
class TokenLook:
    """How a token type looks in a pygments style: colour as ``#rrggbb`` or ""."""

    color: str
    bold: bool
    italic: bool
    underline: bool


@functools.cache
def style_by_name(style_name: str) -> StyleMeta:
    """A pygments style, imported once (tens of milliseconds the first time).

    The text previewer's first-page job asks for both styles on its worker
    (``load_styles``), so the GUI thread finds them ready.
    """
    module = importlib.import_module("pygments.styles")
    found: StyleMeta = module.get_style_by_name(style_name)
    return found


def load_styles() -> None:
    """Import the light and the dark style now, where this is called."""
    style_by_name(LIGHT_STYLE)
    style_by_name(DARK_STYLE)


class StylePalette:
    """Token looks from one pygments style, cached per token type."""

    def __init__(self, style_name: str) -> None:
        self.style: StyleMeta = style_by_name(style_name)
        self._looks: dict[_TokenType, TokenLook] = {}

    def look(self, token: _TokenType) -> TokenLook:
        look = self._looks.get(token)
        if look is None:
            found = _style_for(self.style, token)
            color = found.get("color") or ""
            look = TokenLook(
                f"#{color}" if color else "",
                bool(found.get("bold")),
                bool(found.get("italic")),
                bool(found.get("underline")),
            )
            self._looks[token] = look
        return look


def _style_for(style: StyleMeta, token: _TokenType) -> dict[str, Any]:
    """The style's entry for ``token``, or for its nearest parent that has one.

    A style knows only the token types that existed when it was defined; types
    lexers make up later (``Token.Literal.Scalar.Plain`` in YAML) are missing
    and ``style_for_token`` raises ``KeyError`` for them.
    """
    while True:
        try:
            found: dict[str, Any] = style.style_for_token(token)
        except KeyError:
            if token.parent is None:
                return {}
            token = token.parent
        else:
            return found


LIGHT_STYLE = "default"
DARK_STYLE = "native"


def style_name_for(dark: bool) -> str:
    """The pygments style that reads on a light or a dark base colour."""
    return DARK_STYLE if dark else LIGHT_STYLE


State = tuple[str, ...]
ROOT: State = ("root",)


def _resumable(lexer: Lexer) -> bool:
    # Only the stock RegexLexer loop keeps its state in ``statestack``.
    method = type(lexer).get_tokens_unprocessed
    return isinstance(lexer, RegexLexer) and (
        method is RegexLexer.get_tokens_unprocessed
    )


class WindowHighlighter:
    """Lexes windows of lines, resuming from recorded lexer states.

    ``checkpoints`` maps a line number to the lexer state at its start. Not thread
    safe: one instance per thread (``scan_checkpoints`` makes its own lexer).
    """

    def __init__(
        self,
        lexer: Lexer,
        lead_source: Callable[[int, int], Sequence[str] | None] | None = None,
    ) -> None:
        self.lexer = lexer
        # Where the lines between a checkpoint and a window come from.
        self.lead_source = lead_source
        self.resumable = _resumable(lexer)
        self._lines: list[int] = [0]
        self._states: list[State] = [ROOT]
        self._long: dict[int, int] = {}
        self._long_starts: list[int] = []
        self.too_slow = False
        """Two windows running took over ``WINDOW_BUDGET_S``: all are plain now."""
        self._slow_before = False
        """The last window lexed took over ``WINDOW_BUDGET_S``."""
        self._primed: tuple[list[str], list[list[Span]], bool] | None = None
        self.on_too_slow: Callable[[], None] | None = None
        """Called once, on the thread that highlights, when ``too_slow`` is set."""

    @property
    def name(self) -> str:
        """The language's name, as pygments gives it."""
        return str(self.lexer.name)

    def scan(self, lines: Sequence[str], cancelled: Callable[[], bool]) -> LexPass:
        """Checkpoints of the whole text, with a lexer of its own (a worker's)."""
        return scan_with(fresh_lexer(self.lexer), lines, cancelled)

    def add_checkpoints(
        self,
        found: Sequence[tuple[int, State]],
        long_tokens: Sequence[tuple[int, int]] = (),
    ) -> None:
        """Adopt checkpoints and long tokens from a pass over the text."""
        merged = dict(zip(self._lines, self._states, strict=True))
        merged.update(found)
        self._lines = sorted(merged)
        self._states = [merged[line] for line in self._lines]
        if long_tokens:
            self._long.update(long_tokens)
            self._long_starts = sorted(self._long)

    def adopt(self, scan: LexPass) -> None:
        self.add_checkpoints(scan.checkpoints, scan.long_tokens)

    def _long_token_start(self, line: int) -> int | None:
        """The first line of a long token that covers ``line``, if any."""
        slot = bisect.bisect_right(self._long_starts, line - 1) - 1
        if slot < 0:
            return None
        first = self._long_starts[slot]
        return first if self._long[first] >= line else None

    def checkpoint_before(self, line: int) -> tuple[int, State]:
        if not self.resumable:
            return line, ROOT
        slot = bisect.bisect_right(self._lines, line) - 1
        return self._lines[slot], self._states[slot]

    def prime(self, lines: Sequence[str]) -> None:
        """Lex the file's first lines now, on a worker, for the view's first call.

        A view's first window is lexed while it is shown, on the GUI thread;
        primed, that call is a lookup (and a lexer too slow for the file is
        found out here, not there).
        """
        shown = list(lines)
        spans, exact = self.highlight(shown, 0)
        if self._slow_before:  # once more: twice running decides, as on screen
            spans, exact = self.highlight(shown, 0)
        if not self.too_slow:
            self._primed = (shown, spans, exact)

    def _primed_spans(
        self, lines: Sequence[str], first: int
    ) -> tuple[list[list[Span]], bool] | None:
        primed = self._primed
        if primed is None or first != 0:
            return None
        shown, spans, exact = primed
        count = len(lines)
        if count > len(shown) or shown[:count] != list(lines):
            return None
        return spans[:count], exact

    def highlight(
        self, lines: Sequence[str], first: int, *, exact: bool = True
    ) -> tuple[list[list[Span]], bool]:
        """Spans for each of ``lines`` (which begin at line ``first``).

        Returns the spans and whether they are exact (lexed from a true
        checkpoint). ``exact=False`` never looks back: the window starts in
        the root state, as for a paged file without a scan. Once a window has
        taken over ``WINDOW_BUDGET_S`` twice running, every window comes back
        without spans; after the first, that window alone does, not exact, so
        the view asks for it again.
        """
        if self.too_slow:
            return [[] for _ in lines], True
        primed = self._primed_spans(lines, first)
        if primed is not None:
            return primed
        start, state = (first, ROOT)
        exact_result = not self.resumable
        if exact and self.resumable:
            start, state = self.checkpoint_before(first)
            inside = self._long_token_start(first)
            if inside is not None and inside >= start:
                # Inside a docstring or block comment: lexing it is one match.
                start, state = self.checkpoint_before(inside)
                exact_result = True
            else:
                exact_result = first - start <= MAX_GAP_LINES
            if not exact_result:
                start, state = first, ROOT
        lead: Sequence[str] | None = ()
        if start < first:
            lead = self._lead_lines(first, start)
        if lead is None:
            start, state, lead, exact_result = first, ROOT, (), False
        # Every line start becomes a checkpoint: scrolling on by a few lines
        # then lexes only the new ones.
        window = [*lead, *lines]
        deadline = time.perf_counter() + WINDOW_BUDGET_S
        found = _lex(
            self.lexer,
            window,
            state,
            start,
            len(lead),
            lambda: time.perf_counter() > deadline,
            every=1,
        )
        if time.perf_counter() > deadline:
            if self._slow_before:
                self._give_up()
                return [[] for _ in lines], True
            self._slow_before = True
            return [[] for _ in lines], False
        self._slow_before = False
        if exact_result:
            self.add_checkpoints(found.checkpoints, found.long_tokens)
        return found.spans, exact_result

    def _give_up(self) -> None:
        self.too_slow = True
        if self.on_too_slow is not None:
            self.on_too_slow()

    def _lead_lines(self, first: int, start: int) -> Sequence[str] | None:
        if self.lead_source is None:
            return None
        return self.lead_source(start, first - start)


@dataclass(frozen=True)
class LexPass:
    """What one lexing pass found: spans per line, checkpoints, long tokens.

    ``long_tokens`` are (first line, last line) of tokens that run over line
    ends, such as docstrings; a window that starts inside one restarts from
    its first line, which has a checkpoint.
    """

    spans: list[list[Span]]
    checkpoints: list[tuple[int, State]]
    long_tokens: list[tuple[int, int]]
    too_slow: bool = False


def _lex(
    lexer: Lexer,
    lines: Sequence[str],
    state: State,
    first_line: int,
    skip: int,
    cancelled: Callable[[], bool] | None = None,
    every: int = CHECKPOINT_LINES,
) -> LexPass:
    """Lex ``lines`` from ``state``; spans of all but the first ``skip`` lines.

    Checkpoints are taken every ``every`` lines at lines where a token begins
    exactly, and at the line where a long token begins. ``cancelled`` is asked
    at each line start and every ``BUDGET_CHECK_TOKENS`` tokens within a line.
    """
    plain = [line if len(line) <= MAX_HIGHLIGHT_CHARS else "" for line in lines]
    starts: list[int] = []
    position = 0
    for line in plain:
        starts.append(position)
        position += len(line) + 1
    text = "\n".join(plain) + "\n"
    last_end = len(text) - 1
    found = LexPass([[] for _ in range(len(lines) - skip)], [], [])
    if _resumable(lexer):
        tokens = lexer.get_tokens_unprocessed(text, stack=list(state))
    else:
        # Lexers with their own loop (JSON, for one) take no state: each
        # window is lexed from its first line.
        tokens = lexer.get_tokens_unprocessed(text)
    spans = found.spans
    text_token, space_token = Token.Text, Token.Text.Whitespace
    want = 1  # the next line whose first token has not been seen
    index = 0
    line_state: State | None = state
    since_check = 0
    for offset, token, value in tokens:
        since_check += 1
        if since_check >= BUDGET_CHECK_TOKENS:
            since_check = 0
            if cancelled is not None and cancelled():
                break
        while index + 1 < len(starts) and starts[index + 1] <= offset:
            index += 1
        if index >= want:
            want = index + 1
            line_state = None
            if starts[index] == offset:
                line_state = _current_state(tokens)
                number = first_line + index
                if line_state is not None and number % every == 0:
                    found.checkpoints.append((number, line_state))
            if cancelled is not None and cancelled():
                break
        end = offset + len(value)
        if "\n" in value[:-1] and line_state is not None:
            last = bisect.bisect_right(starts, end - 1) - 1
            if last > index:
                number = first_line + index
                found.long_tokens.append((number, first_line + last))
                if not found.checkpoints or found.checkpoints[-1][0] != number:
                    found.checkpoints.append((number, line_state))
        if token is text_token or token is space_token:
            continue
        if "\n" not in value and index >= skip:
            # Most tokens lie within one line: no split needed.
            spans[index - skip].append(Span(offset - starts[index], len(value), token))
        else:
            _add_span(spans, starts, index, skip, offset, token, value, last_end)
    return found


def _add_span(
    spans: list[list[Span]],
    starts: list[int],
    index: int,
    skip: int,
    offset: int,
    token: _TokenType,
    value: str,
    text_end: int,
) -> None:
    # A token may run over line ends (a docstring): split it per line.
    end = offset + len(value)
    line = index
    while offset < end and line < len(starts):
        # The text ends in one line end more than the lines have.
        line_end = starts[line + 1] - 1 if line + 1 < len(starts) else text_end
        stop = min(end, line_end)
        if stop > offset and line >= skip:
            spans[line - skip].append(Span(offset - starts[line], stop - offset, token))
        line += 1
        offset = max(offset, line_end + 1)


def _current_state(tokens: Any) -> State | None:
    # WORKAROUND(pygments exposes no lexer state): RegexLexer keeps its state
    # stack in a local of the suspended generator, readable through its frame.
    frame = getattr(tokens, "gi_frame", None)
    if frame is None:
        return None
    stack = frame.f_locals.get("statestack")
    if not isinstance(stack, list):
        return None
    return tuple(str(state) for state in stack)


def fresh_lexer(lexer: Lexer) -> Lexer:
    """Another lexer like ``lexer``: a lexer serves one thread at a time."""
    made: Lexer = type(lexer)(stripnl=False, ensurenl=False, tabsize=0)
    return made


def scan_checkpoints(
    name: str, lines: Sequence[str], cancelled: Callable[[], bool]
) -> LexPass:
    """Lex a whole text once (on a worker) for its checkpoints and long tokens.

    Gives up after ``SCAN_BUDGET_S`` (``too_slow``): a lexer that slow would
    also be too slow for the windows shown on screen.
    """
    return scan_with(lexer_for_name(name), lines, cancelled)


def scan_with(
    lexer: Lexer | None, lines: Sequence[str], cancelled: Callable[[], bool]
) -> LexPass:
    """``scan_checkpoints`` with a lexer already made."""
    if lexer is None or not _resumable(lexer):
        return LexPass([], [], [])
    deadline = time.perf_counter() + SCAN_BUDGET_S

    def stop() -> bool:
        return cancelled() or time.perf_counter() > deadline

    found = _lex(lexer, lines, ROOT, 0, len(lines), stop)
    if time.perf_counter() > deadline:
        return LexPass([], [], [], too_slow=True)
    return found
