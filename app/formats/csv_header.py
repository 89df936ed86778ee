"""Whether a table's first row names its columns: text over typed columns.

``csv.Sniffer.has_header`` guesses a dialect of its own (a date's ``-`` can win
over the comma the table uses) and scores a header cell by its length against
the cells below, so a short code column over same-length codes, or a mostly
empty column, can outvote the columns that say plainly "this is a header".
This module decides from the rows as the table parses them: a first row of
distinct text cells over at least one column whose filled cells are mostly
numbers or dates is a header. When that rule does not say so (no typed
column, or a number among the names, as in ``region,2023,2024``), the
sniffer's guess stands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_DATE = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?"
    r"|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}"
)


def typed(cell: str) -> bool:
    """A number (``1,234.5``, ``-3``, ``12%``) or a date (``2024-01-31``)."""
    value = cell.strip().removesuffix("%").strip()
    if not value:
        return False
    try:
        float(value.replace(",", "").replace("_", ""))
    except ValueError:
        return _DATE.fullmatch(value) is not None
    return True


def plainly_header(rows: Sequence[Sequence[str]]) -> bool:
    """Distinct text names over a column whose filled cells are half typed.

    Empty cells are left out, so a mostly empty column counts by the cells it
    has and an empty one not at all; a first row with a number or a date in
    it, or with a name twice, is not plainly a header.
    """
    if len(rows) < 2 or not rows[0]:
        return False
    first = [cell.strip() for cell in rows[0]]
    if any(typed(cell) for cell in first):
        return False
    names = [cell for cell in first if cell]
    if not names or len(set(names)) != len(names):
        return False
    for column, name in enumerate(first):
        if not name:
            continue
        values = [
            row[column] for row in rows[1:] if column < len(row) and row[column].strip()
        ]
        if values and sum(map(typed, values)) * 2 >= len(values):
            return True
    return False
