"""The app's SSH side: one loop thread, one connection per host, workspaces."""

from __future__ import annotations

import contextlib
from concurrent.futures import Future

import asyncssh

from app.core.store import Store
from app.core.store.deliverables import DeliverableRef, look_up
from app.core.trust.policy import PermissionMode
from app.core.trust.records import REMOTE_RECORD_VERSION, FileEntry, Record
from app.core.trust.revalidate import Check, Verdict
from app.remote.checks import RemoteCheck, check_remote_entry, remote_policy
from app.remote.files import identity_of, real_path
from app.remote.place import Place
from app.remote.workspace import RemoteWorkspace
from app.ssh.address import AddressError, RemoteAddress, parse_address
from app.ssh.connect import SessionTrust, SshSettings
from app.ssh.errors import Failure, RemoteError
from app.ssh.link import Link
from app.ssh.loop import LoopThread
from app.ssh.prompts import HeadlessPrompter, Prompter

Checked = tuple[RemoteCheck, FileEntry | None, RemoteWorkspace | None]


class RemoteManager:
    """Owns the SSH loop thread and one connection per host; thread-safe.

    Make one per app (or per command) and ``close()`` it at exit. The
    ``prompter`` answers host-key and password questions; the default one
    refuses them, for the command line.
    """

    def __init__(
        self, settings: SshSettings | None = None, prompter: Prompter | None = None
    ) -> None:
        self.settings = settings if settings is not None else SshSettings()
        self._prompter = prompter if prompter is not None else HeadlessPrompter()
        self._loop = LoopThread()
        self._trust = SessionTrust()
        self._links: dict[tuple[str, str | None, int | None], Link] = {}

    def open_workspace(self, address: str | RemoteAddress) -> Future[RemoteWorkspace]:
        """Connect (or reuse the connection) and open the workspace at ``address``.

        Fails with ``RemoteError``: ADDRESS, UNREACHABLE, TIMEOUT (network
        time only; time spent waiting for the user is not counted), AUTH,
        HOST_KEY_UNKNOWN, HOST_KEY_CHANGED, FILE when the folder is not one.
        """
        try:
            parsed = (
                address
                if isinstance(address, RemoteAddress)
                else parse_address(address)
            )
        except AddressError as error:
            failed: Future[RemoteWorkspace] = Future()
            failed.set_exception(RemoteError(Failure.ADDRESS, str(error)))
            return failed
        return self._loop.submit(
            self._open(parsed), timeout=None, what=f"Connecting to {parsed.host}"
        )

    def _link(self, address: RemoteAddress) -> Link:
        key = (address.host, address.user, address.port)
        link = self._links.get(key)
        if link is None:
            link = Link(
                address.host,
                address.user,
                address.port,
                settings=self.settings,
                prompter=self._prompter,
                trust=self._trust,
            )
            self._links[key] = link
        return link

    async def _open(self, address: RemoteAddress) -> RemoteWorkspace:
        link = self._link(address)
        sftp = await link.sftp()
        try:
            root = await real_path(sftp, address.path)
            kind = identity_of(await sftp.stat(root))
            home = link.home or "/"
            owner = None if home == "/" else (await sftp.stat(home)).uid
        except asyncssh.SFTPError as error:
            raise RemoteError(
                Failure.FILE,
                f"{address.path} on {address.host} cannot be opened: {error}",
            ) from error
        except OSError as error:  # SafeOpenError: missing or refused
            raise RemoteError(
                Failure.FILE, f"{address.path} on {address.host}: {error}"
            ) from error
        if not kind.is_folder:
            raise RemoteError(
                Failure.FILE, f"{address.path} on {address.host} is not a folder."
            )
        target = link.target
        assert target is not None
        place = Place(target.user, address.host, target.port, root, home, owner)
        return RemoteWorkspace(self._loop, link, place)

    def check_deliverable(
        self, store: Store, ref: DeliverableRef, *, mode: PermissionMode | None = None
    ) -> Future[Checked]:
        """Revalidate a remote card's file: record, host, policy and file, all now.

        The record is read again from the store (trusted and of this
        conversation, as for a local card); the workspace it names is
        connected; the policy is read again there.
        """
        return self._loop.submit(
            self._check(store, ref, mode), timeout=None, what="Checking the file"
        )

    async def _check(
        self, store: Store, ref: DeliverableRef, mode: PermissionMode | None
    ) -> Checked:
        lookup = look_up(store, ref)
        entry, record = lookup.entry, lookup.record
        if entry is None or not isinstance(record, Record):
            reason = "no trusted record of this file exists in this conversation"
            return RemoteCheck(Check(Verdict.UNTRUSTED, reason)), None, None
        if record.version != REMOTE_RECORD_VERSION or entry.remote is None:
            reason = "this record names a file on this computer, not a remote one"
            return RemoteCheck(Check(Verdict.UNTRUSTED, reason)), entry, None
        try:
            address = parse_address(record.workspace)
        except AddressError as error:
            raise RemoteError(Failure.ADDRESS, str(error)) from error
        workspace = await self._open(address)
        sftp = await workspace.link.sftp()
        policy = await remote_policy(sftp, workspace.place)
        check = await check_remote_entry(
            sftp, workspace.place, entry, policy, trusted=lookup.trusted, mode=mode
        )
        return check, entry, workspace

    def close(self) -> None:
        """Close every connection and stop the loop thread."""

        async def close_all() -> None:
            for link in self._links.values():
                await link.close()

        future = self._loop.submit(close_all(), timeout=5.0, what="Closing connections")
        try:
            # Closing is best effort: the loop stops whatever the hosts say.
            with contextlib.suppress(Exception):
                future.result(7.0)
        finally:
            self._loop.close()
