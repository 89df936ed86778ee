"""Row heights of the chat list with two-level prefix sums, free of Qt.

QListView lays every row out again whenever one height changes; with 60,000
rows that is the whole cost of a long chat. Here a height change re-sums one
block of rows and the block offsets, and finding the row at a y is two
bisections.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import accumulate

BLOCK = 256  # rows per prefix-sum block


class RowHeights:
    """Heights in pixels, which are exact (measured) and which estimated.

    ``heights`` and ``exact`` are read directly by paint loops; every change
    goes through the methods so the sums stay right.
    """

    def __init__(self) -> None:
        self.heights = array("i")
        self.exact = bytearray()
        self._block_sums = array("q")
        self._block_offsets = array("q", [0])
        self._dirty_blocks: set[int] = set()
        self._dirty = False  # rows were inserted or removed: re-sum every block

    def __len__(self) -> int:
        return len(self.heights)

    def reset(self, heights: array[int]) -> None:
        """Start over with ``heights``, all of them estimates."""
        self.heights = heights
        self.exact = bytearray(len(heights))
        self._dirty = True

    def insert(self, start: int, heights: array[int]) -> None:
        self.heights[start:start] = heights
        self.exact[start:start] = bytes(len(heights))
        self._dirty = True

    def remove(self, start: int, end: int) -> None:
        """Forget rows ``start`` to ``end``, both included."""
        del self.heights[start : end + 1]
        del self.exact[start : end + 1]
        self._dirty = True

    def forget_exact(self, row: int | None = None) -> None:
        """Mark one row, or every row, as needing a new measurement."""
        if row is None:
            self.exact = bytearray(len(self.heights))
        elif 0 <= row < len(self.exact):
            self.exact[row] = 0

    def set_exact(self, row: int, height: int) -> int:
        """Record a measured height; returns how much the row grew."""
        self.exact[row] = 1
        grown = height - self.heights[row]
        if grown:
            self.heights[row] = height
            self._dirty_blocks.add(row // BLOCK)
        return grown

    def top(self, row: int) -> int:
        self._sync()
        block = row // BLOCK
        return self._block_offsets[block] + sum(self.heights[block * BLOCK : row])

    def total(self) -> int:
        self._sync()
        return self._block_offsets[-1]

    def row_at(self, y: int) -> int:
        """The row covering ``y`` (clamped to the first or last row)."""
        self._sync()
        rows = len(self.heights)
        if rows == 0:
            return 0
        blocks = len(self._block_sums)
        block = max(0, min(blocks - 1, bisect_right(self._block_offsets, y) - 1))
        start = block * BLOCK
        end = min(rows, start + BLOCK)
        tops = list(
            accumulate(self.heights[start:end], initial=self._block_offsets[block])
        )
        return start + max(0, min(end - start - 1, bisect_right(tops, y) - 1))

    def _sync(self) -> None:
        heights = self.heights
        if self._dirty:
            self._block_sums = array(
                "q",
                (sum(heights[i : i + BLOCK]) for i in range(0, len(heights), BLOCK)),
            )
            self._dirty = False
            self._dirty_blocks.clear()
        elif self._dirty_blocks:
            for block in self._dirty_blocks:
                start = block * BLOCK
                self._block_sums[block] = sum(heights[start : start + BLOCK])
            self._dirty_blocks.clear()
        else:
            return
        self._block_offsets = array("q", accumulate(self._block_sums, initial=0))
