"""Agents' names as the chat shows them, and each client's registration snippet."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from app.cli import main
from app.mcp import clients
from app.mcp.clients import (
    CLIENTS,
    agent_name,
    client_config,
    configured_label,
    installed_command,
    workspace_label,
)


@pytest.mark.parametrize(
    ("configured", "shown"),
    [
        ("claude-code", "Claude Code"),
        ("codex", "Codex"),
        ("cursor", "Cursor"),
        ("vscode", "VS Code"),
        ("claude-desktop", "Claude Desktop"),
        ("My Agent", "My Agent"),
        ("", "An MCP client"),
        (None, "An MCP client"),
        ("<b>*x*</b>", "bxb"),
    ],
)
def test_the_user_configured_name_labels_the_agent(
    configured: str | None, shown: str
) -> None:
    assert configured_label(configured) == shown
    # What the client says of itself changes nothing once the user named it.
    if configured:
        assert agent_name(configured, "claude-code", "Claude Code") == shown


@pytest.mark.parametrize(
    ("name", "title", "claim"),
    [
        ("claude-code", None, "claude-code"),
        ("codex-mcp-client", None, "codex-mcp-client"),
        ("my-agent", "My Agent", "My Agent"),
        ("evil\u202egnp.exe\n", None, "evilgnp.exe"),
        ("x" * 500, None, "x" * 60),
        ("![a](file:///etc/passwd) <b>*x*</b> `y`", None, "a(fileetcpasswd) bxb y"),
        ("Zoë's agent (beta) 2.0", None, "Zoë's agent (beta) 2.0"),
    ],
)
def test_an_unnamed_client_is_shown_by_its_claim_cleaned(
    name: str, title: str | None, claim: str
) -> None:
    assert agent_name(None, name, title) == f"An MCP client (calls itself “{claim}”)"


@pytest.mark.parametrize(("name", "title"), [("", None), (None, None), ("\u202e", "")])
def test_a_client_that_claims_nothing_is_an_mcp_client(
    name: str | None, title: str | None
) -> None:
    assert agent_name(None, name, title) == "An MCP client"


def test_a_workspace_under_home_is_shown_from_home(tmp_path: Path) -> None:
    home = Path.home()
    assert workspace_label(home / "proj") == "~/proj"
    assert workspace_label(home) == "~"
    assert workspace_label(Path("/srv/work")) == "/srv/work"


def test_each_client_gets_its_documented_snippet_with_the_installed_command(
    tmp_path: Path,
) -> None:
    command = installed_command()
    configs = {client: client_config(client, tmp_path) for client in CLIENTS}

    registration = ["claude", "mcp", "add", "deliverables", "--", *command]
    assert configs["claude-code"] == shlex.join(
        [*registration, "mcp", "--client", "claude-code"]
    )
    codex = tomllib.loads(configs["codex"])["mcp_servers"]["deliverables"]
    assert [codex["command"], *codex["args"]] == [*command, "mcp", "--client", "codex"]
    for client in ("cursor", "claude-desktop"):
        entry = json.loads(configs[client])["mcpServers"]["deliverables"]
        assert entry["command"] == command[0]
    cursor = json.loads(configs["cursor"])["mcpServers"]["deliverables"]
    # Each snippet names its client: the chat labels the agent by it.
    assert cursor["args"][-3:] == ["mcp", "--client", "cursor"]
    vscode = json.loads(configs["vscode"])["servers"]["deliverables"]
    assert vscode["type"] == "stdio"
    assert [vscode["command"], *vscode["args"]] == [
        *command,
        "mcp",
        "--client",
        "vscode",
    ]
    desktop = json.loads(configs["claude-desktop"])["mcpServers"]["deliverables"]
    # Claude Desktop has no project folder: the snippet names one.
    assert desktop["args"][-5:] == [
        "mcp",
        "--client",
        "claude-desktop",
        "--workspace",
        str(tmp_path),
    ]


def test_print_config_prints_the_snippet(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["mcp", "--print-config", "codex"]) == 0
    printed = capsys.readouterr()
    assert printed.out.strip() == client_config("codex")
    assert "config.toml" in printed.err
    assert (
        main(["mcp", "--workspace", str(tmp_path / "nope"), "--print-config", "vscode"])
        == 2
    )


README = Path(__file__).resolve().parents[3] / "README.md"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Use it from other agents (MCP)")
    return text[start : text.index("\n## ", start + 1)]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.+?)\n *```", section(), flags=re.DOTALL)


@pytest.fixture
def plain_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # The README names the command as a user types it; print-config gives its path.
    monkeypatch.setattr(clients, "installed_command", lambda: ["deliverables"])


@pytest.mark.usefixtures("plain_command")
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
