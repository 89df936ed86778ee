"""Header detection: text names over typed columns, whatever the sniffer says."""

from __future__ import annotations

import csv

import pytest

from app.formats.csv_header import plainly_header, typed
from app.formats.csv_index import sniff_format

SALES = "id,date,region,product,units,price,note\n" + "".join(
    f"{n},2024-03-{n:02d},North,Widget,{n * 3},{n}.50,\n" for n in range(1, 9)
)


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(text.splitlines()))


@pytest.mark.parametrize(
    "cell", ["12", "-3.5", "1,234.50", "12%", "2024-01-31", "2024-01-31T10:00:00Z"]
)
def test_numbers_and_dates_are_typed(cell):
    assert typed(cell)


@pytest.mark.parametrize("cell", ["", "  ", "North", "S-10400", "id", "v1.2 beta"])
def test_names_and_codes_are_not_typed(cell):
    assert not typed(cell)


def test_text_over_typed_columns_with_an_empty_last_column_is_a_header():
    assert plainly_header(rows(SALES))
    assert sniff_format(SALES).has_header


def test_a_mostly_empty_column_counts_by_the_cells_it_has():
    text = "code,qty,note\nabcd,1,\nefgh,2,\nijkl,3,rush\n"
    assert not csv.Sniffer().has_header(text)  # the length score outvotes qty
    assert sniff_format(text).has_header


@pytest.mark.parametrize(
    "text",
    [
        "alice,30\nbob,41\ncarol,29\n",  # a number in the first row
        "north,south\neast,west\nnorth,west\n",  # no typed column below
        "a,a\n1,2\n3,4\n",  # a name twice
        "2024-01-01,open\n2024-01-02,closed\n",  # a date in the first row
    ],
)
def test_rows_that_are_not_plainly_a_header(text):
    assert not plainly_header(rows(text))


def test_a_single_row_is_never_a_header():
    assert not plainly_header(rows("id,name\n"))
