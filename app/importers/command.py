"""The ``deliverables import`` command: import transcripts, report what was found."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

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
) -> int:
    """Import ``files`` with the ``workspace`` the user confirmed for them (if
    any: the folder a transcript claims is never taken in its place); 0 when
    at least one was imported, else 1."""
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
    with Store(data_dir()) as store:
        return run_import(
            store,
            files,
            as_json=as_json,
            out=sys.stdout,
            err=sys.stderr,
            workspace=workspace,
        )
