"""The SSH implementation of ``Workspace``: a folder on another host, over SFTP.

Each method runs its whole job on the SSH loop (one round of policy, checks
and reads per call) through ``RemoteWorkspace``; nothing is looked up on the
local disk. Importing this module loads the SSH library: only
``app.workspace.choose`` does, once an ``ssh://`` workspace is opened.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

import asyncssh

from app.core.trust.copying import CopyResult
from app.core.trust.paths import is_within
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.public_files import PublicFile
from app.core.trust.records import FileEntry, Record
from app.core.trust.revalidate import Check
from app.core.trust.safeio import SafeOpenError
from app.core.trust.verdicts import (
    DIRECTORY,
    NOT_REGULAR,
    REGULAR,
    SYMLINK,
    Verdict,
    access_check,
    open_verdict,
    refuse_denied,
    refused,
)
from app.remote import agent_files
from app.remote.checks import (
    RemoteCheck,
    check_remote_entry,
    check_remote_path,
    remote_policy,
)
from app.remote.files import (
    RemoteIdentity,
    lexical_path,
    list_folder,
    lstat,
    real_path,
)
from app.remote.paging import RemoteFencedReader
from app.remote.snapshot import FencedFile, take_snapshot
from app.remote.workspace import RemoteWorkspace
from app.ssh.errors import Failure, RemoteError
from app.workspace.protocol import (
    LISTING_LIMIT,
    UNREADABLE_TARGET,
    Coordinates,
    Entry,
    Listing,
    Native,
    PreviewFile,
    Progress,
    Written,
    never,
)
from app.workspace.ssh_preview import SshPreviewFile

_T = TypeVar("_T")
_U = TypeVar("_U")


def kind_of(identity: RemoteIdentity) -> str:
    """A look-up kind from a remote identity, as the verdicts module names it."""
    if identity.is_symlink:
        return SYMLINK
    if identity.is_folder:
        return DIRECTORY
    return REGULAR if identity.is_regular else NOT_REGULAR


def _then(first: Future[_T], step: Callable[[_T], Future[_U]]) -> Future[_U]:
    """The future of ``step(first's result)``; cancelling it cancels the current one."""
    outcome: Future[_U] = Future()
    current: list[Future[Any]] = [first]

    def on_outcome(done: Future[_U]) -> None:
        if done.cancelled():
            current[0].cancel()

    def on_second(second: Future[_U]) -> None:
        if not outcome.set_running_or_notify_cancel():
            return
        error = None if second.cancelled() else second.exception()
        if second.cancelled():
            outcome.cancel()
        elif error is not None:
            outcome.set_exception(error)
        else:
            outcome.set_result(second.result())

    def on_first(done: Future[_T]) -> None:
        if outcome.cancelled():
            return
        try:
            second = step(done.result())
        except BaseException as error:
            if outcome.set_running_or_notify_cancel():
                outcome.set_exception(error)
            return
        current[0] = second
        second.add_done_callback(on_second)

    outcome.add_done_callback(on_outcome)
    first.add_done_callback(on_first)
    return outcome


class SshWorkspace:
    """A connected folder on an SSH host behind the ``Workspace`` interface."""

    def __init__(self, remote: RemoteWorkspace) -> None:
        self.remote = remote

    @property
    def address(self) -> str:
        return self.remote.address

    @property
    def root(self) -> str:
        return self.remote.root

    @property
    def local_root(self) -> str | None:
        return None  # another host's folder: nothing of it is on this computer

    @property
    def host(self) -> str | None:
        return self.remote.place.host

    @property
    def native(self) -> Native | None:
        return None  # a desktop app here would open a path that is not here

    def _absolute(self, path: str) -> str:
        absolute = posixpath.normpath(posixpath.join(self.root, path))
        if not is_within(absolute, self.root, sep="/"):
            raise SafeOpenError("outside", f"{path} is outside the workspace")
        return absolute

    async def _policy(self, sftp: asyncssh.SFTPClient) -> Policy:
        return await remote_policy(sftp, self.remote.place)

    def policy(self) -> Future[Policy]:
        return self.remote.policy()

    def coordinates(self, path: str) -> Coordinates:
        absolute = posixpath.normpath(posixpath.join(self.root, path))
        coordinate = self.remote.place.coordinate(absolute)
        return Coordinates(absolute, coordinate.url(), coordinate.scp())

    def list(self, path: str = "", *, limit: int = LISTING_LIMIT) -> Future[Listing]:
        async def run(sftp: asyncssh.SFTPClient) -> Listing:
            folder = self._absolute(path)
            real = await real_path(sftp, folder)
            # The folder itself may be a link leading out: list only what is within.
            if not is_within(real, self.root, sep="/"):
                raise SafeOpenError("outside", f"{path} is outside the workspace")
            policy = await self._policy(sftp)
            listing = await list_folder(sftp, real, policy, limit)
            entries = []
            for item in listing.entries:
                kind = kind_of(item.identity)
                target = None
                if kind == SYMLINK and item.denied_by is None:
                    target = await _link_target(sftp, item.path)
                entries.append(
                    Entry(
                        item.name,
                        item.path,
                        kind,
                        item.identity.size,
                        item.identity.mtime_ns,
                        item.denied_by,
                        target,
                    )
                )
            return Listing(tuple(entries), listing.truncated)

        return self.remote.submit(run, f"listing {path or self.root}")

    def stat(self, path: str) -> Future[Entry]:
        async def run(sftp: asyncssh.SFTPClient) -> Entry:
            absolute = self._absolute(path)
            identity = await lstat(sftp, absolute)
            rule = (await self._policy(sftp)).denying_rule(absolute)
            return Entry(
                posixpath.basename(absolute),
                absolute,
                kind_of(identity),
                identity.size,
                identity.mtime_ns,
                None if rule is None else rule.describe(),
            )

        return self.remote.submit(run, f"looking up {path}")

    async def _within(self, sftp: asyncssh.SFTPClient, path: str) -> str:
        """``path`` with its folders resolved by the server, the name kept.

        A link on the way may lead within the workspace, never out of it.
        """
        given = self._absolute(path)
        folder = await real_path(sftp, posixpath.dirname(given))
        absolute = posixpath.join(folder, posixpath.basename(given))
        if not is_within(absolute, self.root, sep="/"):
            raise SafeOpenError("outside", f"{path} is outside the workspace")
        return absolute

    def read(self, path: str, *, limit: int) -> Future[bytes]:
        async def run(sftp: asyncssh.SFTPClient) -> bytes:
            given = self._absolute(path)
            absolute = await self._within(sftp, path)
            policy = await self._policy(sftp)
            names = (absolute, given)
            check = access_check(policy, names, inside=True, mode=None)
            if check is not None:
                raise refused(check)
            try:
                snapshot = await take_snapshot(sftp, absolute, limit=limit)
            except SafeOpenError as error:
                # Through the verdict, so a refusal reads as it does locally.
                check = Check(open_verdict(error.reason), str(error))
                raise refused(check) from error
            except RemoteError as error:
                if error.failure is Failure.TOO_LARGE:
                    raise SafeOpenError("too_large", str(error)) from error
                if error.failure is Failure.CHANGED:
                    raise SafeOpenError("changed", str(error)) from error
                raise
            return snapshot.data

        return self.remote.submit(
            run,
            f"fetching {path}",
            timeout=self.remote.link.settings.operation_timeout + limit / (1 << 20),
        )

    def open_for_preview(
        self, file: str | FileEntry, *, mode: PermissionMode | None = None
    ) -> Future[PreviewFile]:
        place = self.remote.place

        async def checked(sftp: asyncssh.SFTPClient) -> tuple[str, RemoteIdentity]:
            """The path to open and the version it must be (or ``None``)."""
            policy = await self._policy(sftp)
            if isinstance(file, str):
                absolute = await self._within(sftp, file)
                names = (absolute, self._absolute(file))
                refusal = access_check(policy, names, inside=True, mode=None)
                if refusal is not None:
                    raise refused(refusal)
                found = await check_remote_path(sftp, place, absolute, policy)
            else:
                absolute = file.resolved
                found = await check_remote_entry(
                    sftp, place, file, policy, trusted=True, mode=mode
                )
            if not found.allowed or found.identity is None:
                raise refused(found.check)
            if found.check.verdict is Verdict.CHANGED:
                # Only the version the record vouches for is shown.
                raise SafeOpenError("changed", found.check.reason)
            return absolute, found.identity

        async def run(sftp: asyncssh.SFTPClient) -> PreviewFile:
            absolute, identity = await checked(sftp)
            try:
                opened = await FencedFile.open(sftp, absolute, identity)
            except SafeOpenError as error:
                # Through the verdict, so a refusal reads as it does locally.
                raise refused(Check(open_verdict(error.reason), str(error))) from error
            except RemoteError as error:
                if error.failure is Failure.CHANGED:
                    raise SafeOpenError("changed", str(error)) from error
                raise
            remote = RemoteFencedReader(self.remote.loop, self.remote.link, opened)
            return SshPreviewFile(self.remote, remote)

        shown = file if isinstance(file, str) else file.resolved
        return self.remote.submit(run, f"opening {shown}")

    def save_file(
        self,
        path: str,
        target: str,
        *,
        progress: Progress | None = None,
        is_cancelled: Callable[[], bool] = never,
    ) -> Future[CopyResult]:
        async def check(sftp: asyncssh.SFTPClient) -> tuple[str, RemoteCheck]:
            absolute = await self._within(sftp, path)
            policy = await self._policy(sftp)
            names = (absolute, self._absolute(path))
            refusal = access_check(policy, names, inside=True, mode=None)
            if refusal is not None:
                raise refused(refusal)
            place = self.remote.place
            return absolute, await check_remote_path(sftp, place, absolute, policy)

        def save(checked: tuple[str, RemoteCheck]) -> Future[CopyResult]:
            absolute, found = checked
            if not found.allowed or found.identity is None:
                raise refused(found.check)
            saving: Future[Any] = self.remote.save(
                absolute,
                target,
                expected=found.identity,
                progress=progress,
                is_cancelled=is_cancelled,
            )
            return saving

        return _then(self.remote.submit(check, f"checking {path}"), save)

    def list_for_agent(
        self, given: str, policy: Policy, *, limit: int
    ) -> Future[tuple[tuple[str, ...], bool]]:
        place = self.remote.place

        async def run(sftp: asyncssh.SFTPClient) -> tuple[tuple[str, ...], bool]:
            lexical = lexical_path(place.root, given)
            refuse_denied(policy, lexical)
            real = await agent_files.open_folder(sftp, place, lexical, policy)
            lines, stopped = await agent_files.listing(sftp, place, real, policy, limit)
            return tuple(lines), stopped

        timeout = 5 * self.remote.link.settings.operation_timeout
        return self.remote.submit(run, f"listing {given}", timeout=timeout)

    def read_for_agent(self, given: str, policy: Policy, *, size: int) -> Future[bytes]:
        place = self.remote.place

        async def run(sftp: asyncssh.SFTPClient) -> bytes:
            lexical = lexical_path(place.root, given)
            refuse_denied(policy, lexical)
            return await agent_files.read_file(sftp, place, lexical, policy, size)

        return self.remote.submit(run, f"reading {given}")

    def write_for_agent(
        self, given: str, policy: Policy, data: bytes
    ) -> Future[Written | None]:
        place = self.remote.place

        async def run(sftp: asyncssh.SFTPClient) -> Written | None:
            lexical = lexical_path(place.root, given)
            refuse_denied(policy, lexical)
            await agent_files.write_file(sftp, place, lexical, policy, data)
            return None  # the change index covers local workspaces only

        timeout = self.remote.link.settings.operation_timeout + len(data) / 1e6
        return self.remote.submit(run, f"writing {given}", timeout=timeout)

    def public_files(self, policy: Policy) -> Future[tuple[PublicFile, ...]]:
        place = self.remote.place

        async def run(sftp: asyncssh.SFTPClient) -> tuple[PublicFile, ...]:
            return tuple(await agent_files.public_files(sftp, place, policy))

        return self.remote.submit(run, "listing the public files")

    def image_artifact(
        self, image: PublicFile, *, limit: int
    ) -> Future[dict[str, Any]]:
        path = str(image.path)
        url = self.remote.place.coordinate(path).url()

        def artifact(data: bytes) -> Future[dict[str, Any]]:
            done: Future[dict[str, Any]] = Future()
            done.set_result({"remote": url, "data": data})
            return done

        return _then(self.read(path, limit=limit), artifact)

    def present(
        self, arguments: object, *, mode: PermissionMode, policy: Policy | None = None
    ) -> Future[Record]:
        return self.remote.present(arguments, mode=mode, policy=policy)

    def _check(
        self, entry: FileEntry, trusted: bool, mode: PermissionMode | None
    ) -> Future[RemoteCheck]:
        return self.remote.check_entry(entry, trusted=trusted, mode=mode)

    def revalidate(
        self, entry: FileEntry, *, trusted: bool, mode: PermissionMode | None = None
    ) -> Future[Check]:
        def verdict(found: RemoteCheck) -> Future[Check]:
            done: Future[Check] = Future()
            done.set_result(found.check)
            return done

        return _then(self._check(entry, trusted, mode), verdict)

    def save_copy(
        self,
        entry: FileEntry,
        target: str,
        *,
        trusted: bool,
        mode: PermissionMode | None = None,
        progress: Progress | None = None,
        is_cancelled: Callable[[], bool] = never,
    ) -> Future[CopyResult]:
        def save(found: RemoteCheck) -> Future[CopyResult]:
            if not found.allowed or found.identity is None:
                raise refused(found.check)
            saving: Future[Any] = self.remote.save(
                entry.resolved,
                target,
                expected=found.identity,
                progress=progress,
                is_cancelled=is_cancelled,
            )
            return saving

        return _then(self._check(entry, trusted, mode), save)


async def _link_target(sftp: asyncssh.SFTPClient, path: str) -> str:
    """Where the link ``path`` points, as it says; a link gone meanwhile says so."""
    try:
        return str(await sftp.readlink(path))
    except asyncssh.SFTPError:
        return UNREADABLE_TARGET
