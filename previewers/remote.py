"""Previews of files on a remote host: one call, then the workspace's usual widget.

``open_remote_preview`` runs off the GUI thread and hands back a
``RemotePreview``: the file's ``PreviewSource``, the previewer the registry
chose from its name and first bytes (as for a local file), and a
``VerifiedFile`` the previewer reads as it reads any opened file. The file
comes from ``Workspace.open_for_preview``, checked and fenced at one version:

- a file within its previewer's limit is taken whole as that version
  (``PreviewFile.whole``; over SSH, a sealed memory file);
- text over one page (2 MiB) is paged behind the version fence
  (``PreviewFile.paged``): the first page is read, never the whole file, and
  a change on the host stops the paging as locally (``FenceBrokenError``);
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
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.records import FileEntry
from app.core.trust.safeio import Identity, SafeOpenError, VerifiedFile
from app.core.trust.verdicts import DIRECTORY, REGULAR, SYMLINK
from app.formats.text_pages import FenceBrokenError
from app.ssh.errors import Failure, RemoteError
from app.workspace.memory_file import SnapshotFile
from app.workspace.protocol import PreviewFile, Workspace
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
    ``create`` then makes a preview marked refused. ``paged``: the text is
    paged from the host instead of taken whole. A preview that is never
    created must be ``close``d (the widget owns the file once created).
    """

    source: PreviewSource
    file: VerifiedFile
    previewer: Previewer
    context: PreviewContext
    paged: bool = False
    refusal: str | None = None
    _taken: bool = field(default=False, repr=False)

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


class RemoteFilesAround:
    """What a remote preview reads around its file: from the host, never locally.

    Runs on a preview's worker thread; every fetch waits for the host within
    the workspace's timeouts, and is checked there as ``Workspace.read`` checks.
    """

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace

    @property
    def root(self) -> str:
        return self._workspace.root

    def fetch_dependency(self, path: str, budget: int) -> bytes:
        """A page's dependency as one version, within the bundle's limits."""
        with _as_skip():
            found = self._workspace.stat(path).result()
            if found.kind == SYMLINK:
                raise SafeOpenError("symlink", "the file is a symbolic link")
            if found.kind == DIRECTORY:
                raise SafeOpenError("directory", "it is a folder, not a file")
            if found.kind != REGULAR:
                raise SafeOpenError("not_regular", "it is not a regular file")
            check_dependency_size(found.size, budget)
            # No more than was counted: a file grown since is refused, not read.
            return self._workspace.read(path, limit=found.size).result()
        raise AssertionError("unreachable")  # pragma: no cover - _as_skip re-raises


@contextlib.contextmanager
def _as_skip() -> Iterator[None]:
    try:
        yield
    except SafeOpenError as error:
        if error.reason in ("changed", "too_large"):
            raise Skip("changed", "the file changed while it was being read") from error
        raise
    except RemoteError as error:
        if error.failure is Failure.CHANGED:
            raise Skip("changed", "the file changed while it was being read") from error
        if error.failure is Failure.TOO_LARGE:
            limit = MAX_DEPENDENCY_BYTES >> 20
            raise Skip("too_large", f"the file is larger than {limit} MiB") from error
        raise Skip("unreadable", str(error)) from error


def open_remote_preview(
    workspace: Workspace,
    file: str | FileEntry,
    context: PreviewContext = STANDALONE,
    *,
    kind: Kind | None = None,
    source_view: bool = False,
    mode: PermissionMode | None = None,
    registry: PreviewerRegistry = REGISTRY,
) -> Future[RemotePreview]:
    """Prepare the preview of a remote workspace's file, off the GUI thread.

    ``file`` is a path of the remote tree no record vouches for, or a
    record's entry (``mode`` in force): another version than the recorded
    one is refused as *changed*. ``context`` gives the colour scheme; the
    root, the policy and the reading around the file are the workspace's.
    The future fails with ``SafeOpenError`` (denied, outside, missing, a
    link, not a regular file, changed) or ``RemoteError`` (timeout,
    connection lost...), each with a sentence to show. Add a done-callback
    that posts to the GUI, as with every remote future. ``cancel()`` works
    at any time: the wait on the host is cancelled and whatever was opened
    or fetched is let go.
    """
    outcome: Future[RemotePreview] = Future()
    waits = _Waits(outcome)
    _workers.submit(
        _run,
        outcome,
        waits,
        workspace,
        file,
        context,
        kind,
        source_view,
        mode,
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
    workspace: Workspace,
    file: str | FileEntry,
    context: PreviewContext,
    kind: Kind | None,
    source_view: bool,
    mode: PermissionMode | None,
    registry: PreviewerRegistry,
) -> RemotePreview:
    # The policy for what is read around the file, asked while the file opens.
    asked = workspace.policy()
    opened = waits.wait(workspace.open_for_preview(file, mode=mode))
    try:
        policy = waits.wait(asked)
        return _choose(
            waits, workspace, opened, policy, context, kind, source_view, registry
        )
    except BaseException:
        opened.close()
        raise


def _choose(
    waits: _Waits,
    workspace: Workspace,
    opened: PreviewFile,
    policy: Policy,
    context: PreviewContext,
    kind: Kind | None,
    source_view: bool,
    registry: PreviewerRegistry,
) -> RemotePreview:
    path, fence = opened.path, opened.fence
    name = posixpath.basename(path)
    try:
        head = opened.read(HEAD_SIZE, 0)
        found = detect(head, name, kind=kind, read=opened.read)
    except FenceBrokenError as error:
        if isinstance(error.__cause__, RemoteError):
            raise error.__cause__ from None  # the host, not the file
        raise SafeOpenError("changed", f"{name} changed while it was read") from error
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
    limit = previewer.fetch_limit
    if previewer.pages_remotely and fence.size > limit:
        paged = opened.paged()
        return RemotePreview(source, paged, previewer, remote_context, paged=True)
    if fence.size > limit:
        opened.close()  # nothing more is read
        nothing = Identity(0, 0, 0, fence.mtime_ns)
        empty = SnapshotFile(VerifiedFile.from_bytes(b"", nothing, name))
        refusal: str | None = (
            f"it is {human_size(fence.size)}, more than the "
            f"{human_size(limit)} this preview fetches from a remote host; "
            "save it to a local folder to see it"
        )
        if limit == 0:
            refusal = None  # the card needs no bytes: it shows the facts
        return RemotePreview(source, empty, previewer, remote_context, refusal=refusal)
    whole = waits.wait(opened.whole(limit))
    return RemotePreview(source, whole, previewer, remote_context)
