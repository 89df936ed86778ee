"""The ``deliverables`` command: demo, open, view, chat and validate."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from app.core.declare import DeclarationError, declare
from app.core.policy import PermissionMode, PolicyError, load_policy


def _failure(message: str, reason: str = "invalid") -> str:
    return json.dumps({"error": message, "reason": reason, "entries": []})


def _validate(args: argparse.Namespace) -> int:
    """Run the exact ``present`` check on arguments from the command line.

    Exit 0 with the record, 1 when the declaration fails, 2 for a bad workspace
    or policy file (nothing was checked).
    """
    workspace = Path(args.workspace)
    if not workspace.is_dir():
        print(_failure(f"workspace is not a folder: {workspace}"))
        return 2
    try:
        policy = load_policy(
            workspace=workspace,
            user_file=Path(args.policy) if args.policy else None,
        )
    except PolicyError as error:
        print(_failure(str(error)))
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


def _demo(args: argparse.Namespace) -> int:
    from app.agent.demo import play_demo
    from app.cli_text import print_conversation
    from app.core.store import Store

    data_dir = _data_dir(args)
    with Store(data_dir) as store:
        conversation_id = play_demo(store, data_dir / "demo-workspace")
        print_conversation(store, conversation_id, out=sys.stdout)
    return 0


def _data_dir(args: argparse.Namespace) -> Path:
    if args.data_dir:
        path = Path(args.data_dir)
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir("deliverables"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="deliverables",
        description="See, open and keep what AI agents made for you.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="play the built-in demo conversation")
    demo.add_argument("--data-dir", help="where conversations are stored")
    demo.set_defaults(handler=_demo)

    validate = commands.add_parser(
        "validate", help="run the present check on tool arguments; writes nothing"
    )
    validate.add_argument("--workspace", required=True, help="workspace root folder")
    validate.add_argument(
        "--mode",
        choices=[mode.value for mode in PermissionMode],
        default=PermissionMode.WORKSPACE_ONLY.value,
    )
    validate.add_argument("--policy", help="a policy file used instead of the user's")
    validate.add_argument(
        "--args", required=True, help='the tool arguments, e.g. {"files": [...]}'
    )
    validate.set_defaults(handler=_validate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.handler(args)
    return code
