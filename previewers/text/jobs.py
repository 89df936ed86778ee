"""What the code previewer's background work hands back to the GUI thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.core.safeio import VerifiedFile
from app.formats.encoding import TextEncoding
from app.formats.text_pages import Page, PagedText

if TYPE_CHECKING:
    from app.formats.line_index import LineIndex


@dataclass(frozen=True)
class FirstPage:
    """The first page of a file and what the view needs to know about it.

    ``lexer`` is the pygments lexer for the file's name, made here because
    building one compiles its rules (a quarter second for some languages).
    """

    page: Page
    encoding: TextEncoding
    size: int
    lexer: Any = None


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


def read_first_page(
    file: VerifiedFile, path: str, name: str = "", codec: str | None = None
) -> FirstPage:
    """The first page, in the guessed encoding or in ``codec`` if one is chosen."""
    from previewers.text.highlight import lexer_for_name, load_styles

    paged = PagedText(file, path=path, codec=codec)
    page = paged.first_page()
    lexer = lexer_for_name(name) if name else None
    if lexer is not None:
        load_styles()  # its colours are asked for on the GUI thread next
    return FirstPage(page, paged.encoding, paged.size, lexer)
