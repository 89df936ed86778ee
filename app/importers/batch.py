"""Importing several transcripts in a row: each outcome a sentence, cancellable."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from app.core.filetype.sizes import counted
from app.core.store import Store, StoreError
from app.core.store.import_store import ImportConflictError
from app.core.trust.display_names import display_name
from app.core.trust.import_workspace import WorkspaceChoiceError
from app.importers.session import ImportSummary, NotImportableError, import_transcript


class ImportCancelledError(Exception):
    """The user cancelled; raised from the progress callback between lines."""


@dataclass(frozen=True)
class ImportOutcome:
    """What became of one transcript: imported (``summary``) or why not."""

    path: str
    summary: ImportSummary | None
    problem: str | None

    @property
    def sentence(self) -> str:
        name = display_name(os.path.basename(self.path))
        if self.summary is not None:
            s = self.summary
            turns, files = counted(s.turns, "turn"), counted(s.files, "file")
            said = f"{name}: imported as “{s.title}”, {turns}, {files}."
            if not s.workspace:
                said += " No workspace: choose one in the window to verify its files."
            return said
        return f"{name}: not imported: {self.problem}."


def import_all(
    store: Store,
    paths: Sequence[str],
    *,
    workspaces: Mapping[str, str | None] | None = None,
    on_progress: Callable[[int, int, int], None] | None = None,
    cancelled: threading.Event | None = None,
) -> list[ImportOutcome]:
    """Import ``paths`` one after another; a failure is an outcome, never a raise.

    ``workspaces`` holds the folder the user confirmed for a path (none: it
    is imported without one). ``on_progress(file_index, done_bytes,
    total_bytes)`` reports the current file; ``cancelled`` stops the import at
    the next line, and the files not reached are reported as not imported.
    """
    confirmed = workspaces or {}
    outcomes: list[ImportOutcome] = []
    for index, path in enumerate(paths):
        if cancelled is not None and cancelled.is_set():
            outcomes.append(ImportOutcome(path, None, "the import was cancelled"))
            continue

        def progress(done: int, total: int, index: int = index) -> None:
            if cancelled is not None and cancelled.is_set():
                raise ImportCancelledError
            if on_progress is not None:
                on_progress(index, done, total)

        try:
            summary = import_transcript(
                store, path, workspace=confirmed.get(path), on_progress=progress
            )
        except ImportCancelledError:
            outcomes.append(
                ImportOutcome(
                    path,
                    None,
                    "the import was cancelled; import it again to finish it",
                )
            )
        except (NotImportableError, ImportConflictError, WorkspaceChoiceError) as error:
            outcomes.append(ImportOutcome(path, None, str(error).rstrip(".")))
        except (OSError, StoreError) as error:
            reason = error.strerror if isinstance(error, OSError) else str(error)
            outcomes.append(ImportOutcome(path, None, str(reason).rstrip(".")))
        else:
            outcomes.append(ImportOutcome(path, summary, None))
    return outcomes
