"""Revalidation before every action: trusted record, same file, still allowed.

Each check is a function of a record's entry, the policy and the file now; it
reads no store. ``app.core.store.deliverables`` reads a card's record again and
hands its entry here. A file chosen in the tree has no record: ``check_path``
gives it the same refusals.
"""

from __future__ import annotations

import os
import stat

from app.core.trust.display_names import display_name
from app.core.trust.paths import is_within, resolve_keep_leaf
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.records import FileEntry
from app.core.trust.safeio import Identity, SafeOpenError, VerifiedFile, open_verified
from app.core.trust.verdicts import Check as Check
from app.core.trust.verdicts import Verdict as Verdict
from app.core.trust.verdicts import (
    access_check,
    open_verdict,
    opened_check,
    version_check,
)


def entry_identity(entry: FileEntry) -> Identity:
    return Identity(entry.device, entry.inode, entry.size, entry.mtime_ns)


def open_entry(
    entry: FileEntry,
    policy: Policy,
    *,
    trusted: bool,
    mode: PermissionMode | None = None,
) -> tuple[Check, VerifiedFile | None]:
    """Check ``entry`` now and, if allowed, return the open file to act on.

    The caller owns the returned file and must close it. Reads must go through
    it: the descriptor is what was checked, the path may have changed since.
    """
    if not trusted:
        return Check(Verdict.UNTRUSTED, "the record was not written by this app"), None
    if entry.remote is not None:
        # Its path names a file on another host; whatever sits at that path
        # here is another file, and must never be opened in its place.
        reason = (
            f"it is on {entry.remote.host}; a remote file is checked over SSH, "
            "never on this computer"
        )
        return Check(Verdict.DENIED, reason), None
    inside = entry.scope != "external"
    refused = access_check(policy, (entry.resolved,), inside=inside, mode=mode)
    if refused is not None:
        return refused, None
    try:
        opened = open_verified(entry.resolved)
    except SafeOpenError as error:
        return Check(open_verdict(error.reason), str(error)), None
    check = _judge_opened(entry, policy, opened)
    if not check.allowed:
        opened.close()
        return check, None
    return check, opened


def _judge_opened(entry: FileEntry, policy: Policy, opened: VerifiedFile) -> Check:
    refused = opened_check(policy, entry.resolved, opened.real_path, opened.identity)
    if refused is not None:
        return refused
    recorded = entry_identity(entry)
    return version_check(
        unchanged=opened.identity == recorded,
        same_file=opened.identity.same_file(recorded),
        identity=opened.identity,
    )


def revalidate(
    entry: FileEntry,
    policy: Policy,
    *,
    trusted: bool,
    mode: PermissionMode | None = None,
) -> Check:
    """Return the verdict for ``entry`` now, opening nothing beyond the check."""
    check, opened = open_entry(entry, policy, trusted=trusted, mode=mode)
    if opened is not None:
        opened.close()
    return check


def peek(
    entry: FileEntry,
    policy: Policy,
    *,
    trusted: bool,
    mode: PermissionMode | None = None,
) -> Check:
    """The verdict for ``entry`` from metadata alone: lstat, its folders, policy.

    For the badge a card shows before anyone acts; it never opens the file, so
    a swap it cannot see is still caught by the full check at the action.
    """
    if not trusted:
        return Check(Verdict.UNTRUSTED, "the record was not written by this app")
    if entry.remote is not None:
        return Check(Verdict.DENIED, f"it is on {entry.remote.host}")
    inside = entry.scope != "external"
    refused = access_check(policy, (entry.resolved,), inside=inside, mode=mode)
    if refused is not None:
        return refused
    try:
        status = os.lstat(entry.resolved)
    except FileNotFoundError:
        return Check(Verdict.MISSING, "it no longer exists")
    except OSError as error:
        return Check(Verdict.DENIED, f"it cannot be read: {error.strerror}")
    if stat.S_ISLNK(status.st_mode):
        return Check(Verdict.SYMLINK, "it is a symbolic link now")
    if not stat.S_ISREG(status.st_mode):
        return Check(Verdict.NOT_REGULAR, "it is not a regular file now")
    folder, name = os.path.split(entry.resolved)
    real = os.path.join(os.path.realpath(folder), name)
    if real != entry.resolved:
        return Check(Verdict.SYMLINK, "a folder on its path now leads somewhere else")
    identity = Identity.of(status)
    recorded = entry_identity(entry)
    if identity == recorded:
        return Check(Verdict.OK, "unchanged since it was presented", identity)
    if not identity.same_file(recorded):
        return Check(Verdict.CHANGED, "it was replaced by another file", identity)
    return Check(Verdict.CHANGED, "it was modified since it was presented", identity)


def open_refusal(path: str, reason: str) -> str:
    """The sentence that says a file was not opened, and why."""
    name = display_name(os.path.basename(path) or path)
    return f"Cannot open {name}: {reason}."


def check_path(
    path: str,
    policy: Policy,
    *,
    root: str | None,
    mode: PermissionMode | None = None,
) -> tuple[Check, VerifiedFile | None]:
    """Check a file no record vouches for (chosen in the tree) and open it.

    The same refusals as a deliverable's, without a presented version to
    compare with: the policy on the path as given and as it resolves, the
    permission mode for a file outside ``root``, a safe open that refuses a
    final symlink, anything not regular and a folder swapped meanwhile. The
    caller owns the returned file and must close it.
    """
    given = os.path.abspath(path)
    resolved = resolve_keep_leaf(given)
    inside = bool(root) and is_within(resolved, os.path.realpath(root or ""))
    refused = access_check(policy, (resolved, given), inside=inside, mode=mode)
    if refused is not None:
        return refused, None
    try:
        opened = open_verified(resolved)
    except SafeOpenError as error:
        return Check(open_verdict(error.reason), str(error)), None
    refused = opened_check(policy, resolved, opened.real_path)
    if refused is not None:
        opened.close()
        return refused, None
    return Check(Verdict.OK, "readable now", opened.identity), opened
