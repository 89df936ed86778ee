"""The library at scale: 100,000 deliverables in 10,000 conversations.

Opening, filtering and searching are timed against a plain SQLite scan of the
same rows in the same run, so the figures compare across machines.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.core.store import Store
from app.core.store.library import Library, LibraryFilter
from app.core.store.messages import AIMessage, HumanMessage, ToolCall, ToolResult
from app.core.store.messages import write as stored

pytestmark = pytest.mark.benchmark

CONVERSATIONS = 10_000
RECORDS = 5  # per conversation
FILES = 2  # per record: 100,000 deliverables in all
REPEATS = 7
KINDS = (("pdf", "pdf"), ("md", "markdown"), ("csv", "csv"), ("png", "image"))
CLIENTS = ("Codex", "Cursor", "Claude Code")
TYPED = ("q", "qu", "qua", "quar", "quart", "quarterly-4242")


def entry(conversation: int, record: int, index: int) -> dict[str, Any]:
    suffix, kind = KINDS[(conversation // 4 + record + index) % len(KINDS)]
    folder = f"/home/user/work/project-{conversation % 50}"
    name = f"quarterly-{conversation}-{record}-{index}.{suffix}"
    if index == 0 and record == 0:
        # Five conversations in a row present the same report: its versions.
        folder, name = "/home/user/work/shared", f"report-{conversation // 5}.md"
        kind = "markdown"
    return {
        "path": name,
        "resolved": f"{folder}/{name}",
        "description": f"Figures for team {conversation % 97}",
        "scope": "workspace",
        "size": 12_345,
        "mtime_ns": 1_700_000_000_000_000_000,
        "device": 64_769,
        "inode": conversation * 100 + record * 10 + index,
        "kind": kind,
    }


def turn(conversation: int, record: int) -> list[tuple[dict[str, Any], Any, Any]]:
    """A presentation, as the app's agent or as an MCP client stores it."""
    files = [entry(conversation, record, i) for i in range(FILES)]
    raw = json.dumps(
        {
            "version": 1,
            "declared_at": "2026-01-01T00:00:00+00:00",
            "workspace": files[0]["resolved"].rsplit("/", 1)[0],
            "files": files,
        }
    )
    client = conversation % (len(CLIENTS) + 1)
    call = f"call-{conversation}-{record}"
    if client < len(CLIENTS):
        call = f"mcp-{call}"
    result = stored(ToolResult(call, "Presented.", name="present"))
    return [
        (
            stored(HumanMessage(f"From {CLIENTS[client]}" if client < 3 else "Go")),
            None,
            None,
        ),
        (stored(AIMessage("", (ToolCall(call, "present", {}),))), None, None),
        (result, raw, call),
    ]


def seed(store: Store) -> list[str]:
    """Store every turn through the store's own writer; the names, for the anchor."""
    names: list[str] = []
    for conversation in range(CONVERSATIONS):
        cid = store.create_conversation(f"Work {conversation}", "/home/user/work").id
        items = []
        for record in range(RECORDS):
            items += turn(conversation, record)
            names += [entry(conversation, record, i)["path"] for i in range(FILES)]
        store.append_messages(cid, items)
    return names


def median_ms(action: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def test_library_figures(tmp_path: Path, report: list[str]) -> None:
    with Store(tmp_path / "data") as store:
        start = time.perf_counter()
        names = seed(store)
        seeded = time.perf_counter() - start
        library = Library(store)

        # The anchor: a plain SQLite table of the same names, scanned whole.
        plain = sqlite3.connect(tmp_path / "plain.sqlite3")
        plain.execute("CREATE TABLE plain (name TEXT NOT NULL)")
        plain.executemany("INSERT INTO plain VALUES (?)", ((n,) for n in names))
        plain.commit()
        anchor = median_ms(
            lambda: plain.execute(
                "SELECT name FROM plain WHERE name LIKE '%nothing-like-it%'"
            ).fetchall()
        )

        everything = LibraryFilter()
        pdfs = LibraryFilter(
            kinds=frozenset({"pdf"}), agents=frozenset({"Codex", "Cursor"})
        )
        assert len(library.items(everything)) == 500
        found = library.items(pdfs)
        assert found and {i.kind for i in found} == {"pdf"}
        assert {i.agent for i in found} == {"Codex", "Cursor"}
        [versioned] = library.items(LibraryFilter(text="report-7.md"))
        assert versioned.versions == 5

        def choices_and_page() -> None:
            library.choices()
            library.items(everything)

        figures = {
            "open (filter choices + first page)": median_ms(choices_and_page),
            "filter: PDFs by two agents": median_ms(lambda: library.items(pdfs)),
            "filter: one workspace": median_ms(
                lambda: library.items(
                    LibraryFilter(workspaces=frozenset({"/home/user/work/project-7"}))
                )
            ),
            "search: slowest keystroke of " + repr(TYPED[-1]): max(
                median_ms(lambda t=t: library.items(LibraryFilter(text=t)))  # type: ignore[misc]
                for t in TYPED
            ),
            "search: no match (whole index)": median_ms(
                lambda: library.items(LibraryFilter(text="nothing-like-it"))
            ),
            "versions of one file": median_ms(lambda: library.versions(versioned.item)),
        }
        plain.close()
        # An existing store meeting migration 7: opened at once, the index
        # filled off the window's thread (Library.prepare).
        with store.transaction(write=True) as conn:
            conn.execute("INSERT INTO library_pending VALUES (1)")
    start = time.perf_counter()
    with Store(tmp_path / "data") as reopened:
        opened = (time.perf_counter() - start) * 1e3
        upgraded = Library(reopened)
        assert upgraded.pending()
        start = time.perf_counter()
        upgraded.prepare()
        rebuilt = (time.perf_counter() - start) * 1e3
        assert len(upgraded.items(everything)) == 500

    report.append(
        f"library, {len(names):,} deliverables in {CONVERSATIONS:,} conversations"
        f" (seeded through the store in {seeded:.0f} s); anchor: a plain SQLite"
        f" scan of the same names, {anchor:.1f} ms"
    )
    for label, ms in figures.items():
        report.append(f"  {label}: {ms:.1f} ms = {ms / anchor:.2f}x the anchor")
    report.append(
        f"  opening a store whose index waits to be filled: {opened:.0f} ms"
        f" = {opened / anchor:.0f}x the anchor"
    )
    report.append(
        f"  the index filled for existing data in the background: {rebuilt:.0f} ms"
        f" = {rebuilt / anchor:.0f}x the anchor"
    )
