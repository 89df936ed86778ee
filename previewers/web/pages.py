"""How an opened file becomes a page: specs, bound snapshots, the shared server.

A ``PageSpec`` says how one file is bound (``app.core.serve.html_bind``) into the
immutable bundle the loopback capability server publishes; the server is one
per process, started when the first page is shown.
"""

from __future__ import annotations

import atexit
import posixpath
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from app.core.filetype import SVG_MIME
from app.core.serve.capability_server import CapabilityServer
from app.core.serve.html_bind import (
    BindError,
    Fetch,
    bind_document,
    bind_html,
    bind_image_page,
    bind_made_page,
    decode_html,
    made_page_segments,
)
from app.core.serve.manifest import MAX_BUNDLE_BYTES, Bundle
from app.core.trust.paths import is_within
from app.core.trust.policy import Policy
from app.core.trust.safeio import VerifiedFile
from previewers.web.source_text import TEXT_LIMIT, TextLoadResult

_server: CapabilityServer | None = None
_server_lock = threading.Lock()


def shared_server() -> CapabilityServer:
    """The app's one capability server, started on first use, closed at exit."""
    global _server  # one loopback server per process, made on first use
    with _server_lock:
        if _server is None:
            _server = CapabilityServer()
            application = QCoreApplication.instance()
            if application is not None:
                application.aboutToQuit.connect(_on_application_about_to_quit)
            atexit.register(close_shared_server)
        return _server


def close_shared_server() -> None:
    """Stop the shared server (every preview URL stops working); safe to repeat.

    Runs at exit, and at quit if no page was ever shown: once the web engine
    has started it connects to this server's port and no other
    (``web_sandbox.start_engine``), so pages on a later server would not load.
    """
    global _server  # the next preview starts a fresh server
    with _server_lock:
        server, _server = _server, None
    if server is not None:
        server.close()


def _engine_reaches(server: CapabilityServer) -> bool:
    sandbox = sys.modules.get("previewers.web.sandbox")
    switches = sandbox.engine_switches() if sandbox is not None else None
    return switches is not None and switches.direct_port == server.port


def _on_application_about_to_quit() -> None:
    # The engine lives until the process ends, and so must the one server it
    # can reach: if the port were free, another local program could take it
    # and be sent the pages' requests. Without an engine, stop serving now.
    with _server_lock:
        server = _server
    if server is not None and not _engine_reaches(server):
        close_shared_server()


@dataclass(frozen=True)
class PageSpec:
    """How to turn one opened file into a page, and how to present it.

    ``bind(file, cancelled)`` runs on a worker thread and stops soon after
    ``cancelled()`` turns true; ``what`` names the files in messages
    ("web pages"); ``source_key`` is the resource whose bytes "Source" shows
    (``None``: the entry document); ``offer_source`` is False for binary files.
    ``ready_script``, for a page whose scripts go on drawing after it loads,
    is an expression that turns true once they are done: the page counts as
    loaded then, and its load budget covers the wait.
    """

    bind: Callable[[VerifiedFile, Callable[[], bool]], Bundle]
    what: str
    javascript: bool
    source_key: str | None = None
    offer_source: bool = True
    ready_script: str | None = None


def html_spec(path: str, workspace_root: str, policy: Policy) -> PageSpec:
    """An HTML document with its direct dependencies, within ``workspace_root``.

    ``policy`` is the one in force when the preview was made, asked for on the
    GUI thread; the binding runs on a worker.
    """

    def bind(file: VerifiedFile, cancelled: Callable[[], bool]) -> Bundle:
        return bind_html(file, path, workspace_root, policy, cancelled)

    return PageSpec(bind, "web pages", javascript=True)


