"""A failed ``present`` call read back from its tool result, for people to read.

The tool answers the model with the check's JSON (``DeclarationError.to_dict``)
and a line of advice. The chat shows that to a person as one line per entry,
"path — what is wrong", instead of the raw JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from app.core.filetype.sizes import counted
from app.core.trust.declare import (
    DIRECTORY,
    DUPLICATE,
    EMPTY,
    FORBIDDEN,
    INVALID,
    MISSING,
    NOT_REGULAR,
    SYMLINK,
    TOO_MANY,
    UNREADABLE,
)
from app.core.trust.display_names import display_name

REASON_WORDS = {
    MISSING: "not found",
    FORBIDDEN: "refused by the read-deny policy",
    DIRECTORY: "a folder, not a file",
    SYMLINK: "a symbolic link, which is not followed",
    NOT_REGULAR: "not a regular file",
    UNREADABLE: "cannot be read",
    DUPLICATE: "listed twice",
    INVALID: "not a valid entry",
    EMPTY: "no files were given",
    TOO_MANY: "more than 8 files were given",
}


@dataclass(frozen=True)
class FailedEntry:
    path: str
    reason: str
    detail: str


@dataclass(frozen=True)
class PresentFailure:
    """What a failed call said: each failing entry, or one call-level reason."""

    entries: tuple[FailedEntry, ...]
    reason: str | None
    message: str

    def summary(self) -> str:
        if self.entries:
            files = counted(len(self.entries), "file")
            return f"{files} could not be presented; nothing was recorded"
        words = REASON_WORDS.get(self.reason or "", self.message)
        return f"Nothing was presented: {words}"

    def lines(self) -> list[str]:
        """One plain line per failing entry: the path (shown safely) and why."""
        shown = []
        for entry in self.entries:
            words = REASON_WORDS.get(entry.reason, entry.reason)
            detail = f" ({entry.detail})" if entry.detail else ""
            shown.append(f"{display_name(entry.path)} — {words}{detail}")
        return shown

    def text(self) -> str:
        return "\n".join([self.summary(), *("• " + line for line in self.lines())])


@lru_cache(maxsize=256)
def parse_present_failure(result: str) -> PresentFailure | None:
    """The failure a ``present`` result holds, or ``None`` if it is not one."""
    first = result.split("\n", 1)[0].strip()
    if not first.startswith("{"):
        return None
    try:
        data = json.loads(first)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("error"), str):
        return None
    entries = []
    for item in data.get("entries") or []:
        if not isinstance(item, dict):
            continue
        path, reason = item.get("path"), item.get("reason")
        detail = item.get("detail")
        entries.append(
            FailedEntry(
                str(path) if path is not None else "(no path)",
                str(reason or ""),
                detail if isinstance(detail, str) else "",
            )
        )
    reason = data.get("reason")
    return PresentFailure(
        tuple(entries), reason if isinstance(reason, str) else None, data["error"]
    )
