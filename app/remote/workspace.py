"""A connected remote workspace: every file operation, as a future, from any thread."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

import asyncssh

from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.records import FileEntry, Record
from app.remote.checks import (
    RemoteCheck,
    check_remote_entry,
    check_remote_path,
    remote_policy,
)
from app.remote.files import (
    LISTING_LIMIT,
    Listing,
    RemoteEntry,
    RemoteIdentity,
    list_folder,
    lstat,
)
from app.remote.paging import RemoteFencedReader
from app.remote.place import Place
from app.remote.present import declare_remote
from app.remote.save import Progress, RemoteCopyResult, save_to_local
from app.remote.snapshot import FencedFile, Snapshot, take_snapshot
from app.ssh.link import Link
from app.ssh.loop import LoopThread

_T = TypeVar("_T")


class RemoteWorkspace:
    """A folder on another host, connected; safe to use from any thread.

    Every method schedules work on the SSH loop thread and returns a
    ``concurrent.futures.Future`` at once: the GUI adds a done-callback that
    emits a queued signal, a worker waits with ``result(timeout)``, and either
    may ``cancel()`` it. Each future fails with ``RemoteError`` (its
    ``failure`` says what kind) or ``SafeOpenError`` (the file itself is
    refused: missing, a link, not regular). Nothing is cached between calls:
    each looks at the server again. ``policy=None`` means "read the policy in
    force now" (built-ins, the user's file, the remote workspace's file).
    """

    def __init__(self, loop: LoopThread, link: Link, place: Place) -> None:
        self._loop = loop
        self._link = link
        self.place = place

    @property
    def address(self) -> str:
        """``ssh://user@host:port/root``, as records store it."""
        return self.place.address

    @property
    def loop(self) -> LoopThread:
        """The SSH loop thread, for readers that wait on it from a worker."""
        return self._loop

    @property
    def link(self) -> Link:
        """The connection, for code that already runs on the loop thread."""
        return self._link

    @property
    def root(self) -> str:
        return self.place.root

    @property
    def home(self) -> str:
        return self.place.home

    def _timeout(self) -> float:
        return self._link.settings.operation_timeout

    def submit(
        self,
        action: Callable[[asyncssh.SFTPClient], Awaitable[_T]],
        what: str,
        timeout: float | None = None,
    ) -> Future[_T]:
        """Run ``action(sftp)`` on the loop; for operations this class lacks."""
        return self._loop.submit(
            self._link.run(action, what),
            timeout=self._timeout() if timeout is None else timeout,
            what=what[:1].upper() + what[1:],
        )

    def call(
        self,
        action: Callable[[asyncssh.SFTPClient], Awaitable[_T]],
        what: str,
        timeout: float | None = None,
    ) -> _T:
        """``submit`` and wait: for worker threads (the agent's), never the GUI."""
        return self._loop.call(
            self._link.run(action, what),
            timeout=self._timeout() if timeout is None else timeout,
            what=what[:1].upper() + what[1:],
        )

    async def _policy(self, sftp: asyncssh.SFTPClient, policy: Policy | None) -> Policy:
        return policy if policy is not None else await remote_policy(sftp, self.place)

    # -- facts and listings ----------------------------------------------------

    def policy(self, user_file: Path | None = None) -> Future[Policy]:
        """The read-deny policy in force for this workspace now."""
        return self.submit(
            lambda sftp: remote_policy(sftp, self.place, user_file=user_file),
            "reading the policy",
        )

    def lstat(self, path: str) -> Future[RemoteIdentity]:
        return self.submit(lambda sftp: lstat(sftp, path), f"looking up {path}")

    def list_folder(
        self,
        path: str,
        *,
        policy: Policy | None = None,
        limit: int = LISTING_LIMIT,
        on_batch: Callable[[tuple[RemoteEntry, ...]], None] | None = None,
    ) -> Future[Listing]:
        """One folder for the lazy tree: entries sorted, denied ones flagged.

        ``on_batch`` gets entries while the folder is still being read (on
        the loop thread: post them to the GUI, as with a done-callback).
        """

        async def run(sftp: asyncssh.SFTPClient) -> Listing:
            rules = await self._policy(sftp, policy)
            return await list_folder(sftp, path, rules, limit, on_batch)

        return self.submit(run, f"listing {path}")

    # -- reading ---------------------------------------------------------------

    def snapshot(
        self, path: str, *, limit: int, expected: RemoteIdentity | None = None
    ) -> Future[Snapshot]:
        """The whole file in memory, one version checked around the read."""
        return self.submit(
            lambda sftp: take_snapshot(sftp, path, limit=limit, expected=expected),
            f"fetching {path}",
            timeout=self._timeout() + limit / (1024 * 1024),
        )

    def open_fenced(
        self, path: str, *, expected: RemoteIdentity | None = None
    ) -> Future[RemoteFencedReader]:
        """A reader for paging a large file; the fence is its identity now."""

        async def run(sftp: asyncssh.SFTPClient) -> RemoteFencedReader:
            opened = await FencedFile.open(sftp, path, expected)
            return RemoteFencedReader(self._loop, self._link, opened)

        return self.submit(run, f"opening {path}")

    def save(
        self,
        path: str,
        target: str,
        *,
        expected: RemoteIdentity,
        progress: Progress | None = None,
        is_cancelled: Callable[[], bool] = lambda: False,
    ) -> Future[RemoteCopyResult]:
        """Stream ``path`` to the local ``target``; a stall, not a clock, ends it."""
        return self._loop.submit(
            save_to_local(
                self._link,
                path,
                target,
                expected=expected,
                progress=progress,
                is_cancelled=is_cancelled,
            ),
            timeout=None,
            what=f"Saving {path}",
        )

    # -- present and revalidation --------------------------------------------

    def present(
        self, arguments: object, *, mode: PermissionMode, policy: Policy | None = None
    ) -> Future[Record]:
        """The ``present`` check here; fails with ``DeclarationError`` as locally."""

        async def run(sftp: asyncssh.SFTPClient) -> Record:
            rules = await self._policy(sftp, policy)
            return await declare_remote(
                sftp, self.place, arguments, mode=mode, policy=rules
            )

        return self.submit(run, "checking the presented files")

    def check_entry(
        self,
        entry: FileEntry,
        *,
        trusted: bool,
        mode: PermissionMode | None = None,
        policy: Policy | None = None,
    ) -> Future[RemoteCheck]:
        """Revalidate a remote record entry now (policy read again unless given)."""

        async def run(sftp: asyncssh.SFTPClient) -> RemoteCheck:
            rules = await self._policy(sftp, policy)
            return await check_remote_entry(
                sftp, self.place, entry, rules, trusted=trusted, mode=mode
            )

        return self.submit(run, f"checking {entry.resolved}")

    def check_path(self, path: str) -> Future[RemoteCheck]:
        """Check a file of the tree now, before an action (the policy read again)."""

        async def run(sftp: asyncssh.SFTPClient) -> RemoteCheck:
            rules = await self._policy(sftp, None)
            return await check_remote_path(sftp, self.place, path, rules)

        return self.submit(run, f"checking {path}")
