"""The MCP clients the app knows: their names, and how each registers the server."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

from app.core.trust.display_names import plain_file_name
from app.ssh.address import is_remote_address

# The clients the user may name with --client (and --print-config), and how a
# person calls them. What a client says of itself in clientInfo is never
# looked up here: any program can call itself "claude-code".
CLIENT_LABELS: Final = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "cursor": "Cursor",
    "vscode": "VS Code",
    "claude-desktop": "Claude Desktop",
}
UNKNOWN_CLIENT: Final = "An MCP client"
_MARKUP: Final = re.compile(r"[^\w .,'()+-]")
MAX_NAME: Final = 60


def _clean(text: str | None) -> str:
    """``text`` fit to show: no hidden, control or markup characters, bounded."""
    if not text or not text.strip():
        return ""
    # No hidden or control characters, nothing Markdown or HTML would act on
    # (the chat renders "Presented by <name>." as Markdown), and a bounded
    # length: it is a title in the list and a line in the chat.
    visible = _MARKUP.sub("", plain_file_name(text))
    cleaned = " ".join(visible.split())
    return cleaned[:MAX_NAME] if cleaned and cleaned != "file" else ""


def configured_label(client: str | None) -> str:
    """The name the user gave the client (``--client``), as a person reads it.

    It is also the name the user's approvals for that client are kept under.
    """
    if client and client.strip().lower() in CLIENT_LABELS:
        return CLIENT_LABELS[client.strip().lower()]
    return _clean(client) or UNKNOWN_CLIENT


def agent_name(
    configured: str | None, name: str | None = None, title: str | None = None
) -> str:
    """The agent's name as the chat shows it.

    The user's own name for the client when there is one; else the client's
    words about itself (``clientInfo``), shown as its claim and nothing more.
    """
    if configured and configured.strip():
        return configured_label(configured)
    claim = _clean(title) or _clean(name)
    if not claim:
        return UNKNOWN_CLIENT
    return f"{UNKNOWN_CLIENT} (calls itself “{claim}”)"


def workspace_label(workspace: Path) -> str:
    """``~/proj`` for a folder under the home folder, else the full path."""
    home = Path.home()
    try:
        relative = workspace.relative_to(home)
    except ValueError:
        return str(workspace)
    return "~" if relative == Path(".") else f"~/{relative.as_posix()}"


def conversation_title(agent: str, workspace: Path | str) -> str:
    """``agent — ~/proj``; a workspace address (``ssh://...``) is shown as written."""
    if is_remote_address(os.fspath(workspace)):
        return f"{agent} — {workspace}"
    return f"{agent} — {workspace_label(Path(workspace))}"


def installed_command() -> list[str]:
    """The command that runs this installation of the app, as a list."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = sys.argv[0] if sys.argv else ""
    if os.path.basename(script).startswith("deliverables") and os.access(
        script, os.X_OK
    ):
        return [os.path.abspath(script)]
    found = shutil.which("deliverables")
    if found is not None:
        return [os.path.abspath(found)]
    return [sys.executable, "-m", "app"]


def _json(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def _claude_code(command: list[str], args: list[str]) -> str:
    return shlex.join(["claude", "mcp", "add", "deliverables", "--", *command, *args])


def _codex(command: list[str], args: list[str]) -> str:
    full = [*command[1:], *args]
    listed = ", ".join(json.dumps(arg) for arg in full)
    return (
        "# ~/.codex/config.toml\n"
        "[mcp_servers.deliverables]\n"
        f"command = {json.dumps(command[0])}\n"
        f"args = [{listed}]"
    )


def _mcp_servers(command: list[str], args: list[str]) -> str:
    entry = {"command": command[0], "args": [*command[1:], *args]}
    return _json({"mcpServers": {"deliverables": entry}})


def _vscode(command: list[str], args: list[str]) -> str:
    entry = {"type": "stdio", "command": command[0], "args": [*command[1:], *args]}
    return _json({"servers": {"deliverables": entry}})


# Client -> (where the snippet goes, how to build it, whether the client has
# no project folder of its own and so needs --workspace).
_CLIENTS: Final[dict[str, tuple[str, Callable[[list[str], list[str]], str], bool]]] = {
    "claude-code": ("run in a terminal", _claude_code, False),
    "codex": ("~/.codex/config.toml", _codex, False),
    "cursor": ("~/.cursor/mcp.json or .cursor/mcp.json", _mcp_servers, False),
    "vscode": (".vscode/mcp.json", _vscode, False),
    "claude-desktop": ("claude_desktop_config.json", _mcp_servers, True),
}
CLIENTS: Final = tuple(_CLIENTS)


def client_config(client: str, workspace: Path | str | None = None) -> str:
    """The line or snippet that registers the server with ``client``.

    It names the client (``--client``), so the chat labels the agent by what
    the user registered, not by what the client says it is.
    """
    where, build, needs_workspace = _CLIENTS[client]
    args = ["mcp", "--client", client]
    if needs_workspace:
        # Claude Desktop has no project folder: calls work in this one.
        args += ["--workspace", str(workspace or Path.cwd())]
    del where
    return build(installed_command(), args)


def config_location(client: str) -> str:
    return _CLIENTS[client][0]
