"""Imported cards' states: read from the store, Verify off the GUI thread."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from app.core.store import Store
from app.core.store.imported_files import ImportedFileRef
from app.core.trust.policy import PermissionMode, Policy, load_policy
from app.ui.changes.imported_cards import ImportedCards
from app.ui.chat.model import UNVERIFIED


def test_verify_reports_busy_then_a_sentence_and_a_failure_never_escapes(
    qtbot: QtBot, tmp_path: Path
) -> None:
    def policy(_workspace: str) -> Policy:
        return load_policy(user_file=tmp_path / "none.toml", home=str(tmp_path))

    with Store(tmp_path / "data") as store:
        cards = ImportedCards(store, policy, lambda: PermissionMode.WORKSPACE_ONLY)
        seen: list[object] = []
        cards.changed.connect(lambda ref, state: seen.append((ref, state)))
        ref = ImportedFileRef("no-such-conversation", "e1")

        cards.verify(ref, UNVERIFIED)
        assert cards.busy()
        cards.verify(ref, UNVERIFIED)  # one Verify at a time per card
        qtbot.waitUntil(lambda: not cards.busy(), timeout=10_000)

        assert len(seen) == 2
        busy, done = (state for _, state in seen)  # type: ignore[misc]
        assert busy.busy and busy.message == UNVERIFIED.message
        assert not done.verified and done.problem
        assert done.message == "no such imported file"