def remote_html_spec(
    path: str, workspace_root: str, policy: Policy, fetch: Fetch
) -> PageSpec:
    """``html_spec`` for a page of a remote workspace: ``path`` is the server's.

    The page's bytes are the verified snapshot the preview holds; each
    dependency is fetched whole from the host by ``fetch``, with the limits,
    the policy and the refusals of a local page.
    """
    root, segments = _remote_place(path, workspace_root)

    def bind(file: VerifiedFile, cancelled: Callable[[], bool]) -> Bundle:
        document = file.read(MAX_BUNDLE_BYTES + 1, 0)
        if len(document) != file.identity.size:
            raise BindError("the page changed while it was being read")
        return bind_document(document, root, segments, policy, fetch, cancelled)

    return PageSpec(bind, "web pages", javascript=True)


def _remote_place(path: str, workspace_root: str) -> tuple[str, tuple[str, ...]]:
    """The bundle root of a remote page and the page's segments below it."""
    if (
        workspace_root
        and path != workspace_root
        and is_within(path, workspace_root, sep="/")
    ):
        return workspace_root, tuple(posixpath.relpath(path, workspace_root).split("/"))
    root, name = posixpath.split(path)
    return root, (name,)


Render = Callable[[VerifiedFile, Callable[[], bool]], bytes]
"""Writes a page from an opened file, on a worker: ``render(file, cancelled)``."""

Finish = Callable[[Bundle], Bundle]
"""Adds the app's own files to a page it wrote, once bound (on the worker)."""


def made_page_spec(
    path: str,
    workspace_root: str,
    policy: Policy,
    render: Render,
    *,
    what: str,
    fetch: Fetch | None = None,
    finish: Finish | None = None,
    ready_script: str | None = None,
) -> PageSpec:
    """A page the app writes from a file (a notebook), bound as a page beside it.

    The files the page names are bound as an HTML page's would be, within
    ``workspace_root`` (``fetch`` reads them from a remote workspace); its
    scripts run as any page's. ``finish`` then adds the app's own files (the
    scripts that draw its math), which no file of the workspace stands in
    for; ``ready_script`` says when those are done. It has no source of its
    own to offer: the file's is shown by whoever shows the page.
    """
    remote = _remote_place(path, workspace_root) if fetch is not None else None

    def bind(file: VerifiedFile, cancelled: Callable[[], bool]) -> Bundle:
        document = render(file, cancelled)
        if remote is None or fetch is None:
            bundle = bind_made_page(
                document, file, path, workspace_root, policy, cancelled
            )
        else:
            root, segments = remote
            page = made_page_segments(segments)
            bundle = bind_document(document, root, page, policy, fetch, cancelled)
        return bundle if finish is None else finish(bundle)

    return PageSpec(
        bind, what, javascript=True, offer_source=False, ready_script=ready_script
    )


def image_spec(path: str, mime: str) -> PageSpec:
    """An image (or SVG) shown as ``<img>`` in a generated page with no script.

    ``mime`` is the type the file's bytes gave: it is served as that, whatever
    the name says.
    """

    def bind(file: VerifiedFile, cancelled: Callable[[], bool]) -> Bundle:
        return bind_image_page(file, path, content_type=mime)  # one read: quick

    svg = mime == SVG_MIME
    what = "SVG images" if svg else "images in the built-in browser"
    return PageSpec(bind, what, javascript=False, source_key="", offer_source=svg)


@dataclass(frozen=True)
class BoundPage:
    """A bound bundle and the source text of the file it was made from."""

    bundle: Bundle
    source: TextLoadResult | None
    """``None`` for a page that offers no source."""


def source_of(bundle: Bundle, source_key: str | None) -> TextLoadResult:
    """The text "Source" shows for a bound page: the document, or the image."""
    if source_key is None:
        data = bundle.source  # as the file has it, not as it is served
        text, charset = decode_html(data)
    else:
        # An image page: the image is the one resource that is not the page.
        key = next(k for k in bundle.resources if k != bundle.entry_key)
        data = bundle.resources[key].data
        text, charset = data.decode("utf-8", "replace"), "utf-8"
    notices: tuple[str, ...] = ()
    truncated = len(text) > TEXT_LIMIT
    if truncated:
        text = text[:TEXT_LIMIT]
        notices = (f"Showing the first {TEXT_LIMIT >> 20} MiB of the source.",)
    return TextLoadResult(text, charset, notices, truncated, len(data))
