"""Agents' names as the chat shows them, and each client's registration snippet."""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path

import pytest

from app.cli import main
from app.mcp.clients import (
    CLIENTS,
    agent_name,
    client_config,
    installed_command,
    workspace_label,
)


@pytest.mark.parametrize(
    ("name", "title", "shown"),
    [
        ("claude-code", None, "Claude Code"),
        ("codex-mcp-client", None, "Codex"),
        ("cursor-vscode", None, "Cursor"),
        ("Visual Studio Code", None, "VS Code"),
        ("claude-ai", None, "Claude Desktop"),
        ("my-agent", "My Agent", "My Agent"),
        ("my-agent", None, "my-agent"),
        ("evil\u202egnp.exe\n", None, "evilgnp.exe"),
        ("", None, "An MCP client"),
        (None, None, "An MCP client"),
        ("x" * 500, None, "x" * 60),
        ("![a](file:///etc/passwd) <b>*x*</b> `y`", None, "a(fileetcpasswd) bxb y"),
        ("Zoë's agent (beta) 2.0", None, "Zoë's agent (beta) 2.0"),
    ],
)
def test_an_agent_is_shown_by_a_clean_name(
    name: str | None, title: str | None, shown: str
) -> None:
    assert agent_name(name, title) == shown


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

    assert configs["claude-code"] == shlex.join(
        ["claude", "mcp", "add", "deliverables", "--", *command, "mcp"]
    )
    codex = tomllib.loads(configs["codex"])["mcp_servers"]["deliverables"]
    assert [codex["command"], *codex["args"]] == [*command, "mcp"]
    for client in ("cursor", "claude-desktop"):
        entry = json.loads(configs[client])["mcpServers"]["deliverables"]
        assert entry["command"] == command[0]
    vscode = json.loads(configs["vscode"])["servers"]["deliverables"]
    assert vscode["type"] == "stdio"
    assert [vscode["command"], *vscode["args"]] == [*command, "mcp"]
    desktop = json.loads(configs["claude-desktop"])["mcpServers"]["deliverables"]
    # Claude Desktop has no project folder: the snippet names one.
    assert desktop["args"][-3:] == ["mcp", "--workspace", str(tmp_path)]


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
