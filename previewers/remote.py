"""Previews of files on a remote host: one call, then the workspace's usual widget.

``open_remote_preview`` runs off the GUI thread and hands back a
``RemotePreview``: the file's ``PreviewSource``, the previewer the registry
chose from its name and first bytes (as for a local file), and a
``VerifiedFile`` the previewer reads as it reads any opened file:

- a file within its previewer's limit is fetched whole as one verified
  version (``RemoteWorkspace.snapshot``) into a sealed memory file;
- text over one page (2 MiB) is paged over SFTP behind the remote version
  fence (``open_fenced``): the first page is read, never the whole file, and a
  change on the host stops the paging as locally (``FenceBrokenError``);
- a file over its previewer's limit is refused with the reason; nothing is read.

The preview's context says the file is remote: a page's dependencies come
from the host through the same limits and policy, a Markdown document's
images are not loaded, and no remote path ever reaches the local disk.
"""

from __future__ import annotations

import contextlib
import posixpath
import threading
from collections.abc import Iterator
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from app.core.filetype import HEAD_SIZE, Kind, detect
from app.core.filetype.sizes import human_size
from app.core.serve.html_bind import Skip, check_dependency_size
from app.core.serve.manifest import MAX_DEPENDENCY_BYTES
from app.core.trust.display_names import display_name
from app.core.trust.paths import is_within
from app.core.trust.policy import Policy
from app.core.trust.safeio import Identity, SafeOpenError, VerifiedFile
from app.core.trust.verdicts import access_check
from app.formats.text_pages import (
    FenceBrokenError,
    FencedReader,
    ReaderFile,
)
from app.remote.files import RemoteIdentity
from app.remote.paging import RemoteFencedReader
from app.remote.snapshot import changed
from app.remote.workspace import RemoteWorkspace
from app.ssh.errors import Failure, RemoteError
from previewers.context import STANDALONE, PreviewContext
from previewers.registry import REGISTRY, Previewer, PreviewerRegistry
from previewers.source import PreviewSource

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.widget import PreviewWidget

_T = TypeVar("_T")

_workers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="remote-preview")


@dataclass
class RemotePreview:
    """What a tab needs to show a remote file: call ``create`` on the GUI thread.

    ``refusal`` is the reason when the file is over its previewer's limit;
    ``create`` then makes a preview marked refused. A preview that is never
    created must be ``close``d (the widget owns the file once created).
    """

    source: PreviewSource
    file: VerifiedFile
    previewer: Previewer
    context: PreviewContext
    identity: RemoteIdentity
    refusal: str | None = None
    _taken: bool = field(default=False, repr=False)

    @property
    def paged(self) -> bool:
        """Whether the text is paged over SFTP instead of fetched whole."""
        return not isinstance(self.file, SnapshotFile)

    def create(self, parent: QWidget | None = None) -> PreviewWidget:
        """The preview widget; it owns the file from now on."""
        if self._taken:
            raise RuntimeError("this remote preview was already shown or closed")
        self._taken = True
        if self.refusal is not None:
            from previewers.widget import PreviewWidget

            widget = PreviewWidget(self.source, self.file, parent, context=self.context)
            widget.mark_refused(self.refusal)
            return widget
        return self.previewer.create(
            self.source, self.file, parent, context=self.context
        )

    def close(self) -> None:
        """Let go of the file when no widget was created."""
        if not self._taken:
            self._taken = True
            self.file.close()


class SnapshotFile(ReaderFile):
    """A verified snapshot in a sealed memory file, read like an opened file.

    Previews reach it through its descriptor (audio and video duplicate it)
    or through a fenced reader that names no local path, so nothing ever
    looks up the remote path on this computer.
    """

    def __init__(self, memory: VerifiedFile) -> None:
        super().__init__(FencedReader(memory, None), on_close=memory.close)
        self.fd = memory.fd

    def close(self) -> None:
        self.fd = -1
        super().close()


