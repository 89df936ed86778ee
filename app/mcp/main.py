"""Run the MCP server from the command line, or print a client's registration."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from app.core.trust.policy import MODE_HELP, PermissionMode
from app.mcp.clients import CLIENTS, client_config, config_location
from app.mcp.early import EarlyStart, answer_first_message
from app.mcp.workspace import Fallback

DataDir = Callable[[argparse.Namespace], Path]


def print_config(client: str, workspace: Path | None = None) -> int:
    """Print how ``client`` registers this server, with the installed command."""
    print(f"# {client}: {config_location(client)}", file=sys.stderr)
    print(client_config(client, workspace))
    return 0


def run(
    *,
    data_dir: Path,
    workspace: Path | None,
    mode: PermissionMode,
    open_window: bool,
    client: str | None = None,
    early: EarlyStart | None = None,
) -> int:
    """Serve one client over stdio until it closes the connection.

    ``early`` is what ``answer_first_message`` read and answered before the
    SDK was imported; the SDK's server reads it again.
    """
    from functools import partial

    import anyio

    from app.core.store import Store
    from app.mcp.presenter import Presenter
    from app.mcp.server import DeliverablesServer
    from app.mcp.window import start_window

    store = Store(data_dir)

    def opener(conversation_id: str) -> None:
        start_window(data_dir, conversation_id)

    presenter = Presenter(
        store,
        data_dir,
        mode=mode,
        fallback=Fallback(workspace, Path.cwd()),
        client=client,
        open_window=opener if open_window else None,
    )
    try:
        anyio.run(partial(DeliverablesServer(presenter).run_stdio_async, early))
    except KeyboardInterrupt:
        pass
    finally:
        presenter.close()
        store.close()
    return 0


def add_mcp_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], data_dir: DataDir
) -> None:
    """``deliverables mcp``: its options and handler (``data_dir`` reads --data-dir)."""
    what = "Serve present and show_image to other agents over MCP (stdio)"
    parser = commands.add_parser(
        "mcp", help=what[0].lower() + what[1:], description=what
    )
    parser.add_argument("--data-dir", help="where conversations are stored")
    parser.add_argument(
        "--workspace",
        help="the folder calls work in when the client declares no root, and "
        "the folder its roots must stay inside (default: the current folder)",
    )
    parser.add_argument(
        "--client",
        metavar="NAME",
        help="the client this server is registered with "
        f"({', '.join(CLIENTS)} or a name of yours): the chat names the agent "
        "by it, and folders you approve for it are kept under it",
    )
    parser.add_argument(
        "--mode",
        choices=[mode.value for mode in PermissionMode],
        default=PermissionMode.WORKSPACE_ONLY.value,
        help=MODE_HELP,
    )
    parser.add_argument(
        "--open",
        action="store_true",
        help="start the window on the first presentation if none is open",
    )
    parser.add_argument(
        "--print-config",
        choices=CLIENTS,
        metavar="CLIENT",
        help=f"print how CLIENT registers this server ({', '.join(CLIENTS)})",
    )
    parser.set_defaults(handler=lambda args: _command(args, data_dir))


def _command(args: argparse.Namespace, data_dir: DataDir) -> int:
    workspace = Path(args.workspace).expanduser().resolve() if args.workspace else None
    if workspace is not None and not workspace.is_dir():
        print(f"deliverables: workspace is not a folder: {workspace}", file=sys.stderr)
        return 2
    if args.print_config:
        return print_config(args.print_config, workspace)
    # Before anything heavy is imported: the client's deadline runs. On
    # Windows the SDK's transport reads the first message, as before.
    early = answer_first_message() if os.name == "posix" else None
    return run(
        early=early,
        data_dir=data_dir(args),
        workspace=workspace,
        mode=PermissionMode(args.mode),
        open_window=args.open,
        client=args.client,
    )
