"""The local implementation of ``Workspace``: a folder on this computer."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from app.core.trust.copying import CopyResult, copy_verified
from app.core.trust.declare import declare
from app.core.trust.paths import is_within, resolve_keep_leaf
from app.core.trust.policy import PermissionMode, Policy, current_policy
from app.core.trust.public_files import PublicFile, public_files, public_folder
from app.core.trust.records import FileEntry, Record
from app.core.trust.revalidate import Check, check_path, open_entry, revalidate
from app.core.trust.safeio import SafeOpenError, VerifiedFile
from app.core.trust.verdicts import (
    DIRECTORY,
    NOT_REGULAR,
    REGULAR,
    SYMLINK,
    Verdict,
    refused,
)
from app.workspace import agent_files
from app.workspace.local_preview import LocalPreviewFile
from app.workspace.native import NATIVE
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

_T = TypeVar("_T")

# Local checks are quick, but a slow disk (a network mount) must not stall
# the GUI thread that asked: they run here and answer through a future.
_workers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="local-workspace")


def kind_of(mode: int) -> str:
    """A look-up kind from ``st_mode``, as ``app.core.trust.verdicts`` names it."""
    if stat.S_ISLNK(mode):
        return SYMLINK
    if stat.S_ISDIR(mode):
        return DIRECTORY
    return REGULAR if stat.S_ISREG(mode) else NOT_REGULAR


def outside(path: str) -> SafeOpenError:
    return SafeOpenError("outside", f"{path} is outside the workspace")


def _copy(
    opened: VerifiedFile,
    target: str,
    progress: Progress | None,
    is_cancelled: Callable[[], bool],
) -> CopyResult:
    """``copy_verified`` telling ``progress`` (done, total) as it goes."""
    size = opened.identity.size
    told = None if progress is None else lambda done: progress(done, size)
    return copy_verified(opened, target, is_cancelled=is_cancelled, on_chunk=told)


class LocalWorkspace:
    """A folder on this computer; every answer comes from the disk now."""

    def __init__(
        self, root: Path | str, *, policy_loader: Callable[[], Policy] | None = None
    ) -> None:
        self._root = os.path.realpath(os.fspath(root))
        self._policy_loader = policy_loader

    @property
    def address(self) -> str:
        return self._root

    @property
    def root(self) -> str:
        return self._root

    @property
    def local_root(self) -> str | None:
        return self._root

    @property
    def host(self) -> str | None:
        return None

    @property
    def native(self) -> Native | None:
        return NATIVE

    def _policy_now(self) -> Policy:
        if self._policy_loader is not None:
            return self._policy_loader()
        return current_policy(self._root)

    def _absolute(self, path: str) -> str:
        """``path`` (relative to the root, or absolute) if it lies within the root."""
        absolute = os.path.normpath(os.path.join(self._root, path))
        if not is_within(absolute, self._root):
            raise outside(path)
        return absolute

    @staticmethod
    def _run(work: Callable[[], _T]) -> Future[_T]:
        return _workers.submit(work)

    def policy(self) -> Future[Policy]:
        return self._run(self._policy_now)

    def coordinates(self, path: str) -> Coordinates:
        return Coordinates(os.path.normpath(os.path.join(self._root, path)))

    def list(self, path: str = "", *, limit: int = LISTING_LIMIT) -> Future[Listing]:
        return self._run(lambda: self._list(path, limit))

    def _list(self, path: str, limit: int) -> Listing:
        folder = self._absolute(path)
        # The folder itself may be a link leading out: list only what is within.
        if not is_within(os.path.realpath(folder), self._root):
            raise outside(path)
        denying_rule = self._policy_now().in_folder(folder)
        entries: list[Entry] = []
        truncated = False
        try:
            with os.scandir(folder) as found:
                for item in found:
                    if len(entries) >= limit:
                        truncated = True
                        break
                    status = item.stat(follow_symlinks=False)
                    rule = denying_rule(item.name)
                    kind = kind_of(status.st_mode)
                    target = None
                    if kind == SYMLINK and rule is None:
                        target = _link_target(item.path)
                    entries.append(
                        Entry(
                            item.name,
                            os.path.join(folder, item.name),
                            kind,
                            status.st_size,
                            status.st_mtime_ns,
                            None if rule is None else rule.describe(),
                            target,
                        )
                    )
        except FileNotFoundError as error:
            raise SafeOpenError("missing", f"{path} does not exist") from error
        except NotADirectoryError as error:
            raise SafeOpenError("not_regular", f"{path} is not a folder") from error
        entries.sort(key=lambda entry: entry.name)
        return Listing(tuple(entries), truncated)

    def stat(self, path: str) -> Future[Entry]:
        return self._run(lambda: self._stat(path))

    def _stat(self, path: str) -> Entry:
        absolute = self._absolute(path)
        try:
            status = os.lstat(absolute)
        except FileNotFoundError as error:
            raise SafeOpenError("missing", f"{path} does not exist") from error
        rule = self._policy_now().denying_rule(absolute)
        return Entry(
            os.path.basename(absolute),
            absolute,
            kind_of(status.st_mode),
            status.st_size,
            status.st_mtime_ns,
            None if rule is None else rule.describe(),
        )

    def read(self, path: str, *, limit: int) -> Future[bytes]:
        return self._run(lambda: self._read(path, limit))

    def _open(self, path: str) -> VerifiedFile:
        """The workspace file ``path``, checked and open, or ``SafeOpenError``."""
        absolute = self._absolute(path)
        folder = os.path.realpath(os.path.dirname(absolute))
        # A link on the way may lead within the workspace, never out of it.
        if not is_within(os.path.join(folder, os.path.basename(absolute)), self._root):
            raise outside(path)
        check, opened = check_path(
            absolute,
            self._policy_now(),
            root=self._root,
            mode=PermissionMode.WORKSPACE_ONLY,
        )
        if opened is None:
            raise refused(check)
        return opened

    def _read(self, path: str, limit: int) -> bytes:
        with self._open(path) as opened:
            size = opened.identity.size
            if size > limit:
                raise SafeOpenError("too_large", f"{path} is larger than {limit} bytes")
            data = opened.read(size + 1, 0)
            if len(data) != size or opened.current_identity() != opened.identity:
                raise SafeOpenError("changed", f"{path} changed while it was read")
        return data

    def save_file(
        self,
        path: str,
        target: str,
        *,
        progress: Progress | None = None,
        is_cancelled: Callable[[], bool] = never,
    ) -> Future[CopyResult]:
        def run() -> CopyResult:
            with self._open(path) as opened:
                return _copy(opened, target, progress, is_cancelled)

        return self._run(run)

    def open_for_preview(
        self, file: str | FileEntry, *, mode: PermissionMode | None = None
    ) -> Future[PreviewFile]:
        def run() -> PreviewFile:
            if isinstance(file, str):
                path = resolve_keep_leaf(self._absolute(file))
                return LocalPreviewFile(self._open(file), path)
            check, opened = open_entry(
                file, self._policy_now(), trusted=True, mode=mode
            )
            if opened is None:
                raise refused(check)
            if check.verdict is Verdict.CHANGED:
                # Only the version the record vouches for is shown.
                opened.close()
                raise SafeOpenError("changed", check.reason)
            return LocalPreviewFile(opened, file.resolved)

        return self._run(run)

    def list_for_agent(
        self, given: str, policy: Policy, *, limit: int
    ) -> Future[tuple[tuple[str, ...], bool]]:
        def run() -> tuple[tuple[str, ...], bool]:
            lines, stopped = agent_files.list_files(self._root, given, policy, limit)
            return tuple(lines), stopped

        return self._run(run)

    def read_for_agent(self, given: str, policy: Policy, *, size: int) -> Future[bytes]:
        return self._run(lambda: agent_files.read_file(self._root, given, policy, size))

    def write_for_agent(
        self, given: str, policy: Policy, data: bytes
    ) -> Future[Written | None]:
        return self._run(
            lambda: agent_files.write_file(self._root, given, policy, data)
        )

    def public_files(self, policy: Policy) -> Future[tuple[PublicFile, ...]]:
        return self._run(lambda: tuple(public_files(Path(self._root), policy)))

    def image_artifact(
        self, image: PublicFile, *, limit: int
    ) -> Future[dict[str, Any]]:
        folder = os.path.realpath(public_folder(Path(self._root)))
        done: Future[dict[str, Any]] = Future()
        done.set_result({"path": os.path.join(folder, image.name)})
        return done

    def present(
        self, arguments: object, *, mode: PermissionMode, policy: Policy | None = None
    ) -> Future[Record]:
        def run() -> Record:
            rules = policy if policy is not None else self._policy_now()
            return declare(arguments, workspace=self._root, mode=mode, policy=rules)

        return self._run(run)

    def revalidate(
        self, entry: FileEntry, *, trusted: bool, mode: PermissionMode | None = None
    ) -> Future[Check]:
        return self._run(
            lambda: revalidate(entry, self._policy_now(), trusted=trusted, mode=mode)
        )

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
        def run() -> CopyResult:
            check, opened = open_entry(
                entry, self._policy_now(), trusted=trusted, mode=mode
            )
            if opened is None:
                raise refused(check)
            with opened:
                return _copy(opened, target, progress, is_cancelled)

        return self._run(run)


def _link_target(path: str) -> str:
    """Where the link ``path`` points, as it says; a link gone meanwhile says so."""
    try:
        return os.readlink(path)
    except OSError:
        return UNREADABLE_TARGET
