"""Above an imported conversation: its claim, its workspace, and choosing one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.store import Store
from app.core.store.import_store import ImportStore
from app.importers.session import import_transcript
from app.ui.changes.imported_session import UNCONFIRMED
from app.ui.window.main_window import MainWindow

from ....changes.test_imported_cards import cards, click, message
from ....changes.test_verify import claude_session, on_disk
from ...importers.conftest import repo, store

__all__ = ["repo", "store"]

SHOTS = os.environ.get("DELIVERABLES_SHOTS")


@pytest.fixture
def window(qtbot: QtBot, store: Store, tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(
        store, tmp_path / "data", model_spec="nowhere:x", model_factory=_no_model
    )
    qtbot.addWidget(win)
    win.resize(1280, 900)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


def _no_model(spec: str) -> object:
    raise AssertionError("no model may be reached without a workspace")


def shown(qtbot: QtBot, window: MainWindow, conversation_id: str) -> None:
    window.refresh_conversations()
    window.show_conversation(conversation_id)
    qtbot.waitUntil(window.is_loaded, timeout=10_000)


def test_an_unconfirmed_import_says_so_and_verifies_only_once_a_folder_is_chosen(
    qtbot: QtBot, window: MainWindow, store: Store, repo: Path, tmp_path: Path
) -> None:
    on_disk(repo, tmp_path)
    cid = import_transcript(store, str(claude_session(repo))).conversation_id
    shown(qtbot, window, cid)
    bar = window.imported_session

    assert bar.isVisible() and not bar.connect_button.isVisible()
    assert bar.text.text() == (
        f"Imported from Claude Code. The session says it worked in {repo}.\n"
        f"{UNCONFIRMED}"
    )
    assert bar.choose_button.text() == "Choose workspace…"
    if SHOTS:
        window.grab().save(os.path.join(SHOTS, "imported-unconfirmed.png"))
    rows = cards(window)
    click(qtbot, window, rows["kept.txt"], "verify")
    qtbot.waitUntil(lambda: not window.imported_cards.busy(), timeout=10_000)
    assert message(window, rows["kept.txt"]).startswith(
        "refused (the session's workspace is not confirmed"
    )

    offered: list[str] = []

    def pick(_parent: object, start: str) -> str:
        offered.append(start)
        return str(repo)

    bar.ask_workspace = pick
    bar.choose_button.click()
    qtbot.waitUntil(window.is_loaded, timeout=10_000)
    assert offered == [str(repo)]
    assert store.conversation(cid).workspace == str(repo)
    assert bar.text.text().endswith(f"\nWorkspace: {repo}")
    assert bar.choose_button.text() == "Change workspace…"
    rows = cards(window)
    click(qtbot, window, rows["kept.txt"], "verify")
    qtbot.waitUntil(lambda: not window.imported_cards.busy(), timeout=10_000)
    assert message(window, rows["kept.txt"]) == "unchanged since the session"


def test_another_workspace_drops_what_verify_found_there(
    qtbot: QtBot, window: MainWindow, store: Store, repo: Path, tmp_path: Path
) -> None:
    on_disk(repo, tmp_path)
    cid = import_transcript(
        store, str(claude_session(repo)), workspace=str(repo)
    ).conversation_id
    shown(qtbot, window, cid)
    rows = cards(window)
    click(qtbot, window, rows["kept.txt"], "verify")
    qtbot.waitUntil(lambda: not window.imported_cards.busy(), timeout=10_000)
    assert message(window, rows["kept.txt"]) == "unchanged since the session"

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    window.imported_session.ask_workspace = lambda _parent, _start: str(elsewhere)
    window.imported_session.choose_button.click()
    qtbot.waitUntil(window.is_loaded, timeout=10_000)
    assert message(window, cards(window)["kept.txt"]) == "imported — not verified"
    [entry] = [e for e in ImportStore(store).files(cid) if e.path.endswith("kept.txt")]
    assert store.verification(cid, entry.entry_id) is None


def test_a_folder_that_cannot_be_a_workspace_is_refused_with_the_reason(
    qtbot: QtBot, window: MainWindow, store: Store, repo: Path, tmp_path: Path
) -> None:
    cid = import_transcript(store, str(claude_session(repo))).conversation_id
    shown(qtbot, window, cid)
    window.imported_session.ask_workspace = lambda _p, _s: str(tmp_path / "gone")
    window.imported_session.choose_button.click()
    assert window.notice_bar.text().startswith("This folder cannot be the workspace:")
    assert store.conversation(cid).workspace == ""


def test_continuing_an_unconfirmed_import_asks_for_its_workspace_first(
    qtbot: QtBot, window: MainWindow, store: Store, repo: Path
) -> None:
    cid = import_transcript(store, str(claude_session(repo))).conversation_id
    shown(qtbot, window, cid)
    window.chat_input._edit.setPlainText("go on")
    window.chat_input._on_edit_submitted()
    assert "has no workspace yet" in window.notice_bar.text()
    assert window.chat_input._edit.toPlainText() == "go on"


def test_a_fork_of_an_import_shows_the_claim_and_a_conversation_made_here_none(
    qtbot: QtBot, window: MainWindow, store: Store, repo: Path
) -> None:
    cid = import_transcript(store, str(claude_session(repo))).conversation_id
    fork = store.fork(cid, 2).id
    shown(qtbot, window, fork)
    assert window.imported_session.isVisible()
    assert f"says it worked in {repo}." in window.imported_session.text.text()

    made_here = store.create_conversation("Here", str(repo)).id
    shown(qtbot, window, made_here)
    assert not window.imported_session.isVisible()
