"""The ``deliverables import`` command: import transcripts, report what was found."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from app.core.channel.files import ChannelError
from app.core.channel.notify import ChangedNotice, MessageError, Reply, send
from app.core.filetype.sizes import counted
from app.core.store import Store
from app.core.store.import_store import ImportConflictError
from app.core.trust.import_workspace import WorkspaceChoiceError, chosen_workspace
from app.importers.discover import transcripts_in
from app.importers.lines import Progress
from app.importers.session import ImportSummary, NotImportableError, import_transcript
from app.ssh.address import is_remote_address


def _progress(name: str, stream: TextIO) -> Progress | None:
    if not stream.isatty():
        return None
    shown = [-1]

    def report(done: int, total: int) -> None:
        percent = 100 * done // total if total else 100
        if percent != shown[0]:
            shown[0] = percent
            stream.write(f"\rImporting {name}: {percent}%")
            stream.flush()
            if done >= total:
                stream.write("\n")

    return report


def expand(paths: Sequence[str]) -> tuple[list[Path], list[str]]:
    """The transcript files the arguments name, and the arguments that name none."""
    files: list[Path] = []
    missing: list[str] = []
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            files.extend(transcripts_in(path))
        elif path.exists():
            files.append(path)
        else:
            missing.append(given)
    return files, missing


def _unconfirmed(summary: ImportSummary) -> str:
    claim = summary.claimed_workspace or "no folder"
    return (
        f"deliverables import: {summary.transcript}: no workspace is confirmed "
        f"(the session says it worked in {claim}), so its files cannot be "
        "verified; import it again with --workspace DIR, or choose the folder "
        "in the window"
    )


def run_import(
    store: Store,
    files: Sequence[Path],
    *,
    as_json: bool,
    out: TextIO,
    err: TextIO,
    workspace: str | None = None,
    announce: Callable[[str], None] | None = None,
) -> int:
    """Import ``files`` with the ``workspace`` the user confirmed for them (if
    any: the folder a transcript claims is never taken in its place); 0 when
    at least one was imported, else 1. ``announce`` gets each new
    conversation's id as soon as it is stored."""
    imported: list[ImportSummary] = []
    skipped = malformed = 0
    for path in files:
        try:
            summary = import_transcript(
                store,
                str(path),
                workspace=workspace,
                on_progress=_progress(path.name, err),
            )
        except (NotImportableError, ImportConflictError) as error:
            stats = getattr(error, "stats", None)
            if stats is not None:
                skipped += stats.skipped
                malformed += stats.malformed
            print(f"deliverables import: {path}: not imported: {error}", file=err)
            continue
        imported.append(summary)
        if announce is not None:
            announce(summary.conversation_id)
        if not summary.workspace:
            print(_unconfirmed(summary), file=err)
        skipped += summary.skipped_lines
        malformed += summary.malformed_lines
    if as_json:
        conversations = [
            {
                "id": s.conversation_id,
                "title": s.title,
                "turns": s.turns,
                "files": s.files,
                "workspace": s.workspace or None,
                "claimed_workspace": s.claimed_workspace or None,
            }
            for s in imported
        ]
        report = {
            "conversations": conversations,
            "skipped_lines": skipped,
            "malformed_lines": malformed,
        }
        print(json.dumps(report, ensure_ascii=False), file=out)
    else:
        for s in imported:
            print(
                f"Imported {s.title!r} from {s.transcript}: "
                f"{counted(s.turns, 'turn')}, {counted(s.files, 'file')} "
                f"(conversation {s.conversation_id})",
                file=out,
            )
        if skipped or malformed:
            print(
                f"Skipped {counted(skipped, 'line')} of unknown types and "
                f"{counted(malformed, 'malformed line')}.",
                file=out,
            )
    return 0 if imported else 1


def main(
    data_dir: Callable[[], Path],
    paths: Sequence[str],
    *,
    as_json: bool,
    workspace: str | None = None,
) -> int:
    """Exit 0 imported, 1 nothing importable, 2 for paths that do not exist or
    a ``workspace`` that is no folder."""
    if workspace is not None:
        try:
            if is_remote_address(workspace):
                raise WorkspaceChoiceError(
                    "an imported session's files are checked on this computer: "
                    "give a local folder"
                )
            workspace = chosen_workspace(os.path.abspath(workspace))
        except WorkspaceChoiceError as error:
            print(f"deliverables import: --workspace: {error}", file=sys.stderr)
            return 2
    files, missing = expand(paths)
    if missing:
        for given in missing:
            print(
                f"deliverables import: no such file or folder: {given}", file=sys.stderr
            )
        return 2
    if not files:
        print(
            "deliverables import: no session transcripts found there", file=sys.stderr
        )
        return 1
    folder = data_dir()
    with Store(folder) as store:
        return run_import(
            store,
            files,
            as_json=as_json,
            out=sys.stdout,
            err=sys.stderr,
            workspace=workspace,
            announce=_window_teller(folder, sys.stderr),
        )


def _window_teller(data_dir: Path, err: TextIO) -> Callable[[str], None]:
    """Tell a window open on this store about each imported conversation.

    The same notice an MCP presentation sends: the window rereads the store
    and shows the conversation, as it does for an agent's. The import never
    depends on it: a window that is not open shows it at its next start.
    """
    warned = False

    def tell(conversation_id: str) -> None:
        nonlocal warned
        try:
            reply = send(data_dir, ChangedNotice(conversation_id))
        except (ChannelError, MessageError, OSError) as error:
            reply = Reply(False, str(error))
        if reply is not None and not reply.accepted and not warned:
            warned = True
            print(f"deliverables import: window not told: {reply.error}", file=err)

    return tell
