"""A page's source as text: at most 2 MiB decoded, never splitting a character."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from app.core.filetype.sizes import human_size
from app.core.trust.safeio import VerifiedFile
from app.formats.encoding import detect_encoding

MIB = 1 << 20
TEXT_LIMIT = 2 * MIB
"""Text up to this size loads whole; beyond it only this much is shown."""


@dataclass(frozen=True)
class TextLoadResult:
    """Decoded text and what the user should know about how it was decoded."""

    text: str
    encoding: str
    notices: tuple[str, ...]
    truncated: bool
    size: int


def load_text(file: VerifiedFile, limit: int = TEXT_LIMIT) -> TextLoadResult:
    """Read and decode at most ``limit`` bytes, never splitting a character.

    Reads go through the descriptor. A byte order mark (UTF-8/16/32) picks the
    encoding and is dropped; otherwise UTF-8, with invalid bytes replaced.
    """
    # A few bytes past the limit say whether there is more to the file.
    data = file.read(limit + 4, 0)
    size = max(file.current_identity().size, len(data))
    truncated = len(data) > limit
    found = detect_encoding(data)
    encoding, skip = found.codec, len(found.bom)
    body = data[skip:limit] if truncated else data[skip:]
    # final=False on a cut file: a character split by the cut is left out whole.
    final = not truncated
    notices: list[str] = []
    try:
        text = codecs.getincrementaldecoder(encoding)("strict").decode(body, final)
    except UnicodeDecodeError:
        text = codecs.getincrementaldecoder(encoding)("replace").decode(body, final)
        notices.append(
            f"Some bytes are not valid {encoding.upper()} and are shown as \ufffd."
        )
    if truncated:
        notices.append(f"Showing the first {human_size(limit)} of {human_size(size)}.")
    return TextLoadResult(text, encoding, tuple(notices), truncated, size)
