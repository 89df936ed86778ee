"""The page preview widget: a bound snapshot shown in a sandboxed web view.

The file is bound off the GUI thread (``previewers.web.pages``), published on
the shared loopback capability server, and shown in a web view built by
``previewers.web.sandbox``, which is imported only here and only when a page
is actually shown. As root, where Chromium cannot sandbox, the engine is never
started: the source is shown instead, with the reason.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.serve.capability_server import Publication
from app.core.serve.manifest import is_canonical_key
from app.core.trust.paths import is_within
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.source import PreviewSource
from previewers.web.info_bar import PageInfoBarWidget
from previewers.web.pages import BoundPage, PageSpec, shared_server, source_of
from previewers.web.source_text import TextLoadResult, load_text
from previewers.widget import PreviewWidget
from previewers.widgets import ISOLATED_LABEL

if TYPE_CHECKING:
    from PySide6.QtWebEngineCore import QWebEngineLoadingInfo, QWebEngineProfile

    from previewers.web.sandbox import (
        PrefixInterceptor,
        SandboxedPage,
        SandboxedWebView,
    )

_log = logging.getLogger(__name__)

SANDBOX_OFF_MESSAGE = "The preview's sandbox is not active, so the page was closed."
ROOT_REASON = "need the browser sandbox, which cannot run as the administrator (root)."
MIN_ZOOM, MAX_ZOOM, ZOOM_STEP = 0.25, 5.0, 1.2
RENDERER_ENDED_MESSAGE = "The page's renderer {}, so the page is not shown."
LOAD_BUDGET_S = 20.0
"""A page that has not finished loading this long after it started is stopped."""
LOAD_TIMEOUT_MESSAGE = (
    "The page did not finish loading within {seconds:.0f} seconds (a script on it "
    "may never end), so it was stopped."
)
READY_POLL_MS = 50
"""How often a page with a ``ready_script`` is asked whether it is done."""


def engine_refusal() -> str | None:
    """Why the web engine must not start in this process, or ``None``.

    Chromium cannot sandbox as root and would abort the whole app unless its
    sandbox were turned off, which this app never does.
    """
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return "root"
    return None


PAGE_SUFFIXES = (".html", ".htm", ".xhtml")
WEB_SCHEMES = frozenset({"http", "https"})


def _same_origin(first: QUrl, second: QUrl) -> bool:
    return (first.scheme(), first.host(), first.port()) == (
        second.scheme(),
        second.host(),
        second.port(),
    )


def local_page_for(url: QUrl, publication: Publication, entry_path: str) -> str | None:
    """The local page a link in a published page points to, or ``None``.

    Only a link below the publication's own prefix on the loopback server,
    to a canonical key that names an HTML file inside the bundle's root (the
    folder the entry's key is relative to), is a local page. Nothing is
    opened here: the caller opens the path through the workspace's checks.
    """
    base = QUrl(publication.url)
    if (url.scheme(), url.host(), url.port()) != (
        base.scheme(),
        base.host(),
        base.port(),
    ):
        return None
    path = url.path(QUrl.ComponentFormattingOption.FullyDecoded)
    prefix = publication.prefix.rstrip("/") + "/"
    if not path.startswith(prefix):
        return None
    key = path[len(prefix) :]
    if not is_canonical_key(key) or not key.lower().endswith(PAGE_SUFFIXES):
        return None
    entry_parts = publication.entry_key.count("/") + 1
    root = os.path.abspath(entry_path)
    for _ in range(entry_parts):
        root = os.path.dirname(root)
    target = os.path.normpath(os.path.join(root, *key.split("/")))
    return target if is_within(target, root) else None


class WebPreviewWidget(PreviewWidget):
    """A page in a sandboxed web view, with a Preview/Source toggle and info bar.

    Closing (``release``) revokes the page's capability URL and deletes its
    page before its profile. A crashed renderer shows a message and a Reload
    button; nothing reloads by itself.

    Signals:
        pageRequested(str): a link to another local page was clicked; its path,
            for the workspace to open with its own checks (bound afresh).
        (and those of ``PreviewWidget``)

    ``ask_open(parent, url)``, ``tell(parent, message)`` and ``open_url(url)``
    are the same seams the Markdown preview has, for any other link.
    """

    pageRequested = Signal(str)

    def __init__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        spec: PageSpec,
        parent: QWidget | None = None,
        *,
        show_toggle: bool = True,
        context: PreviewContext = STANDALONE,
    ) -> None:
        super().__init__(source, file, parent, context=context)
        self._spec = spec
        self.open_url: Callable[[QUrl], object] = QDesktopServices.openUrl
        self._link_action: Callable[[], object] | None = None
        # The live page, its view and URL: None before loading, after closing
        # and as root.
        self.publication: Publication | None = None
        self.page: SandboxedPage | None = None
        self._profile: QWebEngineProfile | None = None
        self._interceptor: PrefixInterceptor | None = None
        self.view: SandboxedWebView | None = None
        self._zoom = 1.0
        self.sandbox_detail = ""
        # A load past its budget is stopped by ending its renderer; a renderer
        # that ended has its message shown, whatever the load then reports.
        self._load_timer = QTimer(self)
        self._load_timer.setSingleShot(True)
        self._load_timer.timeout.connect(self._on_load_timer_timeout)
        self._timed_out = False
        self._renderer_ended = False
        self._loads = 0  # which load a ready check belongs to

        container = QWidget(self)
        layout = QVBoxLayout(container)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.toolbar = QWidget(container)
        bar = QHBoxLayout(self.toolbar)
        bar.setContentsMargins(6, 3, 6, 3)
        self.preview_button = self._toggle_button("Preview")
        self.source_button = self._toggle_button("Source")
        self.preview_button.setChecked(True)
        group = QButtonGroup(self.toolbar)
        group.addButton(self.preview_button)
        group.addButton(self.source_button)
        group.setExclusive(True)
        self.preview_button.toggled.connect(self._on_preview_button_toggled)
        self.isolated_label = QLabel(ISOLATED_LABEL, self.toolbar)
        self.isolated_label.setTextFormat(Qt.TextFormat.PlainText)
        self.isolated_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        bar.addWidget(self.preview_button)
        bar.addWidget(self.source_button)
        bar.addStretch(1)
        bar.addWidget(self.isolated_label)
        self.toolbar.setVisible(show_toggle and spec.offer_source)
        self.info_bar = PageInfoBarWidget(container)
        self.link_bar = QWidget(container)
        self.link_bar.setAccessibleName("Link")
        self.link_bar.setAutoFillBackground(True)
        self.link_bar.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        link_row = QHBoxLayout(self.link_bar)
        link_row.setContentsMargins(8, 4, 8, 4)
        self.link_label = QLabel(self.link_bar)
        self.link_label.setTextFormat(Qt.TextFormat.PlainText)
        self.link_label.setWordWrap(True)
        self.link_label.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.link_button = QPushButton(self.link_bar)
        self.link_button.clicked.connect(self._on_link_button_clicked)
        link_close = QToolButton(self.link_bar)
        link_close.setText("\u00d7")
        link_close.setAutoRaise(True)
        link_close.setAccessibleName("Dismiss the link")
        link_close.clicked.connect(self.link_bar.hide)
        link_row.addWidget(self.link_label, 1)
        link_row.addWidget(self.link_button)
        link_row.addWidget(link_close)
        self.link_bar.hide()
        self.stack = QStackedWidget(container)
        self.page_holder = QWidget(self.stack)
        self.page_layout = QVBoxLayout(self.page_holder)
        self.page_layout.setContentsMargins(0, 0, 0, 0)
        self._source_text = self.context.source_text(
            source.name, self.is_dark(), self.stack
        )
        self.source_view = self._source_text.widget
        self._source_loaded = False
        self.source_view.setReadOnly(True)
        self.source_view.setUndoRedoEnabled(False)
        self.source_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.source_view.setAccessibleName(f"Source of {source.name}")
        self._source_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.source_view.setFont(QFont(self._source_font))
        self.stopped_panel = QWidget(self.stack)
        stopped = QVBoxLayout(self.stopped_panel)
        stopped.addStretch(1)
        self.stopped_label = QLabel(self.stopped_panel)
        self.stopped_label.setTextFormat(Qt.TextFormat.PlainText)
        self.stopped_label.setWordWrap(True)
        self.stopped_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reload_button = QPushButton("Reload", self.stopped_panel)
        self.reload_button.setAccessibleName("Reload the page")
        self.reload_button.clicked.connect(self._on_reload_button_clicked)
        stopped.addWidget(self.stopped_label)
        stopped.addWidget(self.reload_button, 0, Qt.AlignmentFlag.AlignHCenter)
        stopped.addStretch(2)
        for page in (self.page_holder, self.source_view, self.stopped_panel):
            self.stack.addWidget(page)
        self.stack.currentChanged.connect(self._on_stack_current_changed)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.info_bar)
        layout.addWidget(self.link_bar)
        layout.addWidget(self.stack, 1)
        self.set_content(container)

        if engine_refusal() is not None:
            self._start_without_engine()
        else:
            self.run_in_background(self._bind_job, self._on_binder_finished)

    def _toggle_button(self, text: str) -> QToolButton:
        button = QToolButton(self.toolbar)
        button.setText(text)
        button.setCheckable(True)
        button.setAutoRaise(True)
        button.setAccessibleName(f"Show {text.lower()}")
        return button

    # -- what the workspace uses ------------------------------------------------

    def release(self) -> None:
        if self.is_released():
            return
        super().release()
        self._close_page()

    def zoom_in(self) -> None:
        self._set_zoom(self._zoom * ZOOM_STEP)

    def zoom_out(self) -> None:
        self._set_zoom(self._zoom / ZOOM_STEP)

    def zoom_reset(self) -> None:
        self._set_zoom(1.0)

    def zoom_factor(self) -> float:
        return self._zoom

    def scroll_to_anchor(self, anchor: str) -> None:
        """Bring the element whose id is ``anchor`` into view (a heading)."""
        page = self.page
        if page is None:
            return
        from PySide6.QtWebEngineCore import QWebEngineScript

        # The app's own world: the page's scripts cannot change what runs here.
        page.runJavaScript(
            f"document.getElementById({json.dumps(anchor)})?.scrollIntoView()",
            QWebEngineScript.ScriptWorldId.ApplicationWorld,
        )

    # -- state, for the window and tests -------------------------------------------

    def blocked_urls(self) -> list[str]:
        return self._interceptor.blocked_urls() if self._interceptor else []

    def showing_source(self) -> bool:
        return self.stack.currentWidget() is self.source_view

    def source_text(self) -> str:
        return self.source_view.toPlainText()

    def stopped_text(self) -> str:
        shown = self.stack.currentWidget() is self.stopped_panel
        return self.stopped_label.text() if shown else ""

    def reload(self) -> None:
        """Load the entry URL again (after a crash, or when the user asks)."""
        if self.page is None:
            return
        self.stopped_label.clear()
        if not self.showing_source():
            self.stack.setCurrentWidget(self.page_holder)
        self._load()

    # -- loading ---------------------------------------------------------------------

    def _bind_job(self, file: VerifiedFile, cancelled: threading.Event) -> BoundPage:
        bundle = self._spec.bind(file, cancelled.is_set)
        if not self._spec.offer_source:
            # Nothing shows it: 2 MiB of text costs the GUI thread a second.
            return BoundPage(bundle, None)
        return BoundPage(bundle, source_of(bundle, self._spec.source_key))

    @Slot(object)
    def _on_binder_finished(self, bound: BoundPage) -> None:
        if bound.source is not None:
            self._show_source(bound.source)
        self.info_bar.set_left_out(bound.bundle.left_out)
        self.info_bar.set_libraries(bound.bundle.libraries)
        server = shared_server()
        self.publication = server.publish(bound.bundle)
        self._open_page(self.publication, server.port)

    def _open_page(self, publication: Publication, server_port: int) -> None:
        # The web engine loads on first use, with the sandbox module.
        from previewers.web import sandbox as web_sandbox

        try:
            web_sandbox.start_engine(server_port)
        except RuntimeError as error:
            publication.revoke()
            self.mark_failed(str(error))
            return
        profile, interceptor = web_sandbox.create_profile(
            publication.prefix, javascript=self._spec.javascript
        )
        page = web_sandbox.SandboxedPage(
            profile, publication.url, javascript=self._spec.javascript
        )
        view = web_sandbox.SandboxedWebView(self.page_holder)
        view.setAccessibleName(f"Preview of {self.source.name}")
        view.setPage(page)
        view.setZoomFactor(self._zoom)
        self.page_layout.addWidget(view)
        interceptor.blocked.connect(self._on_interceptor_blocked)
        page.loadingChanged.connect(self._on_page_loading_changed)
        page.linkClicked.connect(self.follow_link, Qt.ConnectionType.QueuedConnection)
        page.renderProcessTerminated.connect(self._on_page_render_process_terminated)
        self.page, self._profile = page, profile
        self._interceptor, self.view = interceptor, view
        self._load()

    def _load(self) -> None:
        if self.page is None:
            return
        self._timed_out = self._renderer_ended = False
        self._loads += 1
        self.page.load_entry()
        self._load_timer.start(int(LOAD_BUDGET_S * 1000))

    @Slot()
    def _on_load_timer_timeout(self) -> None:
        page = self.page
        if page is None or self._renderer_ended:
            return
        self._timed_out = True
        pid = page.renderProcessPid()
        if pid > 0:
            # A script that never ends keeps the renderer busy and deaf to a
            # stop; ending the renderer ends the script (its termination
            # shows the message).
            try:
                os.kill(pid, signal.SIGKILL)
                return
            except OSError:
                pass
        from PySide6.QtWebEngineCore import QWebEnginePage

        page.triggerAction(QWebEnginePage.WebAction.Stop)
        self._stop_on_renderer_end(self._timeout_message())

    def _timeout_message(self) -> str:
        return LOAD_TIMEOUT_MESSAGE.format(seconds=LOAD_BUDGET_S)

    def _stop_on_renderer_end(self, message: str) -> None:
        self._load_timer.stop()
        self._renderer_ended = True
        self._show_stopped(message, reload=True)
        if not self.is_settled():
            self.mark_failed(message)

    @Slot(QUrl)
    def follow_link(self, url: QUrl) -> None:
        """A clicked link, answered in a bar above the page; nothing opens until
        the user presses its button (a page's script can click links too).

        Another page beside this one is offered to open in a tab of its own (the
        workspace opens it with its checks); a web link is offered to the
        system browser, as Markdown asks; anything else is not opened.
        """
        publication = self.publication
        local = (
            local_page_for(url, publication, self.source.path)
            if publication is not None
            else None
        )
        if local is not None:
            name = os.path.basename(local)
            self._offer_link(f"This page links to {name}.", "Open the page", local)
            return
        if publication is not None and _same_origin(url, QUrl(publication.url)):
            # Only the name: the path holds the capability token.
            shown = url.path(QUrl.ComponentFormattingOption.FullyDecoded)
            self._offer_link(
                "This link is not opened: only other pages beside this one are: "
                + shown.rsplit("/", 1)[-1],
                None,
                None,
            )
            return
        shown = url.toString()
        if url.scheme().lower() not in WEB_SCHEMES:
            self._offer_link(
                f"This link is not opened: only web links (http, https) are: {shown}",
                None,
                None,
            )
            return
        self._offer_link(f"Open this link in your web browser? {shown}", "Open", url)

    def _offer_link(self, text: str, button: str | None, target: object) -> None:
        self.link_label.setText(text)
        self.link_button.setVisible(button is not None)
        self.link_button.setText(button or "")
        if isinstance(target, str):
            path = target
            self._link_action = lambda: self.pageRequested.emit(path)
        elif isinstance(target, QUrl):
            url = QUrl(target)
            self._link_action = lambda: self.open_url(url)
        else:
            self._link_action = None
        self.link_bar.show()

    def link_text(self) -> str:
        return self.link_label.text() if self.link_bar.isVisibleTo(self) else ""

    @Slot()
    def _on_link_button_clicked(self) -> None:
        action, self._link_action = self._link_action, None
        self.link_bar.hide()
        if action is not None:
            action()

    @Slot(object)
    def _on_page_loading_changed(self, info: QWebEngineLoadingInfo) -> None:
        from PySide6.QtWebEngineCore import QWebEngineLoadingInfo

        from previewers.web import sandbox as web_sandbox

        page = self.page
        if page is None or self.sender() is not page:
            return
        status = info.status()
        if status is QWebEngineLoadingInfo.LoadStatus.LoadStartedStatus:
            return
        entry = page.entry_url.toString()
        # A navigation the page starts elsewhere (a script setting location)
        # is refused and ends the loading with its own URL; the entry
        # document stays and is what counts.
        if _without_fragment(page.url()) != entry:
            return
        if self._renderer_ended:
            return  # the renderer's end was shown and is the outcome
        failed = (
            status is QWebEngineLoadingInfo.LoadStatus.LoadFailedStatus
            and _without_fragment(info.url()) == entry
        )
        pid = page.renderProcessPid()
        if failed and pid <= 0:
            # The renderer is gone (it crashed or ran out of memory) before
            # its end was reported: nothing is shown, and Reload starts a
            # renderer that is checked again.
            self._stop_on_renderer_end(RENDERER_ENDED_MESSAGE.format("stopped"))
            return
        sandbox = web_sandbox.check_renderer_sandbox(pid)
        self.sandbox_detail = sandbox.detail
        if not sandbox.active:
            self._load_timer.stop()
            _log.error("renderer sandbox inactive (%s); page closed", sandbox.detail)
            self._close_page()
            self._show_stopped(SANDBOX_OFF_MESSAGE, reload=False)
            self.mark_failed(SANDBOX_OFF_MESSAGE)
            return
        if self.view is not None:
            self.view.harden_focus_proxy()
        if failed:
            self._load_timer.stop()
            self.mark_failed(info.errorString() or "the page did not load")
            return
        self._when_ready(page)

    def _when_ready(self, page: SandboxedPage) -> None:
        """Mark the page loaded once its spec's ``ready_script`` turns true.

        Asked every ``READY_POLL_MS`` in the app's own script world; the load
        timer keeps running, so a page that never gets there (or a renderer
        that hangs and never answers) is stopped after its budget.
        """
        script = self._spec.ready_script
        if script is None:
            self._load_timer.stop()
            self.mark_loaded()
            return
        from PySide6.QtWebEngineCore import QWebEngineScript

        load = self._loads

        def current() -> bool:
            return (
                self.page is page and self._loads == load and not self._renderer_ended
            )

        def ask() -> None:
            if current():
                page.runJavaScript(
                    script, QWebEngineScript.ScriptWorldId.ApplicationWorld, answered
                )

        def answered(value: object) -> None:
            if not current():
                return
            if value is True:
                self._load_timer.stop()
                self.mark_loaded()
            else:
                QTimer.singleShot(READY_POLL_MS, self, ask)

        ask()

    @Slot(object, int)
    def _on_page_render_process_terminated(self, status: object, code: int) -> None:
        from PySide6.QtWebEngineCore import QWebEnginePage

        if self.page is None or self.sender() is not self.page:
            return
        words = {
            QWebEnginePage.RenderProcessTerminationStatus.CrashedTerminationStatus: (
                "crashed"
            ),
            QWebEnginePage.RenderProcessTerminationStatus.KilledTerminationStatus: (
                "was stopped"
            ),
        }.get(status, "stopped")  # type: ignore[call-overload]
        if self._timed_out:
            message = self._timeout_message()
        else:
            message = RENDERER_ENDED_MESSAGE.format(words)
        self._stop_on_renderer_end(message)

    @Slot(str)
    def _on_interceptor_blocked(self, url: str) -> None:
        self.info_bar.add_blocked(url)

    @Slot()
    def _on_reload_button_clicked(self) -> None:
        self.reload()

    @Slot(bool)
    def _on_preview_button_toggled(self, checked: bool) -> None:
        if checked:
            stopped = bool(self.stopped_label.text())
            self.stack.setCurrentWidget(
                self.stopped_panel if stopped else self.page_holder
            )
        else:
            self.stack.setCurrentWidget(self.source_view)

    # -- without the engine ----------------------------------------------------------

    def _start_without_engine(self) -> None:
        self.preview_button.setEnabled(False)
        self.source_button.setChecked(True)
        if not self._spec.offer_source:
            self.mark_refused(f"Previews of {self._spec.what} {ROOT_REASON}")
            return
        self.info_bar.set_explanation(
            f"Previews of {self._spec.what} {ROOT_REASON} Showing the source instead."
        )
        self.stack.setCurrentWidget(self.source_view)
        self.run_in_background(_load_source_job, self._on_source_loader_finished)

    @Slot(object)
    def _on_source_loader_finished(self, result: TextLoadResult) -> None:
        self._show_source(result)
        self.mark_loaded()

    def _show_source(self, result: TextLoadResult) -> None:
        self.source_view.setPlainText(result.text)
        for notice in result.notices:
            self.info_bar.add_notice(notice)
        self._source_loaded = True
        self._colour_source_if_shown()

    @Slot(int)
    def _on_stack_current_changed(self, _index: int) -> None:
        self._colour_source_if_shown()

    def _colour_source_if_shown(self) -> None:
        if self._source_loaded and self.stack.currentWidget() is self.source_view:
            self.colour_source(self._source_text)

    # -- closing ---------------------------------------------------------------------

    def _show_stopped(self, message: str, *, reload: bool) -> None:
        self.stopped_label.setText(message)
        self.reload_button.setVisible(reload)
        self.preview_button.setChecked(True)
        self.stack.setCurrentWidget(self.stopped_panel)

    def _close_page(self) -> None:
        """Revoke the URL, then delete the page before its profile."""
        self._load_timer.stop()
        if self.publication is not None:
            self.publication.revoke()
        page, profile, view = self.page, self._profile, self.view
        self.page = self._profile = self._interceptor = self.view = None
        if page is not None and profile is not None:
            from previewers.web import sandbox as web_sandbox

            page.loadingChanged.disconnect(self._on_page_loading_changed)
            page.renderProcessTerminated.disconnect(
                self._on_page_render_process_terminated
            )
            web_sandbox.dispose(page, profile)
        if view is not None:
            view.hide()
            view.deleteLater()

    def _set_zoom(self, factor: float) -> None:
        self._zoom = min(MAX_ZOOM, max(MIN_ZOOM, factor))
        view = self.view
        if view is not None:
            view.setZoomFactor(self._zoom)
        font = QFont(self._source_font)
        font.setPointSizeF(max(4.0, self._source_font.pointSizeF() * self._zoom))
        self.source_view.setFont(font)


def _without_fragment(url: QUrl) -> str:
    return url.toString().split("#", 1)[0]


def _load_source_job(file: VerifiedFile, _cancelled: threading.Event) -> TextLoadResult:
    return load_text(file)
