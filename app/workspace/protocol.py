"""What a workspace can do, whichever backend holds its files.

A local folder and a folder on an SSH host do the same jobs: list, look up,
read a verified version, open one for a preview, the ``present`` check,
revalidate a record entry and save a copy. Callers hold a ``Workspace`` and
never ask which backend it is; ``app.workspace.choose`` picks the backend
once, where the workspace is opened.
Every method returns a ``concurrent.futures.Future`` at once: a worker waits on
``result()``, the GUI adds a done-callback. A refused file fails the future
with ``SafeOpenError`` (its ``reason`` says why: ``outside``, ``denied``,
``missing``, ``symlink``, ``directory``, ``not_regular``, ``too_large``,
``changed``); a failing host with ``app.ssh.errors.RemoteError``.
What only some backends can do is a capability that is present or ``None``
(``native``): a caller asks for it, never for the backend's type.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from app.core.changes.change import BeforeState
from app.core.filetype.sizes import human_size
from app.core.trust.copying import CopyResult
from app.core.trust.display_names import display_name
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.public_files import PublicFile
from app.core.trust.records import FileEntry, Record
from app.core.trust.revalidate import Check
from app.core.trust.safeio import Identity, SafeOpenError, VerifiedFile


@dataclass(frozen=True)
class Entry:
    """One name in a workspace folder, as a look-up sees it (no link followed).

    ``kind`` is one of ``app.core.trust.verdicts``' look-up kinds (regular,
    symlink, directory, not_regular); ``denied_by`` describes the read-deny
    rule that locks it, ``None`` when it is readable. ``link_target`` is
    where a link points, as the link says (shown, never followed); ``None``
    for what is no link, and for a locked one, whose target is not read.
    """

    name: str
    path: str
    kind: str
    size: int
    mtime_ns: int
    denied_by: str | None
    link_target: str | None = None


UNREADABLE_TARGET: Final = "(unreadable)"
"""The ``link_target`` of a link whose target could not be read."""


LISTING_LIMIT: Final = 20_000
"""How many entries a listing holds at most: a huge folder cannot exhaust memory."""


@dataclass(frozen=True)
class Listing:
    """A folder's entries, sorted by name; ``truncated`` when it holds more.

    A cut listing has the first ``limit`` names the host gave, so a view can
    say that more entries exist than it shows.
    """

    entries: tuple[Entry, ...]
    truncated: bool


@dataclass(frozen=True)
class Coordinates:
    """How a file is named outside the app: what "Copy path" copies.

    ``path`` is the file's path on its own host; ``url`` (``ssh://`` with the
    port) and ``scp`` (``user@host:/path``) name it from another computer and
    are ``None`` for a file on this one.
    """

    path: str
    url: str | None = None
    scp: str | None = None


Progress = Callable[[int, int], None]
"""Told (bytes done, bytes in all) as a save goes; called on a worker thread."""


def never() -> bool:
    """An ``is_cancelled`` for work no one can cancel."""
    return False


@dataclass(frozen=True)
class Written:
    """A write as the change index needs it: where, what was there, what is now."""

    resolved: str
    before: BeforeState
    identity: Identity


def too_large(path: str, size: int, limit: int) -> SafeOpenError:
    """The refusal of a file over what a preview reads of it, in words."""
    name = display_name(path.replace("\\", "/").rsplit("/", 1)[-1])
    return SafeOpenError(
        "too_large",
        f"{name} is {human_size(size)}, more than the {human_size(limit)} "
        "this preview reads; save it to a local folder to see it",
    )


class PreviewFile(Protocol):
    """A workspace file opened for a preview: one checked version, read on demand.

    Reads block until the bytes arrive (over SSH, a round trip), so they run
    on a worker thread. A read of another version than the one opened, or of
    a host that stopped answering, raises ``FenceBrokenError`` (its cause is
    the ``RemoteError`` when the host, not the file, failed). The file is
    handed over once, by ``whole`` or ``paged``, or let go by ``close``.
    """

    @property
    def path(self) -> str:
        """The file's absolute path on its own host."""
        ...

    @property
    def fence(self) -> Identity:
        """The version opened: what a preview's source is, and stays."""
        ...

    def read(self, size: int, offset: int) -> bytes:
        """Up to ``size`` bytes at ``offset`` of the version opened."""
        ...

    def whole(self, limit: int) -> Future[VerifiedFile]:
        """The version opened, whole, as a file a previewer reads.

        Refused with ``SafeOpenError`` ``too_large`` (nothing read) when it
        is over ``limit`` bytes, ``changed`` when it is no longer that
        version. The caller owns the file; this one has nothing left to close.
        """
        ...

    def paged(self) -> VerifiedFile:
        """The version opened, for a pager: every read fenced, nothing fetched.

        The caller owns the file; this one has nothing left to close.
        """
        ...

    def close(self) -> None:
        """Let go of what is open, without waiting (from the GUI thread too)."""
        ...


class Native(Protocol):
    """Files on this computer, which the desktop's own apps can be handed.

    Another app opens a file by name, long after any check, so it never gets
    the workspace's path: it gets a private copy of the version a check
    opened, and only when nothing in that version could run. These calls work
    on a descriptor already checked and open, so they answer at once; a
    caller copies a large file on a worker thread.
    """

    def refusal(self, name: str, opened: VerifiedFile) -> str | None:
        """Why the checked file ``name`` must not go to another app; ``None``: it may.

        Judged from the descriptor: its name, permission bits and first bytes.
        """
        ...

    def refusal_by_name(self, name: str, path: str) -> str | None:
        """The same judgement from the name and permission bits alone.

        For a menu, before anything is opened; the action still judges the bytes.
        """
        ...

    def private_copy(
        self, name: str, opened: VerifiedFile, *, limit: int = 0o400
    ) -> Path:
        """A copy of the checked version in a fresh private folder, named ``name``.

        Never executable; read-only for its owner unless ``limit`` allows more.
        Raises ``OSError`` when it cannot be made (nothing is left behind).
        """
        ...


