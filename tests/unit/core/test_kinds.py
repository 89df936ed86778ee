"""Kind guesses from file names."""

import pytest

from app.core.kinds import Kind, kind_from_name


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("index.HTML", Kind.HTML),
        ("notes.md", Kind.MARKDOWN),
        ("pipeline.log", Kind.TEXT),
        ("clean_data.py", Kind.CODE),
        ("Makefile", Kind.CODE),
        ("metrics.json", Kind.JSON),
        ("rows.jsonl", Kind.JSON),
        ("sales.csv", Kind.CSV),
        ("sales.tsv", Kind.CSV),
        ("chart.png", Kind.IMAGE),
        ("diagram.svg", Kind.IMAGE),
        ("report.pdf", Kind.PDF),
        ("tone.wav", Kind.AUDIO),
        ("clip.avi", Kind.VIDEO),
        ("handoff.docx", Kind.OTHER),
        ("bundle.zip", Kind.OTHER),
        ("noextension", Kind.OTHER),
    ],
)
def test_kind_from_name(name, kind):
    assert kind_from_name(name) is kind
