"""A page's source as text: bounded, and never a split character."""

from __future__ import annotations

import codecs
from pathlib import Path

from app.core.trust.safeio import open_verified
from previewers.web.source_text import MIB, TEXT_LIMIT, load_text


def test_load_text_cuts_a_three_mib_file_at_two_without_splitting_a_character(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big.log"
    # "€" is 3 bytes; one leading byte puts the 2 MiB cut inside a character.
    data = b"a" + "€".encode() * ((3 * MIB) // 3)
    assert 0x80 <= data[TEXT_LIMIT] <= 0xBF  # the cut falls inside a character
    path.write_bytes(data)
    with open_verified(str(path)) as file:
        result = load_text(file)
    text = result.text
    assert "\ufffd" not in text
    assert text == "a" + "€" * ((TEXT_LIMIT - 1) // 3)
    assert len(text.encode()) <= TEXT_LIMIT
    assert result.truncated
    assert result.notices == ("Showing the first 2.0 MiB of 3.0 MiB.",)


def test_load_text_handles_utf16_cut_without_splitting_a_pair(tmp_path: Path) -> None:
    path = tmp_path / "wide.txt"
    path.write_bytes(codecs.BOM_UTF16_LE + "😀".encode("utf-16-le") * 10)
    with open_verified(str(path)) as file:
        result = load_text(file, limit=2 + 4 * 3 + 2)  # cuts inside the 4th pair
    assert result.text == "😀" * 3
    assert result.truncated
