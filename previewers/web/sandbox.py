"""The hardened web engine pieces every page preview uses: profile, page, view.

Imports QtWebEngine, so only ``previewers.web.preview`` imports this module,
and only when a page preview is created. Everything here assumes the page is
hostile: it came from an agent. The capability server already sends a
``sandbox allow-scripts`` Content-Security-Policy (opaque origin, no storage,
no forms, no popups); this layer is the second wall, inside the browser.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, QUrl, Signal
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
)
from PySide6.QtNetwork import QNetworkProxyFactory
from PySide6.QtWebEngineCore import (
    QWebEngineDesktopMediaRequest,
    QWebEngineDownloadRequest,
    QWebEngineFileSystemAccessRequest,
    QWebEngineFullScreenRequest,
    QWebEnginePage,
    QWebEnginePermission,
    QWebEngineProfile,
    QWebEngineRegisterProtocolHandlerRequest,
    QWebEngineScript,
    QWebEngineSettings,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineWebAuthUxRequest,
)
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

from app.core.serve.capability_server import HOST as CAPABILITY_HOST
from app.core.serve.capability_server import PREFIX as CAPABILITY_PREFIX

_log = logging.getLogger(__name__)

NEUTRAL_USER_AGENT = "Mozilla/5.0 (preview)"
MAX_BLOCKED = 200
"""Blocked URLs kept for the info bar; a page looping on requests stops here."""

# WORKAROUND(Blink lets execCommand("copy") write the clipboard whenever the
# frame has transient user activation, whatever JavascriptCanAccessClipboard
# says): one click would let a page put "curl … | sh" on the clipboard. A
# preview edits and copies nothing by itself, so every frame gets, before any
# of its own script runs, an execCommand that does nothing. It is frozen, so
# the page can neither restore nor replace it, and a document.open() keeps
# it (the prototype stays). The page reaches no other realm: its frames are
# cross-origin to it (the sandbox gives each document its own opaque origin)
# and get the same script. Copy keys are handled by the view instead.
NO_COPY_SCRIPT_NAME = "deliverables-no-page-copy"
NO_COPY_SCRIPT = """
Object.defineProperty(Document.prototype, "execCommand", {
  value: function execCommand() { return false; },
  writable: false, configurable: false, enumerable: true,
});
"""

_Attribute = QWebEngineSettings.WebAttribute
# Every attribute a preview turns off. The defaults of an off-the-record
# profile have file URL access, popups, the PDF viewer, navigate-on-drop,
# WebGL and local storage on.
SETTINGS_OFF: tuple[QWebEngineSettings.WebAttribute, ...] = (
    _Attribute.LocalContentCanAccessFileUrls,
    _Attribute.LocalContentCanAccessRemoteUrls,
    _Attribute.JavascriptCanOpenWindows,
    _Attribute.JavascriptCanAccessClipboard,
    _Attribute.JavascriptCanPaste,
    _Attribute.AllowWindowActivationFromJavaScript,
    _Attribute.PluginsEnabled,
    _Attribute.PdfViewerEnabled,
    _Attribute.WebGLEnabled,
    _Attribute.Accelerated2dCanvasEnabled,
    _Attribute.LocalStorageEnabled,
    _Attribute.ScreenCaptureEnabled,
    _Attribute.AllowRunningInsecureContent,
    _Attribute.AllowGeolocationOnInsecureOrigins,
    _Attribute.NavigateOnDropEnabled,
    _Attribute.FullScreenSupportEnabled,
    _Attribute.AutoLoadIconsForPage,
    _Attribute.TouchIconsEnabled,
    _Attribute.DnsPrefetchEnabled,
    _Attribute.HyperlinkAuditingEnabled,
    _Attribute.ErrorPageEnabled,
)
# WebRTCPublicInterfacesOnly only picks interfaces; the engine's WebRTC
# switch (below) overrides it and is what stops ICE.
SETTINGS_ON: tuple[QWebEngineSettings.WebAttribute, ...] = (
    _Attribute.PlaybackRequiresUserGesture,
    _Attribute.WebRTCPublicInterfacesOnly,
)
# Tokens are 43 URL-safe base64 characters; shorter segments are left alone so
# a blocked "/cap/outside.png" still says what the page asked for.
_TOKEN_IN_URL = re.compile(re.escape(CAPABILITY_PREFIX) + r"[A-Za-z0-9_-]{20,}")


def redact(url: str) -> str:
    """``url`` with any capability token replaced, fit for logs and the screen."""
    return _TOKEN_IN_URL.sub(CAPABILITY_PREFIX + "…", url)


def harden_settings(settings: QWebEngineSettings, *, javascript: bool) -> None:
    """Turn off every risky default; scripts run only where a page needs them."""
    for attribute in SETTINGS_OFF:
        settings.setAttribute(attribute, False)
    for attribute in SETTINGS_ON:
        settings.setAttribute(attribute, True)
    settings.setAttribute(_Attribute.JavascriptEnabled, javascript)
    settings.setUnknownUrlSchemePolicy(
        QWebEngineSettings.UnknownUrlSchemePolicy.DisallowUnknownUrlSchemes
    )


# -- the engine's process-wide switches -------------------------------------------
#
# Some of what a page can send never passes the request interceptor or the
# page's Content-Security-Policy: WebRTC's ICE (STUN and TURN over UDP, TURN
# over TCP, the names of its servers) and <link rel=preconnect>, which opens a
# socket and resolves a name without a request. Chromium only lets those be
# stopped for the whole engine, by switches read once, when its context is
# made. So the app sets exactly these, itself, when the first preview starts:
#
# * WebRTC may use no UDP at all and TCP only through the proxy, so no STUN or
#   TURN packet and no ICE connectivity check leaves directly;
# * the proxy is a loopback port this process holds bound but never listens
#   on: every connection to it is refused, so whatever would go through the
#   proxy goes nowhere. Loopback is not exempt from it (Chromium's implicit
#   bypass is removed); only the capability server's own address is;
# * no host name is resolved: every name maps to "not found" except the
#   capability server's address. Behind a fixed proxy the engine resolves no
#   name for a connection anyway; this is the second wall for whatever asks
#   the resolver itself (WebRTC's server and candidate names, DNS prefetch),
#   since the query alone carries the name and so the data in it.
#
# None of them touches Chromium's sandbox. QTWEBENGINE_CHROMIUM_FLAGS, which
# the app scrubbed at start-up, is the one channel that replaces every other
# source of switches (argv after --webEngineArgs included), so it is set to
# this exact list for the moment the engine starts and removed again, so no
# process the app starts later inherits it.
_FLAGS_VARIABLE = "QTWEBENGINE_CHROMIUM_FLAGS"


def chromium_flags(direct_port: int, null_proxy_port: int) -> list[str]:
    """The switches a preview engine runs with (see the comment above)."""
    host = CAPABILITY_HOST
    return [
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        f"--proxy-server=http://{host}:{null_proxy_port}",
        f"--proxy-bypass-list=<-loopback>;{host}:{direct_port}",
        f'--host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE {host}"',
    ]


@dataclass(frozen=True)
class EngineSwitches:
    """The engine's switches and the two ports they name.

    ``direct_port`` is the capability server's, the only one the engine
    connects to; ``null_proxy_port`` refuses every other connection.
    """

    direct_port: int
    null_proxy_port: int
    flags: tuple[str, ...]


_engine_lock = threading.Lock()
_engine: EngineSwitches | None = None
_engine_applied = False
_null_proxy_fd: int | None = None


def start_engine(direct_port: int) -> EngineSwitches:
    """Fix the engine's switches for a capability server on ``direct_port``.

    Call before the first profile is made; later calls must name the same
    port, since the engine reads its switches once and can reach no other.
    """
    global _engine, _null_proxy_fd  # one engine per process, configured once
    with _engine_lock:
        if _engine is not None:
            if _engine.direct_port != direct_port:
                raise RuntimeError(
                    "the preview engine can reach only the preview server it "
                    "started with; restart the app to show more pages"
                )
            return _engine
        _null_proxy_fd, null_port = _hold_null_proxy_port()
        flags = tuple(chromium_flags(direct_port, null_port))
        _engine = EngineSwitches(direct_port, null_port, flags)
        return _engine


def _hold_null_proxy_port() -> tuple[int, int]:
    """A loopback port bound for the rest of the process and never listened on.

    Connections to it are refused, and no other program can take it while it
    is held; the descriptor is let go of by the socket object, so only the
    process's end releases it.
    """
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if hasattr(socket, "SO_EXCLUSIVEADDRUSE"):
        held.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
    held.bind((CAPABILITY_HOST, 0))
    port = int(held.getsockname()[1])
    return held.detach(), port


def engine_switches() -> EngineSwitches | None:
    """The switches the engine runs (or will start) with, if it was started."""
    with _engine_lock:
        return _engine


def _new_profile(parent: QObject | None) -> QWebEngineProfile:
    """A new off-the-record profile; the first one starts the engine."""
    global _engine_applied  # the switches are read only once, by the first
    with _engine_lock:
        if _engine is None:
            raise RuntimeError("start_engine() must run before any profile")
        if _engine_applied:
            return QWebEngineProfile(parent)
        # Chromium's proxy switches are honoured only while Qt takes the
        # proxy from the system configuration, where switches come first.
        QNetworkProxyFactory.setUseSystemConfiguration(True)
        os.environ[_FLAGS_VARIABLE] = " ".join(_engine.flags)
        try:
            profile = QWebEngineProfile(parent)
        finally:
            os.environ.pop(_FLAGS_VARIABLE, None)
        _engine_applied = True
        return profile


class PrefixInterceptor(QWebEngineUrlRequestInterceptor):
    """Blocks every request outside one capability prefix, WebSockets included.

    Runs on the engine's IO thread and holds the profile while it does, so it
    only compares strings. Blocked URLs are kept (redacted) for the info bar.

    Signals:
        blocked(str): a request was blocked; its redacted URL.
    """

    blocked = Signal(str)

    def __init__(self, prefix: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._prefix = prefix
        self._lock = threading.Lock()
        self._blocked: list[str] = []

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl().toString(QUrl.ComponentFormattingOption.FullyEncoded)
        if url.startswith(self._prefix):
            return
        info.block(True)
        shown = redact(url)
        with self._lock:
            if len(self._blocked) >= MAX_BLOCKED or shown in self._blocked:
                return
            self._blocked.append(shown)
        self.blocked.emit(shown)

    def blocked_urls(self) -> list[str]:
        with self._lock:
            return list(self._blocked)


def create_profile(
    prefix: str, *, javascript: bool, parent: QObject | None = None
) -> tuple[QWebEngineProfile, PrefixInterceptor]:
    """A fresh off-the-record profile that can reach nothing but ``prefix``.

    No storage name means nothing is written to disk and nothing is shared
    with another preview: no cookies, cache, storage or permission decisions.
    """
    profile = _new_profile(parent)
    profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.NoCache)
    profile.setPersistentCookiesPolicy(
        QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies
    )
    profile.setPersistentPermissionsPolicy(
        QWebEngineProfile.PersistentPermissionsPolicy.AskEveryTime
    )
    profile.setHttpUserAgent(NEUTRAL_USER_AGENT)
    profile.setSpellCheckEnabled(False)
    harden_settings(profile.settings(), javascript=javascript)
    profile.scripts().insert(no_copy_script())
    interceptor = PrefixInterceptor(prefix, profile)
    profile.setUrlRequestInterceptor(interceptor)
    profile.downloadRequested.connect(_on_profile_download_requested)
    return profile, interceptor


_ready_profile: QWebEngineProfile | None = None


def prepare_context(origin: str) -> None:
    """Start the engine's browser side now, with no page, for the process.

    The first profile a process makes starts Chromium's browser side on the
    GUI thread (about 0.1 s, more on a cold disk). This one is made like any
    preview's, so the switches are applied exactly as they would be; its
    interceptor allows nothing, and no page is ever given to it.
    """
    global _ready_profile  # kept for the process: the context lives with it
    if _ready_profile is None:
        _ready_profile, _ = create_profile(f"{origin}/none/", javascript=False)


def no_copy_script() -> QWebEngineScript:
    """The script that takes ``execCommand`` from every frame, first thing."""
    script = QWebEngineScript()
    script.setName(NO_COPY_SCRIPT_NAME)
    script.setSourceCode(NO_COPY_SCRIPT)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setWorldId(QWebEngineScript.ScriptWorldId.MainWorld)
    script.setRunsOnSubFrames(True)
    return script


def _on_profile_download_requested(download: QWebEngineDownloadRequest) -> None:
    # Without a receiver Qt accepts "save page" downloads by itself.
    download.cancel()
    _log.info("a preview tried to download a file; cancelled")


class SandboxedPage(QWebEnginePage):
    """A page that may show one URL and nothing else, and asks for nothing.

    Navigation is allowed to the entry URL only (its first load and reloads);
    new windows, permissions, file choosing, file system access, protocol
    handlers, full screen and JavaScript dialogs are all refused without
    showing anything.

    Signals:
        linkClicked(QUrl): a link in the page was clicked; the navigation
            was refused, and the preview decides what to do (queued, so the
            engine's callback has returned first).
        (and those of ``QWebEnginePage``)
    """

    linkClicked = Signal(QUrl)

    def __init__(
        self,
        profile: QWebEngineProfile,
        entry_url: str,
        *,
        javascript: bool,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(profile, parent)
        self._entry = QUrl(entry_url)
        self.refused_navigations: list[str] = []
        harden_settings(self.settings(), javascript=javascript)
        self.permissionRequested.connect(self._on_self_permission_requested)
        self.fileSystemAccessRequested.connect(
            self._on_self_file_system_access_requested
        )
        self.registerProtocolHandlerRequested.connect(
            self._on_self_register_protocol_handler_requested
        )
        self.fullScreenRequested.connect(self._on_self_full_screen_requested)
        self.desktopMediaRequested.connect(self._on_self_desktop_media_requested)
        self.webAuthUxRequested.connect(self._on_self_web_auth_ux_requested)

    @property
    def entry_url(self) -> QUrl:
        return QUrl(self._entry)

    def load_entry(self) -> None:
        self.load(self._entry)

    def acceptNavigationRequest(
        self,
        url: QUrl | str,
        type: QWebEnginePage.NavigationType,
        is_main_frame: bool,
    ) -> bool:
        target = QUrl(url).toString().split("#", 1)[0]
        if is_main_frame and target == self._entry.toString():
            return True
        self.refused_navigations.append(redact(target))
        if (
            is_main_frame
            and type == QWebEnginePage.NavigationType.NavigationTypeLinkClicked
        ):
            self.linkClicked.emit(QUrl(url))
        return False

    def createWindow(  # type: ignore[override]  # returning None refuses it
        self, type: QWebEnginePage.WebWindowType
    ) -> QWebEnginePage | None:
        return None

    def chooseFiles(
        self,
        mode: QWebEnginePage.FileSelectionMode,
        old_files: Sequence[str],
        accepted_mime_types: Sequence[str],
    ) -> list[str]:
        # The default opens the app's file dialog on one click in the page
        # (<input type=file>, showOpenFilePicker) and hands the page the file.
        _log.info("a preview asked to choose files; refused")
        return []

    def javaScriptAlert(self, security_origin: QUrl | str, msg: str) -> None:
        """Nothing: a page must not raise dialogs in the app."""

    def javaScriptConfirm(self, security_origin: QUrl | str, msg: str) -> bool:
        return False

    def javaScriptPrompt(
        self, security_origin: QUrl | str, msg: str, default_value: str
    ) -> tuple[bool, str]:
        return False, ""

    def javaScriptConsoleMessage(
        self,
        level: QWebEnginePage.JavaScriptConsoleMessageLevel,
        message: str,
        line_number: int,
        source_id: str,
    ) -> None:
        # The default writes page-controlled text into the Qt log; keep it out
        # of warnings (and tokens out of every log).
        _log.debug("page console: %s", redact(message)[:500])

    def _on_self_permission_requested(self, permission: QWebEnginePermission) -> None:
        permission.deny()

    def _on_self_file_system_access_requested(
        self, request: QWebEngineFileSystemAccessRequest
    ) -> None:
        request.reject()

    def _on_self_register_protocol_handler_requested(
        self, request: QWebEngineRegisterProtocolHandlerRequest
    ) -> None:
        request.reject()

    def _on_self_full_screen_requested(
        self, request: QWebEngineFullScreenRequest
    ) -> None:
        request.reject()

    def _on_self_desktop_media_requested(
        self, request: QWebEngineDesktopMediaRequest
    ) -> None:
        request.cancel()

    def _on_self_web_auth_ux_requested(
        self, request: QWebEngineWebAuthUxRequest
    ) -> None:
        request.cancel()


class _CopyKeyFilter(QObject):
    """Takes the Copy and Cut keys from the engine and copies through the view.

    Copying in the engine fires the page's ``copy`` event, whose listener may
    replace what is copied (pastejacking); here the engine never sees the key.
    """

    def __init__(self, view: SandboxedWebView) -> None:
        super().__init__(view)
        self._view = view

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        if not isinstance(event, QKeyEvent) or not (
            event.matches(QKeySequence.StandardKey.Copy)
            or event.matches(QKeySequence.StandardKey.Cut)
        ):
            return False
        # Accepting the override is what makes Qt deliver the key press
        # here instead of trying it as a shortcut. Cut copies and removes
        # nothing: a preview is read-only.
        event.accept()
        if kind == QEvent.Type.KeyPress:
            self._view.copy_selection()
        return True


class SandboxedWebView(QWebEngineView):
    """A view with no context menu that ignores drops and copies plain text.

    Dropping a file on a web view would navigate to it; the engine's own
    widget inside the view (its focus proxy) gets the same treatment once it
    exists. Copy and Cut keys copy the selection as plain text, written by
    the app (``copy_selection``): the page never chooses what is copied.

    Signals: those of ``QWebEngineView``.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
        self.setAcceptDrops(False)
        self._copy_keys = _CopyKeyFilter(self)
        self.installEventFilter(self._copy_keys)

    def harden_focus_proxy(self) -> None:
        """Give the engine's inner widget, which appears on load, our rules."""
        self.setAcceptDrops(False)
        proxy = self.focusProxy()
        if proxy is not None:
            proxy.setAcceptDrops(False)
            proxy.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
            proxy.removeEventFilter(self._copy_keys)
            proxy.installEventFilter(self._copy_keys)

    def copy_selection(self) -> None:
        """Put the page's selected text, as plain text, on the clipboard."""
        text = self.page().selectedText()
        if text:
            QGuiApplication.clipboard().setText(text)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        event.ignore()


_retiring: list[tuple[QWebEnginePage, QWebEngineProfile]] = []


def dispose(page: QWebEnginePage, profile: QWebEngineProfile) -> None:
    """Delete ``page``, then ``profile``, once control is back in the event loop.

    Qt warns, and may crash, when a profile goes before its pages. Both are
    kept referenced here until deleted, so Python's collector cannot delete
    either first (or in the middle of one of the page's own signals).
    """
    pair = (page, profile)
    _retiring.append(pair)

    def forget() -> None:
        _retiring.remove(pair)

    profile.destroyed.connect(forget)
    page.destroyed.connect(profile.deleteLater)
    page.deleteLater()


def retiring_count() -> int:
    """Pages whose deletion is still pending (for tests and leak checks)."""
    return len(_retiring)


@dataclass(frozen=True)
class SandboxStatus:
    """What the renderer's sandbox check found: ``active`` and what was read."""

    active: bool
    detail: str


def read_seccomp_mode(pid: int) -> int | None:
    """The ``Seccomp:`` mode of process ``pid`` (2 means filtered), if readable."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Seccomp:"):
                    return int(line.split(":", 1)[1].strip())
    except (OSError, ValueError) as error:
        _log.warning("could not read the renderer's status: %s", error)
    return None


def check_renderer_sandbox(pid: int) -> SandboxStatus:
    """Whether the renderer ``pid`` runs inside Chromium's sandbox.

    On Linux the sandbox installs a seccomp filter in every renderer, so
    ``Seccomp: 2`` in its status proves it is on. Other systems have no such
    cheap proof; there the engine's own sandbox is trusted.
    """
    if not sys.platform.startswith("linux"):
        return SandboxStatus(True, "not checked on this system")
    if pid <= 0:
        return SandboxStatus(False, "the renderer process is not running")
    mode = read_seccomp_mode(pid)
    if mode == 2:
        return SandboxStatus(True, "Seccomp: 2")
    return SandboxStatus(False, f"Seccomp: {mode if mode is not None else 'unknown'}")
