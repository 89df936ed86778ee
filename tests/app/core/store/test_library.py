"""The library index, on a store written by the agent, an MCP client and an import."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.core.store import Store
from app.core.store.database import DATABASE_NAME
from app.core.store.library import Library, LibraryFilter
from app.core.store.migrations import MIGRATIONS

from .library_seed import (
    agent_turn,
    claude_import,
    mcp_present,
    report_with_a_turn_between,
    workspace_with_files,
)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def store(data_dir: Path) -> Iterator[Store]:
    with Store(data_dir) as opened:
        yield opened


@pytest.fixture
def seeded(store: Store, data_dir: Path, tmp_path: Path) -> dict[str, str]:
    """Who made what: the app's agent twice on report.md, Codex, Claude Code."""
    ws = workspace_with_files(tmp_path / "ws", "report.md", "chart.pdf", "data.csv")
    agent = agent_turn(store, ws, tmp_path, ("report.md", "chart.pdf"), ("report.md",))
    mcp_present(store, data_dir, ws, "codex", "data.csv")
    repo = workspace_with_files(tmp_path / "home" / "repo", "fix.py")
    imported = claude_import(store, repo, "fix.py")
    return {"agent": agent, "imported": imported}


def names(items: list[object]) -> list[str]:
    return [item.name for item in items]  # type: ignore[attr-defined]


def test_every_writer_is_listed_newest_first_each_file_once(
    store: Store, seeded: dict[str, str], tmp_path: Path
) -> None:
    items = Library(store).items(LibraryFilter())

    assert names(items) == ["fix.py", "data.csv", "report.md", "chart.pdf"]
    by_name = {item.name: item for item in items}
    assert by_name["report.md"].agent == "Deliverables agent"
    assert by_name["report.md"].versions == 2
    assert by_name["report.md"].folder == str(tmp_path / "ws")
    assert by_name["report.md"].conversation_title == "Agent work"
    assert by_name["chart.pdf"].kind == "pdf"
    assert by_name["data.csv"].agent == "Codex"
    assert by_name["data.csv"].description == "about data.csv"
    assert by_name["fix.py"].agent == "Claude Code"
    assert by_name["fix.py"].imported and by_name["fix.py"].kind == "code"
    assert not by_name["report.md"].imported


def test_filters_by_kind_agent_workspace_and_date(
    store: Store, seeded: dict[str, str], tmp_path: Path
) -> None:
    library = Library(store)

    def listed(**wanted: object) -> list[str]:
        return names(library.items(LibraryFilter(**wanted)))  # type: ignore[arg-type]

    assert listed(kinds=frozenset({"pdf", "csv"})) == ["data.csv", "chart.pdf"]
    assert listed(agents=frozenset({"Codex", "Claude Code"})) == [
        "fix.py",
        "data.csv",
    ]
    assert listed(workspaces=frozenset({str(tmp_path / "ws")})) == [
        "data.csv",
        "report.md",
        "chart.pdf",
    ]
    now = datetime.now(UTC)
    assert listed(since=now - timedelta(hours=1)) == listed()
    assert listed(until=now - timedelta(hours=1)) == []


def test_search_matches_name_and_description_and_takes_wildcards_literally(
    store: Store, seeded: dict[str, str]
) -> None:
    library = Library(store)

    assert names(library.items(LibraryFilter(text="REP"))) == ["report.md"]
    assert names(library.items(LibraryFilter(text="about data"))) == ["data.csv"]
    assert names(library.items(LibraryFilter(text="%"))) == []
    assert names(library.items(LibraryFilter(text="_"))) == []


def test_the_same_path_in_two_turns_is_one_item_with_its_versions(
    store: Store, seeded: dict[str, str]
) -> None:
    library = Library(store)
    [report] = library.items(LibraryFilter(text="report"))

    versions = library.versions(report.item)

    assert [v.key.ref for v in versions] == ["call-1", "call-0"]
    assert versions[0].key == report.key
    assert versions[0].position > versions[1].position
    assert {v.key.conversation_id for v in versions} == {seeded["agent"]}


def test_states_found_in_the_background_are_kept_and_filter(
    store: Store, seeded: dict[str, str]
) -> None:
    library = Library(store)
    [chart] = library.items(LibraryFilter(kinds=frozenset({"pdf"})))
    assert chart.state == "unchecked"

    library.set_states([(chart.key, "missing"), (chart.key, "made up")])

    [found] = library.items(LibraryFilter(states=frozenset({"missing"})))
    assert found.key == chart.key and found.state == "missing"


