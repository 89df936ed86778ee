"""Sizes in words: binary units everywhere, with the exact count when asked."""

from __future__ import annotations

from app.core.filetype.sizes import counted, human_size


def test_size_format() -> None:
    assert human_size(1, exact=True) == "1 byte"
    assert human_size(1536, exact=True) == "1.5 KiB (1,536 bytes)"
    assert human_size(3 << 20, exact=True) == "3.0 MiB (3,145,728 bytes)"


def test_cards_status_bars_and_notices_share_binary_units() -> None:
    assert human_size(0) == "0 bytes"
    assert human_size(1023) == "1,023 bytes"
    assert human_size(1536) == "1.5 KiB"  # cards said "1.5 KB" before
    assert human_size(5 << 30) == "5.0 GiB"


def test_counts_agree_with_their_nouns() -> None:
    assert counted(1, "file") == "1 file"
    assert counted(0, "file") == "0 files"
    assert counted(1204, "line") == "1,204 lines"
    assert counted(1, "match", "matches") == "1 match"
    assert counted(2, "match", "matches") == "2 matches"
    assert counted(3, "more output") == "3 more outputs"
