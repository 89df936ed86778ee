"""What the code previewer's background work hands back to the GUI thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.trust.safeio import VerifiedFile
from app.formats.encoding import TextEncoding
from app.formats.line_index import LONG_LINE_CHARS
from app.formats.text_pages import Page, PagedText

if TYPE_CHECKING:
    from app.formats.line_index import LineIndex
    from previewers.highlight import Highlighter


PRIMED_LINES = 200
"""How many first lines are lexed with the first page: more than a window shows."""


@dataclass(frozen=True)
class FirstPage:
    """The first page of a file and what the view needs to know about it.

    ``highlighter`` is the file's highlighter (a tree-sitter grammar or a
    pygments lexer), made here because loading one compiles its rules (a
    quarter second for some lexers), with the first window done already;
    ``language`` is its language's name. ``whole`` says the
    page is the whole file and has no line too long for a text document,
    which would lay out the whole line; otherwise the paged view shows it.
    """

    page: Page
    encoding: TextEncoding
    size: int
    highlighter: Highlighter | None = None
    whole: bool = False
    language: str = "Plain text"


@dataclass(frozen=True)
class IndexOutcome:
    index: LineIndex | None
    error: str
    generation: int = 0


@dataclass(frozen=True)
class SearchOutcome:
    needle: str
    found: tuple[int, int] | None
    error: str


@dataclass(frozen=True)
class CountOutcome:
    needle: str
    count: int | None
    error: str


class Progress:
    """Written by one worker, read by a GUI timer; a float store is atomic."""

    def __init__(self) -> None:
        self.share = 0.0

    def update(self, done: int, total: int) -> None:
        self.share = done / total if total else 1.0


def highlighter_for_name(name: str) -> Highlighter | None:
    """A highlighter for ``name``: a tree-sitter grammar where one is bundled,
    else a pygments lexer, else ``None`` (plain text). Call it on a worker:
    it imports the grammar or the lexer and compiles its rules."""
    from previewers.highlight import WindowHighlighter, lexer_for_name
    from previewers.text.syntax_tree import (
        TreeHighlighter,
        grammar_for_name,
        load_grammar,
    )

    spec = grammar_for_name(name)
    if spec is not None:
        try:
            return TreeHighlighter(load_grammar(spec))
        except ImportError:
            pass  # an install without that grammar's wheel: pygments reads it
    lexer = lexer_for_name(name)
    return WindowHighlighter(lexer) if lexer is not None else None


def read_first_page(
    file: VerifiedFile, path: str, name: str = "", codec: str | None = None
) -> FirstPage:
    """The first page, in the guessed encoding or in ``codec`` if one is chosen."""
    from previewers.highlight import load_styles
    from previewers.text.paged_view import display_line, split_like_index
    from previewers.text.view import normalise_text

    paged = PagedText(file, path=path, codec=codec)
    page = paged.first_page()
    whole = page.is_last and not any(
        len(line) > LONG_LINE_CHARS for line in page.text.splitlines()
    )
    highlighter = highlighter_for_name(name) if name else None
    language = "Plain text"
    if highlighter is not None:
        language = highlighter.name
        load_styles()  # its colours are asked for on the GUI thread next
        if whole:
            lines = normalise_text(page.text).split("\n", PRIMED_LINES)
        else:
            lines = [display_line(line) for line in split_like_index(page.text)]
        highlighter.prime(lines[:PRIMED_LINES])
    return FirstPage(
        page, paged.encoding, paged.size, highlighter, whole, language=language
    )