def test_deleting_a_conversation_takes_its_items_and_a_fork_keeps_its_own(
    store: Store, seeded: dict[str, str]
) -> None:
    library = Library(store)
    fork = store.fork(seeded["agent"], 4)

    store.delete_conversation(seeded["agent"])
    store.delete_conversation(seeded["imported"])

    items = library.items(LibraryFilter())
    assert names(items) == ["data.csv", "report.md", "chart.pdf"]
    inherited = [i for i in items if i.name != "data.csv"]
    assert {i.key.conversation_id for i in inherited} == {fork.id}
    assert [i.versions for i in inherited] == [1, 1]


def test_an_import_done_again_replaces_its_items(
    store: Store, seeded: dict[str, str], tmp_path: Path
) -> None:
    repo = tmp_path / "home" / "repo"
    workspace_with_files(repo, "other.txt")

    claude_import(store, repo, "other.txt")

    imported = Library(store).conversation_items(seeded["imported"])
    assert names(imported) == ["other.txt"]


def test_the_migration_builds_the_index_for_a_store_written_before_it(
    store: Store, seeded: dict[str, str], data_dir: Path
) -> None:
    before = Library(store).items(LibraryFilter())
    assert len(before) == 4
    store.close()
    # The store as the version before the library left it: no index at all.
    conn = sqlite3.connect(data_dir / DATABASE_NAME, isolation_level=None)
    for trigger in ("library_record_gone", "library_import_gone"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE library")
    conn.execute("DROP TABLE library_pending")
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    conn.close()

    with Store(data_dir) as reopened:
        after = Library(reopened).items(LibraryFilter())

    assert [(i.key, i.agent, i.versions) for i in after] == [
        (i.key, i.agent, i.versions) for i in before
    ]


def test_the_filter_choices_are_what_the_index_holds(
    store: Store, seeded: dict[str, str], tmp_path: Path
) -> None:
    choices = Library(store).choices()

    assert choices.kinds == ("code", "csv", "markdown", "pdf")
    assert choices.agents == ("Claude Code", "Codex", "Deliverables agent")
    assert choices.workspaces == tuple(
        sorted({str(tmp_path / "ws"), str(tmp_path / "home" / "repo")})
    )


def turn_between(store: Store, tmp_path: Path) -> str:
    ws = workspace_with_files(tmp_path / "between")
    texts = ("one\n", "two\n", "three\n")
    return report_with_a_turn_between(store, ws, tmp_path, texts)


def changed_keys(library: Library) -> list[tuple[str, str, int]]:
    items = library.items(LibraryFilter())
    versions = [v for item in items for v in library.versions(item.item)]
    return sorted((v.name, v.key.ref, v.key.entry) for v in versions if v.changed)


def test_a_file_a_turn_changed_without_presenting_it_is_one_version_of_it(
    store: Store, tmp_path: Path
) -> None:
    turn_between(store, tmp_path)
    library = Library(store)

    items = library.items(LibraryFilter())

    assert names(items) == ["report.md", "notes.md"]
    assert [i.versions for i in items] == [3, 1]
    assert changed_keys(library) == [("notes.md", "n2", 0), ("report.md", "w2", 0)]
    [notes] = [i for i in items if i.changed]
    assert notes.agent == "Deliverables agent" and notes.kind == "markdown"
    assert notes.description == "changed in a turn, not presented"


def test_changed_versions_go_with_their_changes_and_a_fork_keeps_its_own(
    store: Store, tmp_path: Path
) -> None:
    cid = turn_between(store, tmp_path)
    library = Library(store)
    # The fork holds the first two turns: report.md presented, then changed.
    turns = [m.position for m in store.messages(cid) if m.message["type"] == "human"]
    fork = store.fork(cid, turns[2])

    store.delete_conversation(cid)

    assert {k[0] for k in changed_keys(library)} == {"notes.md", "report.md"}
    [report] = library.items(LibraryFilter(text="report"))
    assert report.versions == 2 and report.key.conversation_id == fork.id
    store.delete_conversation(fork.id)
    assert library.items(LibraryFilter()) == []


def test_the_migration_lists_changed_files_of_a_store_written_before_it(
    store: Store, data_dir: Path, tmp_path: Path
) -> None:
    turn_between(store, tmp_path)
    before = changed_keys(Library(store))
    store.close()
    # The store as version 6 left it: changes stored, none of them listed.
    conn = sqlite3.connect(data_dir / DATABASE_NAME, isolation_level=None)
    conn.execute("DROP TRIGGER library_change_gone")
    conn.execute("DELETE FROM library WHERE origin = 'changed'")
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    conn.close()

    with Store(data_dir) as reopened:
        after = changed_keys(Library(reopened))

    assert after == before == [("notes.md", "n2", 0), ("report.md", "w2", 0)]
