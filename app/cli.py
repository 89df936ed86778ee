"""The ``deliverables`` command: demo, open, view, chat, validate and import."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.trust.policy import MODE_HELP, PermissionMode, current_policy
from app.mcp.main import add_mcp_command

if TYPE_CHECKING:
    from app.core.store import Store
    from app.ssh.prompts import HeadlessPrompter
    from app.ui.window.main_window import MainWindow
    from app.ui.window.view_outcome import ViewOutcome
    from previewers.widget import PreviewWidget


def _failure(message: str, reason: str = "invalid") -> str:
    return json.dumps({"error": message, "reason": reason, "entries": []})


def _validate(args: argparse.Namespace) -> int:
    """Run the exact ``present`` check on arguments from the command line.

    Exit 0 with the record, 1 when the declaration fails, 2 for a bad workspace
    or policy file (nothing was checked). An ``ssh://`` workspace is checked
    over SFTP, with the same codes and JSON.
    """
    from app.core.trust.declare import DeclarationError, declare
    from app.ssh.address import is_remote_address

    if is_remote_address(args.workspace):
        return _validate_remote(args)
    workspace = Path(args.workspace)
    if not workspace.is_dir():
        print(_failure(f"workspace is not a folder: {workspace}"))
        return 2
    policy = current_policy(
        workspace, user_file=Path(args.policy) if args.policy else None
    )
    if policy.problem is not None:
        # A policy that could not load denies everything: nothing was checked.
        print(_failure(policy.problem))
        return 2
    try:
        arguments = json.loads(args.args)
    except (ValueError, RecursionError) as error:
        print(_failure(f"--args is not JSON: {error}"))
        return 1
    try:
        record = declare(
            arguments,
            workspace=workspace,
            mode=PermissionMode(args.mode),
            policy=policy,
        )
    except DeclarationError as error:
        print(json.dumps(error.to_dict(), ensure_ascii=False, indent=2))
        return 1
    print(record.to_json())
    return 0


def _validate_remote(args: argparse.Namespace) -> int:
    from app.core.trust.declare import DeclarationError
    from app.remote.manager import RemoteManager
    from app.ssh.errors import RemoteError
    from app.ssh.prompts import HeadlessPrompter

    # Headless: a host key must already be in known_hosts (or be the one the
    # user confirmed with --accept-host-key), and only keys and the ssh agent
    # log in; anything else is refused with what to do.
    prompter = HeadlessPrompter(args.accept_host_key)
    manager = RemoteManager(prompter=prompter)
    try:
        try:
            workspace = manager.open_workspace(args.workspace).result(300)
            user_file = Path(args.policy) if args.policy else None
            policy = workspace.policy(user_file).result(60)
        except RemoteError as error:
            print(_failure(_with_host_key_hint(str(error), prompter, args)))
            return 2
        if policy.problem is not None:
            print(_failure(policy.problem))
            return 2
        try:
            arguments = json.loads(args.args)
        except (ValueError, RecursionError) as error:
            print(_failure(f"--args is not JSON: {error}"))
            return 1
        try:
            record = workspace.present(
                arguments, mode=PermissionMode(args.mode), policy=policy
            ).result(60)
        except DeclarationError as error:
            print(json.dumps(error.to_dict(), ensure_ascii=False, indent=2))
            return 1
        except RemoteError as error:
            print(_failure(str(error)))
            return 2
    finally:
        manager.close()
    print(record.to_json())
    return 0


def _with_host_key_hint(
    message: str, prompter: HeadlessPrompter, args: argparse.Namespace
) -> str:
    """``message``, and how to accept the unknown key it names from here."""
    if not prompter.refused:
        return message
    shown = prompter.refused[-1].fingerprint
    if args.accept_host_key is not None:
        return (
            f"{message} The fingerprint given, {args.accept_host_key}, is not the "
            "one the server shows; nothing was stored."
        )
    return (
        f"{message} Once checked, accept it with --accept-host-key {shown} "
        "(it is added to known_hosts)."
    )


def _data_dir(args: argparse.Namespace) -> Path:
    if args.data_dir:
        path = Path(args.data_dir).expanduser()
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir("deliverables"))
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def _demo(args: argparse.Namespace) -> int:
    """Build the demo workspace, play the scripted turns, open the window on them."""
    from app.core.store import Store
    from app.demo.conversation import play_demo

    data_dir = _data_dir(args)
    store = Store(data_dir)
    conversation_id = play_demo(store, data_dir / "demo-workspace")
    return _run_window(args, store, data_dir, conversation_id=conversation_id)


def _handed_over(args: argparse.Namespace, data_dir: Path, request: object) -> bool:
    """Whether a window already showing this store took the request."""
    if args.screenshot:
        return False  # a screenshot is of a window of its own
    from app.ui.window.single_instance import hand_over

    return hand_over(data_dir, request)


def _open(args: argparse.Namespace) -> int:
    """Open the window on the stored conversations, or raise the one that is open."""
    from app.core.channel.notify import OpenRequest
    from app.core.store import Store

    data_dir = _data_dir(args)
    if _handed_over(args, data_dir, OpenRequest(args.conversation)):
        return 0
    store = Store(data_dir)
    conversation_id = args.conversation
    if conversation_id is None:
        conversations = store.conversations()
        conversation_id = conversations[-1].id if conversations else None
    else:
        try:
            store.conversation(conversation_id)
        except KeyError:
            print(f"deliverables: no conversation {conversation_id!r}", file=sys.stderr)
            return 2
    return _run_window(args, store, data_dir, conversation_id=conversation_id)


def _view(args: argparse.Namespace) -> int:
    """Open files straight into the read-only workspace.

    With no file (the application menu starts ``view %F`` with none), open
    the window on the stored conversations instead.
    """
    from app.core.channel.notify import ViewRequest
    from app.core.store import Store

    if not args.paths:
        args.conversation = None
        return _open(args)
    data_dir = _data_dir(args)
    paths = [os.path.abspath(p) for p in args.paths]
    workspace = Path(args.workspace).resolve() if args.workspace else None
    if workspace is None:
        workspace = Path(os.path.commonpath([os.path.dirname(p) for p in paths]))
    request = ViewRequest(tuple(paths), os.fspath(workspace))
    if not args.screenshot:
        # Checked here too, so a refusal reaches the terminal (and the exit
        # code) even when a running window takes the files.
        refusals = view_refusals(paths, workspace)
        if len(refusals) == len(paths):
            _print_refusals(refusals)  # nothing to show: no window opens
            return 1
        if _handed_over(args, data_dir, request):
            _print_refusals(refusals)
            return 1 if refusals else 0
    return _run_window(args, Store(data_dir), data_dir, view=(paths, workspace))


def view_refusals(paths: Sequence[str], workspace: Path) -> list[str]:
    """Why each of ``paths`` would not be shown by a viewer (none: all would)."""
    from app.core.trust.revalidate import check_path, open_refusal

    policy = current_policy(workspace)
    refusals: list[str] = []
    for path in paths:
        check, opened = check_path(path, policy, root=os.fspath(workspace))
        if opened is None:
            refusals.append(open_refusal(path, check.reason))
        else:
            opened.close()
    return refusals


def _print_refusals(refusals: Sequence[str]) -> None:
    for refusal in refusals:
        print(f"deliverables: {refusal}", file=sys.stderr)


def _chat(args: argparse.Namespace) -> int:
    """Start a conversation with a live model in ``--workspace``."""
    from app.core.store import Store
    from app.ssh.address import is_remote_address

    if is_remote_address(args.workspace):
        return _chat_remote(args)
    workspace = Path(args.workspace).resolve()
    if not workspace.is_dir():
        print(f"deliverables: workspace is not a folder: {workspace}", file=sys.stderr)
        return 2
    data_dir = _data_dir(args)
    store = Store(data_dir)
    conversation = store.create_conversation(
        f"Chat in {workspace.name}", str(workspace)
    )
    return _run_window(
        args,
        store,
        data_dir,
        conversation_id=conversation.id,
        model_spec=args.model,
        mode=PermissionMode(args.mode),
    )


def _import(args: argparse.Namespace) -> int:
    """Import Claude Code sessions and Codex rollouts as conversations."""
    from app.importers.command import main as import_main

    return import_main(
        lambda: _data_dir(args), args.paths, as_json=args.json, workspace=args.workspace
    )


def _chat_remote(args: argparse.Namespace) -> int:
    """Open the window and connect to the ``ssh://`` workspace through its dialog.

    The dialog asks for host keys and passwords, shows what it waits for and
    can be cancelled; once connected, a new conversation starts there.
    """
    from app.core.store import Store
    from app.ssh.address import AddressError, parse_address

    try:
        parse_address(args.workspace)
    except AddressError as error:
        print(f"deliverables: this address cannot be used: {error}", file=sys.stderr)
        return 2
    data_dir = _data_dir(args)
    store = Store(data_dir)
    return _run_window(
        args,
        store,
        data_dir,
        model_spec=args.model,
        mode=PermissionMode(args.mode),
        remote=args.workspace,
    )


def _run_window(
    args: argparse.Namespace,
    store: Store,
    data_dir: Path,
    *,
    conversation_id: str | None = None,
    view: tuple[list[str], Path] | None = None,
    model_spec: str | None = None,
    mode: PermissionMode = PermissionMode.WORKSPACE_ONLY,
    remote: str | None = None,
) -> int:
    from app.ui.channel.live_updates import LiveUpdates
    from app.ui.window.application import DisplayUnavailableError, create_application
    from app.ui.window.main_window import MainWindow
    from app.ui.window.screenshot import (
        screenshot_at_first_paint,
        screenshot_when_loaded,
    )

    try:
        app = create_application()
    except DisplayUnavailableError as error:
        print(f"deliverables: {error}", file=sys.stderr)
        return 2
    window = MainWindow(store, data_dir, model_spec=model_spec, mode=mode)
    # Other agents' presentations (deliverables mcp) and later open/view
    # commands reach this window; a screenshot run takes part in neither.
    live = None if args.screenshot else LiveUpdates(window, store, data_dir)
    if live is not None:
        live.listen()
    window.refresh_conversations()
    if conversation_id is not None:
        window.show_conversation(conversation_id)
    outcome = None
    is_loaded = window.is_loaded
    if view is not None:
        # Before the window shows: a viewer never flashes a conversation.
        outcome = _watch_view(window, *view)
        watched = outcome

        def is_loaded() -> bool:
            # Every file asked for, not only the tab in front: a failure in
            # a tab behind it decides the exit code too.
            return window.is_loaded() and watched.settled()

    if outcome is not None and view is not None and _refused_all(args, outcome, view):
        # The window refused every file too (one gone since the command
        # checked it): nothing to show, so no window, as for the command.
        code = 1
    else:
        if args.screenshot and args.first_paint:
            screenshot_at_first_paint(window, Path(args.screenshot))
        window.show()
        if remote is not None:
            window.open_remote_workspace(remote)
        if args.screenshot and not args.first_paint:
            screenshot_when_loaded(
                window, Path(args.screenshot), is_loaded, args.wait_ms
            )
        code = app.exec()
    if code == 0 and outcome is not None and not outcome.all_shown():
        code = 1
    if live is not None:
        live.close()
    window.close()
    # Previews free their pages and web profiles with deferred deletes, page
    # first; run those now, while Qt still exists, not at interpreter exit.
    from PySide6.QtCore import QCoreApplication, QEvent

    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        app.processEvents()
    store.close()
    return int(code)


def _refused_all(
    args: argparse.Namespace, outcome: ViewOutcome, view: tuple[list[str], Path]
) -> bool:
    """Whether no file asked for reached a tab (a screenshot shows the refusal)."""
    return not args.screenshot and len(outcome.not_shown) >= len(view[0])


def _watch_view(window: MainWindow, paths: list[str], workspace: Path) -> ViewOutcome:
    """Open ``paths`` in ``window`` and follow them until each is shown or not.

    Why a file was not shown goes to standard error as soon as it is known:
    a refusal at once, a preview that fails to load when it fails.
    """
    from app.ui.window.view_outcome import ViewOutcome

    def report(sentence: str) -> None:
        print(f"deliverables: {sentence}", file=sys.stderr, flush=True)

    shown: list[PreviewWidget] = []
    refusals = window.view_files(paths, workspace, on_shown=shown.append)
    outcome = ViewOutcome(refusals, report, window)
    for preview in shown:
        outcome.watch(preview)
    return outcome


def _add_window_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", help="where conversations are stored")
    parser.add_argument(
        "--screenshot",
        metavar="FILE.png",
        help="save a PNG of the window once the active view has loaded, then exit",
    )
    parser.add_argument(
        "--wait-ms",
        type=int,
        default=10_000,
        help="longest wait for loading before the screenshot (default 10000)",
    )
    parser.add_argument(
        "--first-paint",
        action="store_true",
        help="take the screenshot at the window's first paint, not once loaded "
        "(for timing a start; the PNG notes when the paint was done)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="deliverables",
        description="See, open and keep what AI agents made for you.",
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="show the version and exit"
    )
    # Not required: a bare ``deliverables`` shows this help, not an error.
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = _add_command(
        commands, "demo", "build the demo workspace, play the demo and open the window"
    )
    _add_window_options(demo)
    demo.set_defaults(handler=_demo)

    open_ = _add_command(commands, "open", "open the window on stored conversations")
    _add_window_options(open_)
    open_.add_argument("--conversation", help="the conversation to show (its id)")
    open_.set_defaults(handler=_open)

    view = _add_command(
        commands, "view", "open files straight into the read-only workspace"
    )
    _add_window_options(view)
    view.add_argument(
        "paths", nargs="*", metavar="PATH", help="files to show (none: as open)"
    )
    view.add_argument("--workspace", help="the folder shown in the file tree")
    view.set_defaults(handler=_view)

    chat = _add_command(commands, "chat", "chat with a live model in a workspace")
    _add_window_options(chat)
    chat.add_argument(
        "--model", required=True, help="provider:model, e.g. ollama:llama3.2"
    )
    chat.add_argument(
        "--workspace",
        required=True,
        help="the agent's workspace folder, or ssh://[user@]host[:port]/absolute/path",
    )
    chat.add_argument(
        "--mode",
        choices=[mode.value for mode in PermissionMode],
        default=PermissionMode.WORKSPACE_ONLY.value,
        help=MODE_HELP,
    )
    chat.set_defaults(handler=_chat)

    add_mcp_command(commands, _data_dir)

    validate = _add_command(
        commands, "validate", "run the present check on tool arguments; writes nothing"
    )
    validate.add_argument(
        "--workspace",
        required=True,
        help="workspace root folder, or ssh://[user@]host[:port]/absolute/path",
    )
    validate.add_argument(
        "--mode",
        choices=[mode.value for mode in PermissionMode],
        default=PermissionMode.WORKSPACE_ONLY.value,
        help=MODE_HELP,
    )
    validate.add_argument("--policy", help="a policy file used instead of the user's")
    validate.add_argument(
        "--accept-host-key",
        metavar="FINGERPRINT",
        help="for an ssh:// workspace whose host key is not in known_hosts: the "
        "SHA256 fingerprint you checked with the host's administrator; the key "
        "is added to known_hosts only if the server shows exactly this one",
    )
    validate.add_argument(
        "--args", required=True, help='the tool arguments, e.g. {"files": [...]}'
    )
    validate.set_defaults(handler=_validate)

    import_ = _add_command(
        commands, "import", "import Claude Code and Codex sessions as conversations"
    )
    import_.add_argument("--data-dir", help="where conversations are stored")
    import_.add_argument(
        "--json", action="store_true", help="print what was imported as JSON"
    )
    import_.add_argument(
        "--workspace",
        metavar="DIR",
        help="the folder the sessions worked in, confirmed by you: their files "
        "are verified there (without it they cannot be verified until you "
        "choose it in the window; the folder a transcript names is not taken)",
    )
    import_.add_argument(
        "paths", nargs="+", metavar="PATH", help="a transcript, or a folder of them"
    )
    import_.set_defaults(handler=_import)
    return parser


class _VersionAction(argparse.Action):
    """``--version``: the version is looked up only when asked for (reading the
    installed package's metadata costs a start-up that does not need it)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS)
        self.help = str(kwargs.get("help", ""))

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"deliverables {app_version()}")
        parser.exit()


def _add_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str, what: str
) -> argparse.ArgumentParser:
    """A subcommand whose help, like its line in the list, starts with what it does."""
    return commands.add_parser(name, help=what, description=what[0].upper() + what[1:])


DEMO_HINT = "New here? Try: deliverables demo"


def app_version() -> str:
    """The installed version, or the checkout's from its ``pyproject.toml``."""
    from importlib import metadata

    try:
        return metadata.version("deliverables")
    except metadata.PackageNotFoundError:
        import tomllib

        pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            return str(data["project"]["version"])
        except (OSError, KeyError, ValueError):
            return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    from app.core.store import StoreError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        print(f"\n{DEMO_HINT}")
        return 0
    try:
        code: int = args.handler(args)
    except StoreError as error:
        # A damaged or tampered store says what is wrong and what to do.
        print(f"deliverables: {error}", file=sys.stderr)
        return 2
    return code