class Workspace(Protocol):
    """A folder the agent works in and the user looks at, local or remote."""

    @property
    def address(self) -> str:
        """The folder as records store it: a path, or ``ssh://user@host:port/root``."""
        ...

    @property
    def root(self) -> str:
        """The folder's real path on its own host."""
        ...

    @property
    def local_root(self) -> str | None:
        """The folder's real path on this computer; ``None`` on another host."""
        ...

    @property
    def host(self) -> str | None:
        """The host the folder is on, as its address names it; ``None``: here."""
        ...

    @property
    def native(self) -> Native | None:
        """Handing files to the desktop's apps (and its file manager).

        ``None`` when the files are on another host: nothing of them is here.
        """
        ...

    def policy(self) -> Future[Policy]:
        """The read-deny policy in force for this workspace now."""
        ...

    def coordinates(self, path: str) -> Coordinates:
        """The names of the workspace file ``path`` (absolute), for copying.

        Answered at once from the address alone: nothing is looked up.
        """
        ...

    def list(self, path: str = "", *, limit: int = LISTING_LIMIT) -> Future[Listing]:
        """A folder's entries, denied ones flagged; at most ``limit`` of them."""
        ...

    def stat(self, path: str) -> Future[Entry]:
        """What sits at ``path``, without following a final link."""
        ...

    def read(self, path: str, *, limit: int) -> Future[bytes]:
        """A workspace file no record vouches for, whole, as one checked version.

        Refused when outside the workspace, denied, not a regular file, a
        link (or behind a link leading out), larger than ``limit`` or changed
        while it was read.
        """
        ...

    def save_file(
        self,
        path: str,
        target: str,
        *,
        progress: Progress | None = None,
        is_cancelled: Callable[[], bool] = never,
    ) -> Future[CopyResult]:
        """A workspace file no record vouches for, saved as local ``target``.

        Checked now as ``read`` checks (a refusal raises ``SafeOpenError`` and
        writes nothing), then saved as ``save_copy`` saves: the version
        checked, all or nothing, with ``progress`` and ``is_cancelled``.
        """
        ...

    def open_for_preview(
        self, file: str | FileEntry, *, mode: PermissionMode | None = None
    ) -> Future[PreviewFile]:
        """The file a preview shows, checked and open at one version.

        ``file`` is a path (a file no record vouches for, checked now as
        ``read`` checks) or a record's entry (checked as ``revalidate``
        checks, ``mode`` in force, and refused as ``changed`` unless it is
        still the version recorded). Refusals are those of ``read``; nothing
        beyond the check is read until the caller reads.
        """
        ...

    def list_for_agent(
        self, given: str, policy: Policy, *, limit: int
    ) -> Future[tuple[tuple[str, ...], bool]]:
        """The agent's ``list_files``: lines below ``given``, and whether cut short.

        Lines read ``relative/path (N bytes)`` or ``(symbolic link)``; links
        to folders are not entered, denied names are left out. Fails with
        ``OutsideRootError``, ``DeniedPathError`` or ``SafeOpenError`` (not a
        folder of the workspace).
        """
        ...

    def read_for_agent(self, given: str, policy: Policy, *, size: int) -> Future[bytes]:
        """Up to ``size`` bytes of a workspace file, links followed inside it.

        Fails as ``list_for_agent`` does; ``SafeOpenError`` says why the file
        cannot be read.
        """
        ...

    def write_for_agent(
        self, given: str, policy: Policy, data: bytes
    ) -> Future[Written | None]:
        """Create or replace a workspace file with ``data``, whole.

        ``None`` when the backend keeps no change index (a remote host).
        Fails as ``list_for_agent`` does; ``SafeOpenError`` says why the file
        cannot be written.
        """
        ...

    def public_files(self, policy: Policy) -> Future[tuple[PublicFile, ...]]:
        """The regular, allowed files directly in ``public/``; none if unreachable."""
        ...

    def image_artifact(
        self, image: PublicFile, *, limit: int
    ) -> Future[dict[str, Any]]:
        """What the chat needs to show a public image, for the host only.

        A local image is named by its real path; a remote one is fetched now
        (at most ``limit`` bytes) with its coordinate, since no local path
        exists that the chat could read later.
        """
        ...

    def present(
        self, arguments: object, *, mode: PermissionMode, policy: Policy | None = None
    ) -> Future[Record]:
        """The ``present`` check; fails with ``DeclarationError`` naming each entry.

        ``policy`` is the one a caller already loaded; ``None`` reads it now.
        """
        ...

    def revalidate(
        self, entry: FileEntry, *, trusted: bool, mode: PermissionMode | None = None
    ) -> Future[Check]:
        """The verdict on a record's entry now, opening nothing beyond the check."""
        ...

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
        """Check ``entry`` again, then save the version checked as local ``target``.

        All or nothing: a refused check raises ``SafeOpenError`` and writes
        nothing; a copy that fails, is cancelled (``is_cancelled`` is asked
        between chunks) or sees the file change leaves ``target`` as it was.
        ``progress`` hears how far the copy is.
        """
        ...
