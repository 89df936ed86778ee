"""The README's registration snippets are what ``--print-config`` prints."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from app.mcp import clients

README = Path(__file__).resolve().parents[2] / "README.md"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Use it from other agents (MCP)")
    return text[start : text.index("\n## ", start + 1)]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.+?)\n *```", section(), flags=re.DOTALL)


@pytest.fixture(autouse=True)
def plain_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # The README names the command as a user types it; print-config gives its path.
    monkeypatch.setattr(clients, "installed_command", lambda: ["deliverables"])


def test_the_readme_shows_each_clients_registration() -> None:
    (claude,) = [b.strip() for b in blocks("sh")]
    (codex,) = blocks("toml")
    cursor, vscode, desktop = (json.loads(b) for b in blocks("json"))

    assert claude == clients.client_config("claude-code")
    assert tomllib.loads(codex) == tomllib.loads(clients.client_config("codex"))
    assert cursor == json.loads(clients.client_config("cursor"))
    assert vscode == json.loads(clients.client_config("vscode"))
    folder = Path("/path/to/folder")
    assert desktop == json.loads(clients.client_config("claude-desktop", folder))
