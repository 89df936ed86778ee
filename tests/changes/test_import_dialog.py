"""Import session…: sessions listed and filtered, imported off the GUI thread."""

from __future__ import annotations

import threading
from pathlib import Path

from pytestqt.qtbot import QtBot

from app.core.store import Store
from app.ui.import_dialog import ImportDialog, import_all

from ..app.importers.test_discover import fake_home
from ..app.importers.transcripts import big_claude_session


def listed(qtbot: QtBot, store: Store, home: Path) -> ImportDialog:
    dialog = ImportDialog(store, home=home, env={})
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: not dialog.busy())
    return dialog


def rows(dialog: ImportDialog) -> list[tuple[str, str, str]]:
    tree = dialog.sessions
    return [
        (
            tree.topLevelItem(n).text(0),
            tree.topLevelItem(n).text(1),
            tree.topLevelItem(n).text(3),
        )
        for n in range(tree.topLevelItemCount())
        if not tree.topLevelItem(n).isHidden()
    ]


def test_both_agents_sessions_are_listed_and_filtered(
    qtbot: QtBot, store: Store, tmp_path: Path
) -> None:
    home, _, _ = fake_home(tmp_path)
    dialog = listed(qtbot, store, home)

    assert rows(dialog) == [
        ("Claude Code", "/home/me/repo", "Fix the failing tests please"),
        ("Codex", "/home/me/other", "Add a changelog"),
    ]
    assert dialog.status.text().startswith("2 sessions found")
    assert not dialog.import_button.isEnabled()

    dialog.filter.setText("changelog")
    assert [row[0] for row in rows(dialog)] == ["Codex"]
    dialog.filter.clear()
    dialog.source.setCurrentIndex(dialog.source.findData("claude-code"))
    assert [row[0] for row in rows(dialog)] == ["Claude Code"]


def test_chosen_sessions_become_conversations_and_each_file_is_reported(
    qtbot: QtBot, store: Store, tmp_path: Path
) -> None:
    home, _, _ = fake_home(tmp_path)
    not_a_transcript = tmp_path / "notes.jsonl"
    not_a_transcript.write_text('{"hello": "world"}\n')
    dialog = listed(qtbot, store, home)
    dialog.sessions.selectAll()
    assert dialog.import_button.isEnabled()
    chosen = [*dialog.selected_paths(), str(not_a_transcript)]

    with qtbot.waitSignal(dialog.imported, timeout=30_000) as done:
        dialog.start_import(chosen)
        assert not dialog.import_button.isEnabled() and not dialog.progress.isHidden()

    summaries = done.args[0]
    assert len(summaries) == 2
    titles = {c.title for c in store.conversations()}
    assert {s.title for s in summaries} <= titles
    lines = dialog.status.text().splitlines()
    assert len(lines) == 3
    assert "imported as" in lines[0] and "imported as" in lines[1]
    assert lines[2].startswith("notes.jsonl: not imported: ")
    assert "Traceback" not in dialog.status.text()
    assert dialog.progress.isHidden() and dialog.sessions.isEnabled()


def test_cancelling_stops_between_lines_and_says_how_to_finish(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "big.jsonl"
    big_claude_session(path, str(tmp_path / "repo"), 8 << 20)
    second = tmp_path / "second.jsonl"
    big_claude_session(second, str(tmp_path / "repo2"), 1 << 20)
    cancelled = threading.Event()
    seen: list[int] = []

    def progress(index: int, done: int, total: int) -> None:
        seen.append(done)
        if done > total // 4:
            cancelled.set()

    outcomes = import_all(
        store, [str(path), str(second)], on_progress=progress, cancelled=cancelled
    )

    assert [o.summary for o in outcomes] == [None, None]
    assert "cancelled; import it again to finish it" in outcomes[0].sentence
    assert "cancelled" in outcomes[1].sentence
    assert seen and max(seen) < path.stat().st_size
    # Importing again finishes it, in place.
    again = import_all(store, [str(path)])
    assert again[0].summary is not None
    assert len(store.conversations()) == 1


def test_a_missing_file_is_a_sentence(store: Store, tmp_path: Path) -> None:
    outcome = import_all(store, [str(tmp_path / "gone.jsonl")])[0]
    assert outcome.summary is None
    assert outcome.sentence.startswith("gone.jsonl: not imported: ")
