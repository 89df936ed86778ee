"""What the code previewer's background work hands back to the GUI thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.safeio import VerifiedFile
from app.formats.encoding import TextEncoding
from app.formats.text_pages import Page, PagedText

if TYPE_CHECKING:
    from app.formats.line_index import LineIndex


@dataclass(frozen=True)
class FirstPage:
    """The first page of a file and what the view needs to know about it."""

    page: Page
    encoding: TextEncoding
    size: int


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


class Progress:
    """Written by one worker, read by a GUI timer; a float store is atomic."""

    def __init__(self) -> None:
        self.share = 0.0

    def update(self, done: int, total: int) -> None:
        self.share = done / total if total else 1.0


def read_first_page(
    file: VerifiedFile, path: str, codec: str | None = None
) -> FirstPage:
    """The first page, in the guessed encoding or in ``codec`` if one is chosen."""
    paged = PagedText(file, path=path, codec=codec)
    page = paged.first_page()
    return FirstPage(page, paged.encoding, paged.size)
