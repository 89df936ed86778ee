"""Find, rfind, count and ASCII folding agree with ``bytes`` on every input."""

from __future__ import annotations

import random

import pytest

from app.formats.byte_find import Folder, count, find, rfind

# ASCII letters; letters that do not fold (Kelvin, e acute, long s, dotted I); ends.
ALPHABET = b"aAbBkKsS\n\r" + "\u212a\u00e9\u017f\u0130".encode()


def test_every_operation_matches_bytes_on_random_input():
    rng = random.Random(7)
    folder = Folder()
    for _ in range(4_000):
        data = bytes(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 200)))
        needle = bytes(
            rng.choice(b"aAbkKs\xe2\xc3") for _ in range(rng.randrange(1, 4))
        )
        start, end = rng.randrange(0, len(data) + 3), rng.randrange(0, len(data) + 6)
        low = folder.fold(data)
        assert bytes(low) == data.lower()
        assert find(low, needle, start, end) == data.lower().find(needle, start, end)
        assert rfind(low, needle, start, end) == data.lower().rfind(needle, start, end)
        assert count(data, needle, start, end) == data.count(needle, start, end)


def test_folding_is_ascii_only_so_the_kelvin_sign_is_not_k():
    kelvin = "273 \u212a, 20 \u00c9T\u00c9".encode()
    low = Folder().fold(kelvin)
    assert find(low, b"k") == -1
    assert bytes(low) == "273 \u212a, 20 \u00c9t\u00c9".encode()


def test_a_reused_buffer_holds_only_the_latest_block():
    folder = Folder()
    assert bytes(folder.fold(b"LONG BLOCK WITH MATCH")) == b"long block with match"
    short = folder.fold(b"SHORT")
    assert bytes(short) == b"short"
    assert find(short, b"match") == -1  # the old block's tail is not searched
    assert bytes(folder.fold(b"")) == b""


@pytest.mark.parametrize("size", [1 << 20, (1 << 20) + 17])
def test_a_block_folds_and_counts_like_bytes(size):
    data = (b"Item42 ITEM42 item42\r\n" * (size // 22 + 1))[:size]
    low = Folder().fold(data)
    assert count(low, b"item42") == data.lower().count(b"item42")
    assert rfind(low, b"item42") == data.lower().rfind(b"item42")
