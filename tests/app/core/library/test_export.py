"""A conversation's deliverables exported with a Markdown index."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.library.export import export_conversation, markdown_text
from app.core.store import Store
from app.core.trust.policy import Policy

from ..store.library_seed import agent_turn, quiet_policy, workspace_with_files


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "data") as opened:
        yield opened


def test_the_export_holds_each_newest_file_and_an_index_of_them(
    store: Store, tmp_path: Path
) -> None:
    ws = workspace_with_files(tmp_path / "ws", "report.md", "chart.pdf", "gone.csv")
    cid = agent_turn(
        store, ws, tmp_path, ("report.md", "gone.csv"), ("report.md", "chart.pdf")
    )
    store.rename_conversation(cid, "Q3 [sales] / *draft*")
    (ws / "gone.csv").unlink()
    target = tmp_path / "out"
    target.mkdir()

    def policy(_workspace: str) -> Policy:
        return quiet_policy(ws, tmp_path)

    export = export_conversation(store, cid, str(target), policy)

    assert os.path.dirname(export.folder) == str(target)
    assert os.path.basename(export.folder) == "Q3 [sales] _ *draft* - deliverables"
    assert sorted(os.listdir(export.folder)) == ["chart.pdf", "index.md", "report.md"]
    index = Path(export.index).read_text()
    assert index.startswith("# Deliverables of Q3 \\[sales\\] / \\*draft\\*\n")
    assert (
        "| [report.md](<report.md>) | About report.md | Deliverables agent |" in index
    )
    assert "| [chart.pdf](<chart.pdf>) | About chart.pdf |" in index
    assert "## Not exported\n\n- gone.csv: " in index
    assert "2 of 3 files" in index


def test_untrusted_text_reads_as_written_in_the_index() -> None:
    hostile = "[click](https://evil.example) <img src=x>\n# heading | cell"

    escaped = markdown_text(hostile)

    assert "\n" not in escaped
    assert escaped == (
        "\\[click\\]\\(https://evil.example\\) \\<img src=x\\> \\# heading \\| cell"
    )


def test_a_fork_exports_what_it_shows_of_its_parent_and_nothing_after(
    store: Store, tmp_path: Path
) -> None:
    ws = workspace_with_files(tmp_path / "ws", "before.md", "after.md")
    cid = agent_turn(store, ws, tmp_path, ("before.md",), ("after.md",))
    fork = store.fork(cid, 4)  # the first turn only
    target = tmp_path / "out"
    target.mkdir()

    def policy(_workspace: str) -> Policy:
        return quiet_policy(ws, tmp_path)

    export = export_conversation(store, fork.id, str(target), policy)

    assert sorted(os.listdir(export.folder)) == ["before.md", "index.md"]
