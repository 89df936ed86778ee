"""Run the MCP server from the command line, or print a client's registration."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.core.policy import PermissionMode
from app.mcp.clients import client_config, config_location, installed_command
from app.mcp.presenter import Presenter
from app.mcp.workspace import Fallback


def print_config(client: str, workspace: Path | None = None) -> int:
    """Print how ``client`` registers this server, with the installed command."""
    print(f"# {client}: {config_location(client)}", file=sys.stderr)
    print(client_config(client, workspace))
    return 0


def start_window(data_dir: Path, conversation_id: str) -> None:
    """Start the window on ``conversation_id``, detached from this server.

    Its output goes nowhere: this process's stdout is the MCP connection.
    """
    command = [*installed_command(), "open", "--conversation", conversation_id]
    command += ["--data-dir", os.fspath(data_dir)]
    subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def run(
    *,
    data_dir: Path,
    workspace: Path | None,
    mode: PermissionMode,
    open_window: bool,
) -> int:
    """Serve one client over stdio until it closes the connection."""
    import anyio

    from app.core.store import Store
    from app.mcp.server import DeliverablesServer

    store = Store(data_dir)

    def opener(conversation_id: str) -> None:
        start_window(data_dir, conversation_id)

    presenter = Presenter(
        store,
        data_dir,
        mode=mode,
        fallback=Fallback(workspace, Path.cwd()),
        open_window=opener if open_window else None,
    )
    try:
        anyio.run(DeliverablesServer(presenter).run_stdio_async)
    except KeyboardInterrupt:
        pass
    finally:
        store.close()
    return 0
