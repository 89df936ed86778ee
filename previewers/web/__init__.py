"""Pages and SVG in a sandboxed web view fed only by a loopback capability URL.

Cheap to import: the widget (``previewers.web.preview``), and the web engine
with it, load only when a page is actually shown. The same previewers, without
the Preview/Source toggle, make the built-in browser's table
(``previewers.registry.BROWSER``), with one more for raster images.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.filetype import Kind
from app.core.serve.manifest import MAX_BUNDLE_BYTES
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from previewers.web.pages import Finish, Render
    from previewers.web.preview import WebPreviewWidget

HTML_SUFFIXES = (".html", ".htm")
SVG_SUFFIXES = (".svg", ".svgz")
PAGE_MADE_SUFFIXES = (".ipynb",)
"""Files whose preview is a page the app writes (``made_page_widget``)."""


def prepare_web_engine() -> bool:
    """Start the web engine before the first page needs it; False if it cannot.

    For an idle moment on the GUI thread (the engine can start nowhere else):
    the capability server, the engine's switches and its browser side. The
    first HTML or SVG preview then starts in tens of milliseconds, not in a
    tenth of a second or more.
    """
    from previewers.web.preview import engine_refusal

    if engine_refusal() is not None:
        return False
    from previewers.web import sandbox
    from previewers.web.pages import shared_server

    server = shared_server()
    sandbox.start_engine(server.port)
    sandbox.prepare_context(server.origin)
    return True


def needs_web_engine(kind: str, name: str) -> bool:
    """Whether a file of this kind (``""`` if unknown) and name opens in the engine."""
    return kind == Kind.HTML.value or name.lower().endswith(
        HTML_SUFFIXES + SVG_SUFFIXES + PAGE_MADE_SUFFIXES
    )


class HtmlPreviewer:
    """``.html``/``.htm`` files whose head is text; "Show source" goes to text."""

    name = "html"
    fetch_limit = MAX_BUNDLE_BYTES
    pages_remotely = False

    def __init__(self, *, toggle: bool = True) -> None:
        self._toggle = toggle

    def accepts(self, source: PreviewSource) -> bool:
        return (
            not source.source_view
            and source.kind is Kind.HTML
            and source.name.lower().endswith(HTML_SUFFIXES)
            and source.is_text
        )

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> WebPreviewWidget:
        from previewers.web.pages import html_spec, remote_html_spec
        from previewers.web.preview import WebPreviewWidget

        # The page binds its files within the workspace holding it, under the
        # policy in force now (asked here, on the GUI thread).
        root = context.workspace_root(source.path)
        if context.remote is not None:
            fetch = context.remote.fetch_dependency
            spec = remote_html_spec(source.path, root, context.policy(), fetch)
        else:
            spec = html_spec(source.path, root, context.policy())
        return WebPreviewWidget(
            source, file, spec, parent, show_toggle=self._toggle, context=context
        )


class SvgPreviewer:
    """Files whose bytes say SVG, whatever their name; shown as ``<img>``.

    QtSvg follows ``<image href="/any/local/file">``; in a browser's image
    context an SVG runs no script and loads nothing it names.
    """

    name = "svg"
    fetch_limit = MAX_BUNDLE_BYTES
    pages_remotely = False

    def __init__(self, *, toggle: bool = True) -> None:
        self._toggle = toggle

    def accepts(self, source: PreviewSource) -> bool:
        return not source.source_view and source.is_text and source.type.is_svg

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> WebPreviewWidget:
        return _image_page(source, file, parent, self._toggle, context)


class ImagePagePreviewer:
    """Raster images by their bytes, wrapped in a page: the built-in browser's."""

    name = "image_page"
    fetch_limit = MAX_BUNDLE_BYTES
    pages_remotely = False

    def accepts(self, source: PreviewSource) -> bool:
        return source.kind is Kind.IMAGE and not source.type.is_svg

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> WebPreviewWidget:
        return _image_page(source, file, parent, False, context)


class NotAPagePreviewer:
    """The built-in browser's last entry: what is neither a page nor an image."""

    name = "not_a_page"
    fetch_limit = 0  # the refusal needs no bytes
    pages_remotely = False

    def accepts(self, source: PreviewSource) -> bool:
        return True

    def create(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None,
        *,
        context: PreviewContext = STANDALONE,
    ) -> PreviewWidget:
        widget = PreviewWidget(source, file, parent, context=context)
        widget.mark_refused(
            f"the built-in browser shows pages and images; this is "
            f"{source.type.description}"
        )
        return widget


def _image_page(
    source: PreviewSource,
    file: VerifiedFile,
    parent: QWidget | None,
    toggle: bool,
    context: PreviewContext,
) -> WebPreviewWidget:
    from previewers.web.pages import image_spec
    from previewers.web.preview import WebPreviewWidget

    spec = image_spec(source.path, source.mime)
    return WebPreviewWidget(
        source, file, spec, parent, show_toggle=toggle, context=context
    )


def made_page_widget(
    source: PreviewSource,
    file: VerifiedFile,
    parent: QWidget | None,
    *,
    render: Render,
    what: str,
    context: PreviewContext = STANDALONE,
    finish: Finish | None = None,
    ready_script: str | None = None,
) -> WebPreviewWidget:
    """A page the app writes from ``file`` (a notebook), shown as an HTML page is.

    ``render(file, cancelled)`` writes the page on a worker; it is bound beside
    the file (its links resolve from the file's folder, in the workspace, under
    the policy in force now), ``finish(bundle)`` adds the app's own files to
    it, and it is published and shown in the sandboxed view, with no toolbar:
    whoever shows it offers the file's own text. It counts as loaded once
    ``ready_script`` turns true in it, if given. As root it is refused
    (``what`` names the files in the reason). Another family gets this
    function from the registry, never by importing this one.
    """
    from previewers.web.pages import made_page_spec
    from previewers.web.preview import WebPreviewWidget

    root = context.workspace_root(source.path)
    fetch = context.remote.fetch_dependency if context.remote is not None else None
    spec = made_page_spec(
        source.path,
        root,
        context.policy(),
        render,
        what=what,
        fetch=fetch,
        finish=finish,
        ready_script=ready_script,
    )
    return WebPreviewWidget(
        source, file, spec, parent, show_toggle=False, context=context
    )


HTML_PREVIEWER = HtmlPreviewer()
"""The instance to register: before the code previewer."""

SVG_PREVIEWER = SvgPreviewer()
"""The instance to register: before every image previewer and plain text."""
