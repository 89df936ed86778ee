"""Spans of text one grammar hands to another, spliced into the host's spans."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from previewers.highlight import Span

if TYPE_CHECKING:
    from tree_sitter import Tree


def spliced(
    host: list[list[Span]],
    inner: list[list[Span]],
    tree: Tree,
    lines: Sequence[str],
    first: int,
) -> list[list[Span]]:
    """``host``'s spans, with ``inner``'s over them within the ranges
    ``tree`` was parsed from (``lines`` begin at row ``first``)."""
    count = len(lines)
    inside: list[list[tuple[int, int]]] = [[] for _ in lines]
    for found in tree.included_ranges:
        start_row, start_column = found.start_point
        end_row, end_column = found.end_point
        for row in range(max(start_row, first), min(end_row, first + count - 1) + 1):
            line = lines[row - first]
            begin = _column(line, start_column) if row == start_row else 0
            end = _column(line, end_column) if row == end_row else len(line)
            if end > begin:
                inside[row - first].append((begin, end))
    return [
        _merged(outer, nested, parts) if parts else outer
        for outer, nested, parts in zip(host, inner, inside, strict=True)
    ]


def _column(line: str, offset: int) -> int:
    """The character column of byte ``offset`` in ``line``."""
    if line.isascii():
        return min(offset, len(line))
    encoded = line.encode("utf-8", "surrogatepass")[:offset]
    return len(encoded.decode("utf-8", "surrogatepass"))


def _merged(
    outer: list[Span], nested: list[Span], parts: list[tuple[int, int]]
) -> list[Span]:
    """``nested`` within ``parts``, over ``outer``: where the nested grammar
    marks nothing the host's colour stays (a quote's emphasis around its
    inline text), in column order."""
    inside = []
    for begin, end in parts:
        for span in nested:
            start = max(span.start, begin)
            stop = min(span.start + span.length, end)
            if stop > start:
                inside.append(Span(start, stop - start, span.token))
    covered = [(span.start, span.start + span.length) for span in inside]
    spans = [piece for span in outer for piece in _outside(span, covered)]
    spans.extend(inside)
    spans.sort(key=lambda span: span.start)
    return spans


def _outside(span: Span, parts: list[tuple[int, int]]) -> list[Span]:
    """The pieces of ``span`` that lie in none of ``parts``."""
    pieces = [(span.start, span.start + span.length)]
    for begin, end in parts:
        pieces = [
            kept
            for start, stop in pieces
            for kept in ((start, min(stop, begin)), (max(start, end), stop))
            if kept[1] > kept[0]
        ]
    return [Span(start, stop - start, span.token) for start, stop in pieces]
