"""Counting one byte value through a whole file, in vector C loops.

On Debian's CPython 3.11 ``bytes.count`` steps through text at about 0.5 GB/s
(about 2 s for a 1 GiB log). stringzilla counts with vector instructions: a
1 MiB block's line feeds in about 0.1 ms, some 10 GB/s, as fast as ``wc -l``.
Its call holds the interpreter lock, but only for that 0.1 ms; the 1 MiB reads
around it release the lock, so two threads keep the disk cache and the counter
busy at once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import stringzilla

_AHEAD = 4
"""Blocks handed to the threads ahead of the one being consumed: bounds memory."""
_SINGLE = tuple(bytes((value,)) for value in range(256))

T = TypeVar("T")


def count_byte(data: bytes, value: int, start: int = 0, end: int | None = None) -> int:
    """How many times the byte ``value`` occurs in ``data[start:end]``."""
    end = len(data) if end is None else min(end, len(data))
    if end <= start:
        return 0
    return int(stringzilla.count(data, _SINGLE[value], start, end))


def in_order(
    work: Callable[[int], T], items: Iterable[int], threads: int
) -> Generator[T, None, None]:
    """``work(item)`` for each item, yielded in the items' order.

    With more than one thread, up to ``_AHEAD`` items are worked on ahead of
    the one yielded. Closing the iterator early (the caller cancelled) drops
    the items not yet started and waits for the ones running, so no thread
    outlives the pass.
    """
    if threads <= 1:
        yield from map(work, items)
        return
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="count") as pool:
        pending: deque[Future[T]] = deque()
        try:
            for item in items:
                pending.append(pool.submit(work, item))
                if len(pending) >= _AHEAD:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
