"""Before every action on a remote file: the policy in force there, and the file now."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from app.core.trust.paths import is_within
from app.core.trust.policy import (
    MAX_POLICY_FILE,
    WORKSPACE_POLICY_NAME,
    PermissionMode,
    Policy,
    current_policy,
)
from app.core.trust.records import FileEntry
from app.core.trust.safeio import SafeOpenError
from app.core.trust.verdicts import (
    Check,
    Verdict,
    access_check,
    denied_by,
    open_verdict,
    version_check,
)
from app.remote.files import LOST_SFTP, RemoteIdentity, identity_of
from app.remote.place import Place
from app.remote.snapshot import read_exactly, regular_identity


async def _workspace_policy_bytes(sftp: asyncssh.SFTPClient, path: str) -> bytes | None:
    """The remote workspace's policy file, bounded; ``None`` when it has none."""
    try:
        attrs = await sftp.stat(path)
    except (asyncssh.SFTPNoSuchFile, asyncssh.SFTPNoSuchPath):
        return None
    # Opening anything else could block the server (a FIFO) or read forever.
    if not identity_of(attrs).is_regular:
        raise ValueError(f"{path} is not a regular file")
    async with await sftp.open(path, "rb") as file:
        data = await read_exactly(file, MAX_POLICY_FILE + 1, 0)
    return data


async def remote_policy(
    sftp: asyncssh.SFTPClient, place: Place, *, user_file: Path | None = None
) -> Policy:
    """The read-deny policy for the remote workspace, read again now.

    Built-in rules, the user's local policy file and the remote workspace's
    own file (read over SFTP; it may only add rules), with the remote home as
    the ``~`` of the rules. Anything that goes wrong denies everything, as the
    local policy door does.
    """
    path = posixpath.join(place.root, WORKSPACE_POLICY_NAME)
    label = place.coordinate(path).url()
    try:
        data = await _workspace_policy_bytes(sftp, path)
    except LOST_SFTP:
        raise
    except (asyncssh.SFTPError, ValueError) as error:
        return Policy.deny_all(f"the workspace policy {label} cannot be read: {error}")
    return current_policy(
        None,
        user_file=user_file,
        home=place.home,
        workspace_policy=(label, data),
    )


@dataclass(frozen=True)
class RemoteCheck:
    """A verdict on a remote file, and its identity now when it could be seen."""

    check: Check
    identity: RemoteIdentity | None = None

    @property
    def allowed(self) -> bool:
        return self.check.allowed


def _recorded(entry: FileEntry) -> RemoteIdentity | None:
    if entry.remote is None:
        return None
    return RemoteIdentity(entry.size, entry.mtime_ns, entry.remote.mode)


async def check_remote_entry(
    sftp: asyncssh.SFTPClient,
    place: Place,
    entry: FileEntry,
    policy: Policy,
    *,
    trusted: bool,
    mode: PermissionMode | None = None,
) -> RemoteCheck:
    """Revalidate a remote record entry now: the remote twin of ``open_entry``.

    Trusted, of this very host and user; allowed by ``policy``; still a
    regular file, not a link, reached through the same real folders; and its
    size, mtime and mode as recorded, else *changed*.
    """
    recorded = _recorded(entry)
    if not trusted:
        return RemoteCheck(
            Check(Verdict.UNTRUSTED, "the record was not written by this app")
        )
    origin = entry.remote
    if recorded is None or origin is None:
        return RemoteCheck(Check(Verdict.UNTRUSTED, "the record names no remote file"))
    if (origin.user, origin.host, origin.port) != (place.user, place.host, place.port):
        reason = "the record names a file on another host or account"
        return RemoteCheck(Check(Verdict.UNTRUSTED, reason))
    inside = is_within(entry.resolved, place.root, sep="/")
    refused = access_check(policy, (entry.resolved,), inside=inside, mode=mode)
    if refused is not None:
        return RemoteCheck(refused)
    try:
        now = await regular_identity(sftp, entry.resolved)
    except SafeOpenError as error:
        return RemoteCheck(Check(open_verdict(error.reason), str(error)))
    # No inode over SFTP: another file at the path reads as this one changed.
    return RemoteCheck(version_check(unchanged=now == recorded, same_file=True), now)


async def check_remote_path(
    sftp: asyncssh.SFTPClient, place: Place, path: str, policy: Policy
) -> RemoteCheck:
    """Check a remote file no record vouches for (chosen in the tree) now.

    The remote twin of ``check_path``: allowed by ``policy`` (asked first, so
    a refusal never tells what a denied path holds), inside the workspace,
    and a regular file, not a link, reached through its real folders. The
    identity it has now is the version an action may use.
    """
    path = posixpath.normpath(path)
    denial = denied_by(policy, [path])
    if denial is not None:
        return RemoteCheck(Check(Verdict.DENIED, denial))
    if not posixpath.isabs(path) or not is_within(path, place.root, sep="/"):
        reason = "it is outside the remote workspace"
        return RemoteCheck(Check(Verdict.DENIED, reason))
    try:
        now = await regular_identity(sftp, path)
    except SafeOpenError as error:
        return RemoteCheck(Check(open_verdict(error.reason), str(error)))
    return RemoteCheck(Check(Verdict.OK, "checked now"), now)
