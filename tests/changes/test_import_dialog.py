"""Import session…: sessions listed and filtered, imported off the GUI thread."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from PySide6.QtCore import QItemSelectionModel
from pytestqt.qtbot import QtBot

from app.core.store import Store
from app.importers.batch import import_all
from app.ui.changes.import_dialog import ImportDialog

from ..app.importers.test_discover import fake_home
from ..app.importers.transcripts import ClaudeSession, big_claude_session, text

SHOTS = os.environ.get("DELIVERABLES_SHOTS")


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
    # Neither claimed folder exists here: each session's workspace is to be
    # chosen (a folder, or none) before Import.
    assert not dialog.import_button.isEnabled()
    tree = dialog.sessions
    assert [tree.topLevelItem(n).text(5) for n in range(2)] == ["to choose"] * 2
    assert dialog.waiting.text().startswith("2 of the 2 sessions chosen still need")
    repo = tmp_path / "repo"
    repo.mkdir()
    tree.setCurrentItem(
        tree.topLevelItem(0), 0, QItemSelectionModel.SelectionFlag.NoUpdate
    )
    qtbot.keyClicks(dialog.workspace.folder, str(repo))
    assert dialog.waiting.text().startswith("1 of the 2 sessions chosen still needs")
    tree.setCurrentItem(
        tree.topLevelItem(1), 0, QItemSelectionModel.SelectionFlag.NoUpdate
    )
    dialog.workspace.without.setChecked(True)
    assert [tree.topLevelItem(n).text(5) for n in range(2)] == [str(repo), "none"]
    assert dialog.import_button.isEnabled()
    chosen = [*dialog.selected_paths(), str(not_a_transcript)]

    with qtbot.waitSignal(dialog.imported, timeout=30_000) as done:
        dialog.start_import(chosen)
        assert not dialog.import_button.isEnabled() and not dialog.progress.isHidden()

    summaries = done.args[0]
    assert len(summaries) == 2
    assert [s.workspace for s in summaries] == [str(repo), ""]
    titles = {c.title for c in store.conversations()}
    assert {s.title for s in summaries} <= titles
    lines = dialog.status.text().splitlines()
    assert len(lines) == 3
    assert "imported as" in lines[0] and "imported as" in lines[1]
    assert "No workspace" not in lines[0] and "No workspace" in lines[1]
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


def claims_home(tmp_path: Path, claims: dict[str, str]) -> Path:
    """A home whose Claude Code sessions each claim a folder (name -> claim)."""
    home = tmp_path / "home"
    for n, (prompt, claim) in enumerate(claims.items()):
        s = ClaudeSession(claim, session_id=f"0b7f3c1e-58a4-4c7b-9d0e-3f2a1b6c8d9{n}")
        s.user(prompt)
        s.assistant(text("Done."))
        folder = home / ".claude" / "projects" / f"p{n}"
        path = s.write(folder / f"0b7f3c1e-58a4-4c7b-9d0e-3f2a1b6c8d9{n}.jsonl")
        os.utime(path, ns=(n, n))
    return home


def test_each_session_shows_its_claim_beside_the_workspace_offered(
    qtbot: QtBot, store: Store, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    remote = "ssh://devbox:2222/srv/app"
    home = claims_home(
        tmp_path,
        {
            "In the repo": str(repo),
            "Everywhere": "/",
            "At home": str(tmp_path / "home"),
            "Far away": remote,
        },
    )
    connects: list[str] = []
    dialog = listed(qtbot, store, home)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.connectRequested.connect(connects.append)
    tree = dialog.sessions
    by_prompt = {tree.topLevelItem(n).text(3): tree.topLevelItem(n) for n in range(4)}

    workspaces = {prompt: item.text(5) for prompt, item in by_prompt.items()}
    assert workspaces == {
        "In the repo": str(repo),
        "Everywhere": "to choose",
        "At home": "to choose",
        "Far away": "to choose",
    }
    panel = dialog.workspace
    tree.setCurrentItem(by_prompt["In the repo"])
    assert panel.claim.text() == str(repo) and panel.folder.text() == str(repo)
    assert dialog.import_button.isEnabled()
    tree.setCurrentItem(by_prompt["Everywhere"])
    assert (panel.claim.text(), panel.folder.text()) == ("/", "")
    assert not dialog.import_button.isEnabled()
    assert panel.problem.text().startswith("Choose the folder it worked in")
    qtbot.keyClicks(panel.folder, str(tmp_path / "nowhere"))
    assert panel.problem.text().startswith("This folder cannot be used:")
    assert not dialog.import_button.isEnabled()

    tree.setCurrentItem(by_prompt["Far away"])
    assert panel.claim.text() == remote and panel.connect_button.isVisible()
    if SHOTS:
        dialog.grab().save(os.path.join(SHOTS, "import-dialog-claim.png"))
    panel.connect_button.click()
    assert connects == [remote]
    tree.setCurrentItem(by_prompt["In the repo"])
    assert not panel.connect_button.isVisible()
    if SHOTS:
        dialog.grab().save(os.path.join(SHOTS, "import-dialog-offered.png"))


def test_files_chosen_from_anywhere_are_listed_to_confirm_before_import(
    qtbot: QtBot, store: Store, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    s = ClaudeSession(str(repo))
    s.user("Chosen by hand")
    s.assistant(text("Done."))
    path = s.write(tmp_path / "elsewhere" / "session.jsonl")
    dialog = listed(qtbot, store, tmp_path / "empty-home")

    dialog.add_files([str(path), str(tmp_path / "gone.jsonl")])
    qtbot.waitUntil(lambda: dialog.sessions.topLevelItemCount() == 1)
    assert dialog.status.text().endswith(" 1 could not be read.")

    assert store.conversations() == []
    assert dialog.selected_paths() == [str(path)]
    assert dialog.sessions.topLevelItem(0).text(5) == str(repo)
    assert dialog.workspace.claim.text() == str(repo)
    with qtbot.waitSignal(dialog.imported, timeout=30_000) as done:
        dialog.import_button.click()
    [summary] = done.args[0]
    assert summary.workspace == str(repo)