class RemoteFilesAround:
    """What a remote preview reads around its file: from the host, never locally.

    Runs on a preview's worker thread; every fetch waits for the host within
    the workspace's timeouts.
    """

    def __init__(self, workspace: RemoteWorkspace) -> None:
        self._workspace = workspace

    @property
    def root(self) -> str:
        return self._workspace.root

    def fetch_dependency(self, path: str, budget: int) -> bytes:
        """A page's dependency as one version, within the bundle's limits."""
        with _as_skip():
            identity = self._workspace.lstat(path).result()
            if identity.is_symlink:
                raise SafeOpenError("symlink", "the file is a symbolic link")
            if identity.is_folder:
                raise SafeOpenError("directory", "it is a folder, not a file")
            if not identity.is_regular:
                raise SafeOpenError("not_regular", "it is not a regular file")
            check_dependency_size(identity.size, budget)
            snapshot = self._workspace.snapshot(
                path, limit=MAX_DEPENDENCY_BYTES, expected=identity
            ).result()
            return snapshot.data
        raise AssertionError("unreachable")  # pragma: no cover - _as_skip re-raises


@contextlib.contextmanager
def _as_skip() -> Iterator[None]:
    try:
        yield
    except RemoteError as error:
        if error.failure is Failure.CHANGED:
            raise Skip("changed", "the file changed while it was being read") from error
        if error.failure is Failure.TOO_LARGE:
            limit = MAX_DEPENDENCY_BYTES >> 20
            raise Skip("too_large", f"the file is larger than {limit} MiB") from error
        raise Skip("unreadable", str(error)) from error


class _HostReader(FencedReader):
    """The remote fenced reader as the pager sees it: a lost host stops paging.

    A host that stops answering (a timeout, a dropped connection) ends the
    paging with ``FenceBrokenError("unreachable")``, as a change does, so the
    view freezes with a reason and a reload instead of failing mid-paint.
    """

    def __init__(self, remote: RemoteFencedReader) -> None:
        # FencedReader's own __init__ wants a local descriptor.
        self.remote = remote
        self.path = remote.path
        self.fence = remote.fence
        self._closing = threading.Lock()
        self._closed = False

    @property
    def size(self) -> int:
        return self.remote.size

    def check(self) -> None:
        with _host_lost():
            self.remote.check()

    def read(self, size: int, offset: int) -> bytes:
        with _host_lost():
            return self.remote.read(size, offset)
        raise AssertionError("unreachable")  # pragma: no cover - re-raised above

    def close_soon(self) -> None:
        """Close the remote handle once, without waiting."""
        with self._closing:
            if self._closed:
                return
            self._closed = True
        self.remote.close_soon()


@contextlib.contextmanager
def _host_lost() -> Iterator[None]:
    try:
        yield
    except RemoteError as error:
        raise FenceBrokenError("unreachable") from error


def open_remote_preview(
    workspace: RemoteWorkspace,
    path: str,
    expected: RemoteIdentity | None,
    context: PreviewContext = STANDALONE,
    *,
    kind: Kind | None = None,
    source_view: bool = False,
    registry: PreviewerRegistry = REGISTRY,
) -> Future[RemotePreview]:
    """Prepare the preview of the remote ``path``, off the GUI thread.

    ``expected`` is the identity a record holds (``None`` for a file of the
    remote tree no record vouches for): another version is refused as
    *changed*. ``context`` gives the colour scheme; the root, the policy and
    the reading around the file are the remote workspace's. The future fails
    with ``SafeOpenError`` (denied, missing, a link, not a regular file) or
    ``RemoteError`` (changed, timeout, connection lost...), each with a
    sentence to show. Add a done-callback that posts to the GUI, as with
    every remote future. ``cancel()`` works at any time: the wait on the
    host is cancelled and whatever was opened or fetched is let go.
    """
    outcome: Future[RemotePreview] = Future()
    waits = _Waits(outcome)
    _workers.submit(
        _run,
        outcome,
        waits,
        workspace,
        path,
        expected,
        context,
        kind,
        source_view,
        registry,
    )
    return outcome


