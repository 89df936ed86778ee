"""File names as people should see them: no control hides or reorders letters.

A name like ``invoice\u202efdp.sh`` is drawn as "invoicehs.pdf": the
right-to-left override turns the rest around. Everywhere a name is shown, its
bidi controls, other invisible format characters and control characters are
replaced by a visible ``<U+XXXX>``, so the letters appear in their real order
and the card can say the name hides something.
"""

from __future__ import annotations

import re
import unicodedata

# Bidi embedding, override, isolate and mark characters, and the other
# zero-width characters that change how a name reads.
_HIDDEN = re.compile(
    "[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u00ad"
    "\u0000-\u001f\u007f-\u009f]"
)


def _is_hidden(char: str) -> bool:
    return _HIDDEN.match(char) is not None or unicodedata.category(char) == "Cf"


def display_name(name: str) -> str:
    """``name`` with every hidden or reordering character made visible."""
    if name.isascii() and name.isprintable():
        return name
    return "".join(f"<U+{ord(c):04X}>" if _is_hidden(c) else c for c in name)


def display_text(text: str) -> str:
    """Text that carries names (a tool's output, a caption), shown as ``display_name``.

    Line breaks and tabs stay: they lay the text out and reorder nothing.
    """
    return "\n".join(
        "\t".join(display_name(part) for part in line.split("\t"))
        for line in text.split("\n")
    )


def hides_characters(name: str) -> bool:
    """Whether ``name`` holds characters that hide or reorder what is shown."""
    if name.isascii() and name.isprintable():
        return False
    return any(_is_hidden(char) for char in name)


def plain_file_name(name: str) -> str:
    """``name`` without hidden characters, for a name the user is offered to keep."""
    return "".join(char for char in name if not _is_hidden(char)) or "file"
