"""Byte counts in vector loops, and blocks worked on two threads in order."""

from __future__ import annotations

import os
import threading
import time

import pytest

from app.formats.byte_count import count_byte, in_order


@pytest.mark.parametrize("size", [0, 1, 100, 16 * 1024 - 1, 16 * 1024, 3 << 20])
def test_counts_equal_bytes_count_for_every_value(size):
    data = os.urandom(size)
    assert [count_byte(data, value) for value in range(256)] == [
        data.count(value) for value in range(256)
    ]


@pytest.mark.parametrize(("start", "end"), [(0, 5), (7, 3), (100, None), (3, 10**9)])
def test_a_range_is_counted_like_bytes_count(start, end):
    data = b"a\nb\n\n" * 100
    assert count_byte(data, 10, start, end) == data.count(b"\n", start, end)


def test_a_text_block_is_counted_like_bytes_count():
    data = b'first line\r\nsecond, "quoted"\n\n' * 40_000
    assert count_byte(data, ord("\n")) == data.count(b"\n") == 120_000
    assert count_byte(data, ord('"')) == 80_000


def test_results_come_in_order_from_two_threads():
    seen: set[int] = set()

    def work(item: int) -> int:
        seen.add(threading.get_ident())
        time.sleep(0.002 * (item % 3))  # later items may finish first
        return item * item

    assert list(in_order(work, range(40), threads=2)) == [n * n for n in range(40)]
    assert len(seen) == 2
    assert threading.get_ident() not in seen


def test_closing_early_starts_no_more_work_and_leaves_no_thread():
    started: list[int] = []

    def work(item: int) -> int:
        started.append(item)
        return item

    before = threading.active_count()
    results = in_order(work, range(1_000), threads=2)
    assert next(results) == 0
    results.close()
    assert len(started) <= 8
    assert threading.active_count() == before


def test_an_error_in_the_work_reaches_the_caller():
    def work(item: int) -> int:
        if item == 5:
            raise OSError("read failed")
        return item

    with pytest.raises(OSError, match="read failed"):
        list(in_order(work, range(20), threads=2))