class _Waits:
    """The waits of one preparation: cancelling its future cancels the current one."""

    def __init__(self, outcome: Future[RemotePreview]) -> None:
        self._outcome = outcome
        self._lock = threading.Lock()
        self._current: Future[Any] | None = None
        outcome.add_done_callback(self._on_outcome_done)

    def _on_outcome_done(self, outcome: Future[RemotePreview]) -> None:
        if outcome.cancelled():
            with self._lock:
                current = self._current
            if current is not None:
                current.cancel()

    def wait(self, step: Future[_T]) -> _T:
        """``step``'s result; ``CancelledError`` once the preparation is cancelled."""
        with self._lock:
            if self._outcome.cancelled():
                step.cancel()
                raise CancelledError
            self._current = step
        try:
            return step.result()
        finally:
            with self._lock:
                self._current = None


def _run(outcome: Future[RemotePreview], waits: _Waits, *arguments: Any) -> None:
    try:
        preview = _prepare(waits, *arguments)
    except BaseException as error:
        if outcome.set_running_or_notify_cancel():
            outcome.set_exception(error)
        return
    if outcome.set_running_or_notify_cancel():
        outcome.set_result(preview)
    else:
        preview.close()  # cancelled at the last moment: nobody will show it


def _prepare(
    waits: _Waits,
    workspace: RemoteWorkspace,
    path: str,
    expected: RemoteIdentity | None,
    context: PreviewContext,
    kind: Kind | None,
    source_view: bool,
    registry: PreviewerRegistry,
) -> RemotePreview:
    path = posixpath.normpath(path)
    if not posixpath.isabs(path) or not is_within(path, workspace.root, sep="/"):
        raise SafeOpenError("outside", "the file is outside the remote workspace")
    policy = waits.wait(workspace.policy())
    refused = access_check(policy, (path,), inside=True, mode=None)
    if refused is not None:
        raise SafeOpenError("denied", refused.reason)
    remote = waits.wait(workspace.open_fenced(path, expected=expected))
    reader = _HostReader(remote)
    try:
        return _choose(
            waits, workspace, path, reader, policy, context, kind, source_view, registry
        )
    except BaseException:
        reader.close_soon()
        raise


def _choose(
    waits: _Waits,
    workspace: RemoteWorkspace,
    path: str,
    reader: _HostReader,
    policy: Policy,
    context: PreviewContext,
    kind: Kind | None,
    source_view: bool,
    registry: PreviewerRegistry,
) -> RemotePreview:
    remote = reader.remote
    identity, fence = remote.identity, reader.fence
    try:
        head = reader.read(HEAD_SIZE, 0)
        name = posixpath.basename(path)
        found = detect(head, name, kind=kind, read=reader.read)
    except FenceBrokenError as error:
        if isinstance(error.__cause__, RemoteError):
            raise error.__cause__ from None  # the host, not the file
        raise changed(path) from error
    source = PreviewSource(
        path=path,
        name=display_name(name),
        identity=fence,
        head=head,
        type=found,
        source_view=source_view,
    )
    previewer = registry.choose(source)
    remote_context = replace(
        context,
        root=None,
        policy_provider=lambda: policy,
        remote=RemoteFilesAround(workspace),
    )
    if previewer.pages_remotely and identity.size > previewer.fetch_limit:
        file: VerifiedFile = ReaderFile(reader, on_close=reader.close_soon)
        return RemotePreview(source, file, previewer, remote_context, identity)
    reader.close_soon()  # the rest is one snapshot, or nothing
    limit = previewer.fetch_limit
    if identity.size > limit:
        nothing = Identity(0, 0, 0, fence.mtime_ns)
        empty = SnapshotFile(VerifiedFile.from_bytes(b"", nothing, name))
        refusal: str | None = (
            f"it is {human_size(identity.size)}, more than the "
            f"{human_size(limit)} this preview fetches from a remote host; "
            "save it to a local folder to see it"
        )
        if limit == 0:
            refusal = None  # the card needs no bytes: it shows the facts
        return RemotePreview(
            source, empty, previewer, remote_context, identity, refusal
        )
    snapshot = waits.wait(workspace.snapshot(path, limit=limit, expected=identity))
    memory = VerifiedFile.from_bytes(snapshot.data, fence, name)
    return RemotePreview(
        source, SnapshotFile(memory), previewer, remote_context, identity
    )
