"""Sessions shaped like real Claude Code and Codex ones, shown in the real window.

Each transcript in ``tests/data/transcripts`` (see its README) is imported and
shown as a person would see it: the title, the prompts, the tool cards.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.chat.blocks import (
    AssistantTextBlock,
    ImportedFileBlock,
    ToolCallBlock,
    UserBlock,
)
from app.core.store import Store
from app.importers.session import import_transcript
from app.ui.chat.model import accessible_text
from app.ui.chat.paint_cards import tool_summary
from app.ui.window.main_window import MainWindow

CORPUS = Path(__file__).resolve().parents[1] / "data" / "transcripts"
SHOTS = os.environ.get("DELIVERABLES_SHOTS")


@pytest.fixture
def window(qtbot: QtBot, store: Store, tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(win)
    win.resize(1280, 900)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


class Seen:
    """What the window shows of a conversation, row by row."""

    def __init__(self, window: MainWindow) -> None:
        model = window.chat.chat_model()
        model.load_all_history()
        self.blocks = [model.block(row) for row in range(model.rowCount())]
        self.title = window.windowTitle()
        self.running = model.running_rows()
        self.spinning = window.chat._spinner.isActive()
        self.listed = window.conversations.model().index(0, 0).data()

    @property
    def prompts(self) -> list[str]:
        return [b.text for b in self.blocks if isinstance(b, UserBlock)]

    @property
    def answers(self) -> list[str]:
        return [b.text for b in self.blocks if isinstance(b, AssistantTextBlock)]

    @property
    def tools(self) -> list[str]:
        return [tool_summary(b) for b in self.blocks if isinstance(b, ToolCallBlock)]

    @property
    def cards(self) -> list[str]:
        return [b.file.path for b in self.blocks if isinstance(b, ImportedFileBlock)]

    @property
    def said(self) -> str:
        """Everything a screen reader would read out."""
        return "\n".join(accessible_text(block) for block in self.blocks)


def show(qtbot: QtBot, window: MainWindow, store: Store, name: str) -> Seen:
    summary = import_transcript(store, str(CORPUS / name))
    window.refresh_conversations()
    window.show_conversation(summary.conversation_id)
    qtbot.waitUntil(window.is_loaded, timeout=10_000)
    if SHOTS:
        window.grab().save(os.path.join(SHOTS, name.replace(".jsonl", ".png")))
    return Seen(window)


def test_a_session_started_by_a_slash_command_shows_the_command_as_typed(
    qtbot: QtBot, window: MainWindow, store: Store
) -> None:
    seen = show(qtbot, window, store, "claude-slash-command.jsonl")

    assert seen.title == "/orchestrator — Deliverables"
    assert seen.listed.startswith("/orchestrator\n")
    assert seen.prompts == [
        "/orchestrator",
        "/model opus",
        "Thanks. Add a line about the new importer.",
    ]
    for markup in ("<command-", "<local-command", "Caveat:", "Plan the work"):
        assert markup not in seen.said
    assert seen.tools == [
        f"Write — File created successfully at: {'/home/me/project'}/RELEASE_NOTES.md"
    ]
    assert seen.cards == ["/home/me/project/RELEASE_NOTES.md"]


def test_a_subagents_sidechain_is_no_turn_but_its_file_is_a_card(
    qtbot: QtBot, window: MainWindow, store: Store
) -> None:
    seen = show(qtbot, window, store, "claude-sidechain.jsonl")

    assert seen.prompts == ["Ask a helper to draft docs/helper.md"]
    assert "Write docs/helper.md with a short intro." not in seen.said
    assert seen.tools == ["Task — Drafted docs/helper.md."]
    assert seen.answers == ["The helper drafted docs/helper.md."]
    assert seen.cards == ["/home/me/project/docs/helper.md"]


def test_a_compaction_summary_is_neither_a_prompt_nor_the_title(
    qtbot: QtBot, window: MainWindow, store: Store
) -> None:
    seen = show(qtbot, window, store, "claude-compaction.jsonl")

    assert seen.title == "Split the parser into a lexer and a reader — Deliverables"
    assert seen.prompts == [
        "Split the parser into a lexer and a reader",
        "/compact",
        "Now add tests for the lexer",
    ]
    for summary in ("continued from a previous conversation", "Parser refactoring"):
        assert summary not in seen.said


@pytest.mark.parametrize(
    ("name", "tools"),
    [
        ("claude-unfinished-call.jsonl", ["Bash — ended without a result"]),
        (
            "codex-no-output.jsonl",
            ["shell — ended without a result", "shell — 42 passed"],
        ),
    ],
)
def test_a_call_the_session_never_finished_shows_as_ended_not_running(
    qtbot: QtBot, window: MainWindow, store: Store, name: str, tools: list[str]
) -> None:
    seen = show(qtbot, window, store, name)

    assert seen.tools == tools
    assert seen.running == [] and not seen.spinning


def test_a_codex_prompt_kept_only_as_an_event_is_a_turn(
    qtbot: QtBot, window: MainWindow, store: Store
) -> None:
    seen = show(qtbot, window, store, "codex-event-user-only.jsonl")

    assert seen.title == "Summarise the README in one line — Deliverables"
    assert seen.prompts == ["Summarise the README in one line"]
    assert seen.answers == ["A desktop app to open what agents made, safely."]


def test_a_compacted_codex_rollout_shows_each_prompt_once(
    qtbot: QtBot, window: MainWindow, store: Store
) -> None:
    seen = show(qtbot, window, store, "codex-compacted.jsonl")

    assert seen.prompts == ["Rename util.py to helpers.py", "Update the imports"]
    assert seen.answers == ["Renamed.", "Imports updated."]
    assert "The user renamed util.py" not in seen.said
    assert "<environment_context>" not in seen.said
