"""Claude Code's markup lines read as what the person typed, or as output."""

from __future__ import annotations

import pytest

from app.importers.claude_markup import typed_text


@pytest.mark.parametrize(
    ("line", "typed"),
    [
        (
            "<command-message>orchestrator is running…</command-message>\n"
            "<command-name>/orchestrator</command-name>\n<command-args></command-args>",
            "/orchestrator",
        ),
        (
            "<command-message>review</command-message>\n<command-name>/review"
            "</command-name>\n<command-args>the parser\nand its tests</command-args>",
            "/review the parser\nand its tests",
        ),
        (
            "<command-name>/model</command-name>\n            <command-message>model"
            "</command-message>\n            <command-args>opus</command-args>",
            "/model opus",
        ),
        ("<command-name>clear</command-name>", "/clear"),
        ("<command-message>orient is running…</command-message>", "/orient"),
        ("<bash-input>git status</bash-input>", "! git status"),
    ],
)
def test_a_command_reads_as_typed(line: str, typed: str) -> None:
    assert typed_text(line) == typed


@pytest.mark.parametrize(
    "line",
    [
        "<local-command-stdout>Set model to opus</local-command-stdout>",
        "<local-command-stdout></local-command-stdout>",
        "<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>",
        "<local-command-caveat>Caveat: the messages below…</local-command-caveat>",
    ],
)
def test_output_is_no_prompt(line: str) -> None:
    assert typed_text(line) is None


@pytest.mark.parametrize(
    "line",
    [
        "Fix the tests",
        "<b>bold</b> please",
        "<command-name>/x</command-name> and then explain why",
        "Explain <command-name>/x</command-name>",
        "<command-name>/x</command-name",
    ],
)
def test_text_that_is_not_wholly_markup_stays_as_typed(line: str) -> None:
    assert typed_text(line) == line
