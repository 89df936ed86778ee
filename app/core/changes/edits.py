"""Recording a host edit: what a file held just before, and what was written."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Final

from app.core.changes.change import (
    MAX_TEXT_BEFORE,
    Before,
    BeforeState,
    FileChange,
    Operation,
    count_lines,
    sha256_hex,
    text_of,
)
from app.core.changes.diffs import Diff, diff_texts
from app.core.changes.line_match import CompareBudget
from app.core.trust.safeio import Identity, SafeOpenError, open_verified_at

# Texts up to this size get their lines added and removed counted as the write
# is recorded, the way the diff view will show them; past it the count would
# cost more than the write, and the row says "before → after lines" instead.
COUNT_LIMIT: Final = 16 << 10
# Counting runs inside the agent's write: a tenth of a diff view's budget.
COUNT_BUDGET: Final = CompareBudget(work=200_000)


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def read_before(folder_fd: int, name: str) -> BeforeState:
    """The file ``name`` in the open folder as it is now, read within the limit.

    Opened like every other read (no final symlink, regular files only), and
    read only when it is small enough to keep: a large file costs one fstat.
    """
    try:
        opened = open_verified_at(folder_fd, name)
    except SafeOpenError as error:
        if error.reason == "missing":
            return BeforeState.absent()
        # A link or a non-file: the write itself will refuse it.
        return BeforeState.unknown()
    with opened:
        size = opened.identity.size
        if size > MAX_TEXT_BEFORE:
            return BeforeState.of_bytes(b"", size)
        try:
            data = opened.read(MAX_TEXT_BEFORE + 1)
        except OSError:
            return BeforeState.unknown()
    return BeforeState.of_bytes(data, max(size, len(data)))


def describe_write(
    given: str,
    resolved: str,
    before: BeforeState,
    data: bytes,
    identity: Identity,
    *,
    tool: str,
    clock: Callable[[], str] = _utc_now,
) -> FileChange:
    """The change a write of ``data`` over ``before`` made.

    Hashes the bytes the caller already holds; nothing is read back.
    """
    created = before.before is Before.ABSENT
    added = removed = None
    if (
        not created
        and before.text is not None
        and len(before.text) <= COUNT_LIMIT
        and len(data) <= COUNT_LIMIT
        and (after := text_of(data)) is not None
    ):
        counted = diff_texts(given, before.text, after, context=0, budget=COUNT_BUDGET)
        if isinstance(counted, Diff):  # else too costly to count while writing
            added, removed = counted.added, counted.removed
    return FileChange(
        path=given,
        resolved=resolved,
        operation=Operation.CREATED if created else Operation.MODIFIED,
        tool=tool,
        changed_at=clock(),
        before=before.before,
        size_before=before.size,
        size_after=len(data),
        lines_before=0 if created else before.lines,
        lines_after=count_lines(data),
        lines_added=added,
        lines_removed=removed,
        sha256_after=sha256_hex(data),
        device=identity.device,
        inode=identity.inode,
        mtime_ns=identity.mtime_ns,
        text_before=before.text,
    )
