"""Attacks from a previewed page, run in a real QtWebEngine page, must all fail.

Each test writes a page and a bound ``probe.js`` (or the same probe inline,
see ``test_web_inline_scripts``) that tries one attack and records what
happened in ``window.results``; the test reads that with ``runJavaScript``
(host side; the page cannot call back) and checks listeners on other loopback
ports saw nothing.
"""

from __future__ import annotations

import io
import json
import os
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QGuiApplication
from PySide6.QtWidgets import QApplication

from app.core.trust.safeio import open_verified
from app.ui.window.application import UNSAFE_ENVIRONMENT, scrub_environment
from previewers import web as html_previewer
from previewers.context import PreviewContext
from previewers.source import PreviewSource
from previewers.web import pages as web_pages
from previewers.web import preview as web_preview

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


SECRET = "TOP-SECRET-CANARY-7f3a"
OTHER_TOKEN = "Zm9yZWlnbi1wcmV2aWV3LXRva2VuLXRoYXQtaXMtNDM"  # another preview's
CSS = "#p { color: rgb(1, 2, 3); }\n"
PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>waiting</title>
<link rel="stylesheet" href="style.css"></head>
<body><p id="p">hello</p><img id="img" src="pixel.png" alt="pixel">
<form id="form" action="{listener}/form" method="post">
<input name="q" value="x"></form>
<a id="dl" href="style.css" download="copy.css">download</a>
<script src="probe.js"></script></body></html>
"""
PROBE_TAG = '<script src="probe.js"></script>'
PROBE = """
window.results = {};
function note(name, value) { window.results[name] = String(value); }
function attempt(name, promise) {
  return Promise.resolve(promise).then(
    (value) => note(name, "READ " + value),
    (error) => note(name, "blocked " + error));
}
function later(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }
function image(name, src) {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => { note(name, "READ " + img.naturalWidth); resolve(); };
    img.onerror = () => { note(name, "blocked"); resolve(); };
    img.src = src;
  });
}
(async () => {
  try {
%s
  } catch (error) {
    note("uncaught", error);
  }
  await later(300);
  document.title = "done";
})();
"""


def _png(path: Path) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 30, 30)).save(buffer, "PNG")
    path.write_bytes(buffer.getvalue())


class Listener:
    """A TCP listener on another loopback port that records every connection."""

    def __init__(self) -> None:
        self.hits: list[bytes] = []
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._socket.settimeout(0.2)
        self.port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _address = self._socket.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(1)
                try:
                    self.hits.append(connection.recv(4096))
                    connection.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
                except OSError:
                    self.hits.append(b"(connection)")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._socket.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    running = Listener()
    yield running
    running.close()


class Probe:
    """A workspace with a page, its bound files and secrets beside them."""

    def __init__(self, qtbot: Any, root: Path, listener: Listener) -> None:
        self.qtbot = qtbot
        self.root = root
        self.listener = listener
        self.widgets: list[web_preview.WebPreviewWidget] = []
        # Pages bind their files within this root, as in the app's workspace.
        self.context = PreviewContext(root=str(root))
        (root / "style.css").write_text(CSS)
        _png(root / "pixel.png")
        (root / "secret.txt").write_text(SECRET)
        _png(root / "secret.png")

    def open(
        self,
        body: str = "",
        name: str = "index.html",
        *,
        inline: bool = False,
        extra: str = "",
    ) -> Any:
        """Open the page whose probe runs ``body``; wait until it loaded.

        The probe is the bound ``probe.js``, or with ``inline`` a ``<script>``
        written in the page itself; ``extra`` is more markup for the body.
        """
        body = body.replace("SECRET_TXT", str(self.root / "secret.txt"))
        body = body.replace("SECRET_PNG", str(self.root / "secret.png"))
        body = body.replace("LISTENER_PORT", str(self.listener.port))
        body = body.replace("LISTENER", self.listener.url)
        (self.root / "probe.js").write_text(PROBE % body)
        page = self.root / name
        markup = PAGE.format(listener=self.listener.url)
        script = f"<script>{PROBE % body}</script>" if inline else PROBE_TAG
        extra = extra.replace("LISTENER", self.listener.url)
        page.write_text(markup.replace(PROBE_TAG, extra + script))
        file = open_verified(str(page))
        source = PreviewSource.from_file(str(page), file)
        widget = html_previewer.HTML_PREVIEWER.create(
            source, file, None, context=self.context
        )
        assert isinstance(widget, web_preview.WebPreviewWidget)
        self.widgets.append(widget)
        widget.resize(640, 480)
        widget.show()
        self.qtbot.waitUntil(widget.is_settled, timeout=20000)
        assert widget.is_loaded(), widget.message_text()
        return widget

    def evaluate(self, widget: Any, script: str) -> Any:
        box: list[Any] = []
        widget.page.runJavaScript(script, 0, box.append)
        self.qtbot.waitUntil(lambda: bool(box), timeout=10000)
        return box[0]

    def results(self, widget: Any) -> dict[str, str]:
        self.qtbot.waitUntil(
            lambda: widget.page is not None and widget.page.title() == "done",
            timeout=20000,
        )
        return json.loads(self.evaluate(widget, "JSON.stringify(window.results)"))

    def close(self) -> None:
        from previewers.web import sandbox as web_sandbox

        for widget in self.widgets:
            widget.release()
            widget.deleteLater()
        self.qtbot.waitUntil(lambda: web_sandbox.retiring_count() == 0)


@pytest.fixture
def probe(qtbot: Any, tmp_path: Path, listener: Listener) -> Iterator[Probe]:
    root = tmp_path / "ws"
    root.mkdir()
    harness = Probe(qtbot, root, listener)
    yield harness
    harness.close()


def _all_blocked(results: dict[str, str], names: list[str]) -> None:
    for name in names:
        assert name in results, (name, results)
        assert results[name].startswith("blocked"), (name, results[name])
    assert not any(SECRET in value for value in results.values()), results
    assert "uncaught" not in results, results


# -- positive control --------------------------------------------------------


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_bound_css_script_and_image_do_load(probe):
    widget = probe.open("document.getElementById('p').dataset.script = 'ran';")
    probe.results(widget)
    assert probe.evaluate(widget, "document.getElementById('p').dataset.script") == (
        "ran"
    )
    color = "getComputedStyle(document.getElementById('p')).color"
    assert probe.evaluate(widget, color) == "rgb(1, 2, 3)"
    assert probe.evaluate(widget, "document.getElementById('img').naturalWidth") == 4


# -- reading files -----------------------------------------------------------------


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_page_cannot_read_another_workspace_file(probe):
    widget = probe.open(
        """
    await attempt("fetch_relative", fetch("secret.txt").then((r) => r.text()));
    const mine = location.href.replace(/index\\.html$/, "secret.txt");
    await attempt("fetch_prefix", fetch(mine).then((r) => r.text()));
    await attempt("fetch_file", fetch("file://SECRET_TXT").then((r) => r.text()));
    await attempt("xhr_file", new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open("GET", "file://SECRET_TXT");
      request.onload = () => resolve(request.responseText);
      request.onerror = () => reject("error");
      request.send();
    }));
    await image("img_unbound", "secret.png");
    await image("img_file", "file://SECRET_PNG");
    for (const [name, src] of [["iframe_file", "file://SECRET_TXT"],
                               ["iframe_unbound", "secret.txt"]]) {
      const frame = document.createElement("iframe");
      frame.src = src;
      document.body.append(frame);
      await later(300);
      try {
        note(name, "READ " + frame.contentDocument.body.innerText);
      } catch (error) {
        note(name, "blocked " + error);
      }
    }
    """
    )
    results = probe.results(widget)
    _all_blocked(
        results,
        [
            "fetch_relative",
            "fetch_prefix",
            "fetch_file",
            "xhr_file",
            "img_unbound",
            "img_file",
            "iframe_file",
            "iframe_unbound",
        ],
    )


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_page_cannot_read_a_bound_siblings_raw_bytes(probe):
    widget = probe.open(
        """
    await attempt("fetch_css", fetch("style.css").then((r) => r.text()));
    await attempt("fetch_script", fetch("probe.js").then((r) => r.text()));
    await attempt("fetch_no_cors", fetch("style.css", {mode: "no-cors"})
      .then((r) => r.text()).then((text) => text.length ? text : Promise.reject(
        "opaque")));
    """
    )
    results = probe.results(widget)
    _all_blocked(results, ["fetch_css", "fetch_script", "fetch_no_cors"])
    assert not any("rgb(1, 2, 3)" in value for value in results.values())


# -- leaving the page ----------------------------------------------------------------


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_window_open_gets_no_window(probe, listener):
    widget = probe.open('note("popup", window.open("LISTENER/popup"));')
    results = probe.results(widget)
    assert results["popup"] == "null"
    assert listener.hits == []


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
@pytest.mark.parametrize(
    "target", ["LISTENER/navigate", "file://SECRET_TXT", "mailto:someone@example.com"]
)
def test_location_change_to_another_url_is_refused(probe, listener, target):
    widget = probe.open(f'location.href = "{target}"; await later(500);')
    entry = widget.page.url().toString()
    probe.results(widget)
    assert widget.page.url().toString() == entry
    assert listener.hits == []
    if target.startswith("LISTENER"):
        assert widget.page.refused_navigations == [f"{listener.url}/navigate"]


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_form_submission_sends_nothing(probe, listener):
    widget = probe.open(
        'document.getElementById("form").submit(); await later(500);'
        'note("still_here", document.getElementById("p").textContent);'
    )
    results = probe.results(widget)
    assert results["still_here"] == "hello"
    assert listener.hits == []
    assert widget.page.url().toString().endswith("/index.html")


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_a_form_submitted_as_a_person_would_sends_nothing(probe, listener):
    # Forms may submit in the sandbox (a page's own submit handler runs), so a
    # submission no handler stops is made here, in a new window and in place.
    widget = probe.open(
        'const form = document.getElementById("form");'
        'form.addEventListener("submit", () => note("submit_event", "fired"));'
        'form.target = "_blank"; form.requestSubmit(); await later(300);'
        'form.target = "_top"; form.requestSubmit(); await later(300);'
        'form.removeAttribute("target"); form.requestSubmit(); await later(500);'
        'note("still_here", document.getElementById("p").textContent);'
    )
    results = probe.results(widget)
    assert results["submit_event"] == "fired"
    assert results["still_here"] == "hello"
    assert listener.hits == []
    assert widget.page.url().toString().endswith("/index.html")


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_download_link_writes_no_file(probe, tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    widget = probe.open()
    probe.results(widget)
    widget.page.profile().setDownloadPath(str(downloads))
    started: list[object] = []
    widget.page.profile().downloadRequested.connect(started.append)
    probe.evaluate(widget, 'document.getElementById("dl").click(); "clicked"')
    probe.evaluate(widget, "new Promise((r) => setTimeout(r, 500)); 1")
    probe.qtbot.wait(500)
    assert list(downloads.iterdir()) == []
    for download in started:  # if the engine asked at all, it was cancelled
        assert download.isFinished()
        assert download.state().name == "DownloadCancelled"


# -- asking for more ------------------------------------------------------------------


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_permission_requests_are_denied(probe):
    QGuiApplication.clipboard().setText(SECRET)
    widget = probe.open(
        """
    await attempt("notification", Notification.requestPermission().then(
      (answer) => answer === "granted" ? answer : Promise.reject(answer)));
    await attempt("geolocation", new Promise((resolve, reject) =>
      navigator.geolocation.getCurrentPosition(
        (position) => resolve(position.coords.latitude),
        (error) => reject(error.code + " " + error.message), {timeout: 3000})));
    await attempt("clipboard", navigator.clipboard.readText());
    await attempt("camera", navigator.mediaDevices.getUserMedia({video: true}));
    """
    )
    results = probe.results(widget)
    _all_blocked(results, ["notification", "geolocation", "clipboard", "camera"])


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_page_has_no_bridge_to_the_app(probe):
    widget = probe.open(
        'note("qt", typeof qt);'
        'note("transport", typeof window.qt?.webChannelTransport);'
    )
    results = probe.results(widget)
    assert results["qt"] == "undefined"
    assert results["transport"] == "undefined"
    assert widget.page.webChannel() is None
    # The one script any frame gets is the app's own, taking execCommand.
    from previewers.web import sandbox as web_sandbox

    scripts = widget.page.profile().scripts().toList()
    assert [script.name() for script in scripts] == [web_sandbox.NO_COPY_SCRIPT_NAME]
    assert scripts[0].sourceCode() == web_sandbox.NO_COPY_SCRIPT
    assert widget.page.scripts().count() == 0


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_cookies_and_storage_are_unavailable(probe):
    widget = probe.open(
        """
    try { document.cookie = "a=b"; note("cookie", "READ " + document.cookie); }
    catch (error) { note("cookie", "blocked " + error.name); }
    try { localStorage.setItem("k", "v"); note("local", "READ " + localStorage.k); }
    catch (error) { note("local", "blocked " + error.name); }
    try { sessionStorage.setItem("k", "v"); note("session", "READ"); }
    catch (error) { note("session", "blocked " + error.name); }
    """
    )
    results = probe.results(widget)
    _all_blocked(results, ["cookie", "local", "session"])


# -- sending data out ------------------------------------------------------------------


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_websocket_beacon_and_image_reach_no_other_port(probe, listener):
    widget = probe.open(
        """
    await new Promise((resolve) => {
      try {
        const socket = new WebSocket("ws://127.0.0.1:LISTENER_PORT/");
        socket.onopen = () => { note("websocket", "READ open"); resolve(); };
        socket.onerror = () => { note("websocket", "blocked error"); resolve(); };
      } catch (error) { note("websocket", "blocked " + error); resolve(); }
    });
    note("beacon", navigator.sendBeacon("LISTENER/beacon", "data"));
    await image("image", "LISTENER/pixel.png");
    await attempt("fetch", fetch("LISTENER/fetch", {mode: "no-cors"}));
    await later(500);
    """
    )
    results = probe.results(widget)
    _all_blocked(results, ["websocket", "image", "fetch"])
    assert listener.hits == []


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_other_capability_urls_are_blocked_and_listed(probe):
    widget = probe.open(
        'const origin = location.protocol + "//" + location.host;'
        f'await image("other", origin + "/cap/{OTHER_TOKEN}/pixel.png");'
    )
    results = probe.results(widget)
    _all_blocked(results, ["other"])
    assert widget.blocked_urls() == [f"{probe_origin(widget)}/cap/…/pixel.png"]
    probe.qtbot.waitUntil(lambda: bool(widget.info_bar.lines()))
    assert widget.info_bar.lines() == [
        f"Blocked: {probe_origin(widget)}/cap/…/pixel.png — outside this preview"
    ]
    assert "1 request blocked" in widget.info_bar.summary_text()


def probe_origin(widget: Any) -> str:
    return widget.publication.prefix.split("/cap/", 1)[0]


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_interceptor_blocks_a_websocket_even_without_the_servers_policy(
    qtbot, listener, monkeypatch
):
    from app.core.serve import capability_server
    from app.core.serve.manifest import Bundle, Resource
    from previewers.web import sandbox as web_sandbox

    # The engine reaches only the capability server directly; serve the page
    # from it without any Content-Security-Policy, so only the interceptor
    # stands between the page and the WebSocket.
    headers = [
        header
        for header in capability_server._SECURITY_HEADERS
        if header[0] != "Content-Security-Policy"
    ]
    monkeypatch.setattr(capability_server, "_SECURITY_HEADERS", tuple(headers))
    script = (
        f"const s = new WebSocket('ws://127.0.0.1:{listener.port}/');"
        "s.onerror = () => { document.title = 'done'; };"
        "s.onopen = () => { document.title = 'open'; };"
    ).encode()
    html = b'<title>x</title><script src="a.js"></script>'
    bundle = Bundle.of(
        "index.html",
        [
            Resource.of("index.html", "text/html; charset=utf-8", html),
            Resource.of("a.js", "text/javascript", script),
        ],
        [],
    )
    server = web_pages.shared_server()
    publication = server.publish(bundle)
    web_sandbox.start_engine(server.port)
    profile, interceptor = web_sandbox.create_profile(
        publication.prefix, javascript=True
    )
    page = web_sandbox.SandboxedPage(profile, publication.url, javascript=True)
    try:
        with qtbot.waitSignal(page.loadFinished, timeout=20000):
            page.load_entry()
        with urllib.request.urlopen(publication.url, timeout=5) as response:
            assert response.headers.get("Content-Security-Policy") is None
        qtbot.waitUntil(lambda: page.title() in ("done", "open"), timeout=10000)
        assert page.title() == "done"
        assert listener.hits == []
        assert interceptor.blocked_urls() == [f"ws://127.0.0.1:{listener.port}/"]
    finally:
        publication.revoke()
        web_sandbox.dispose(page, profile)
        qtbot.waitUntil(lambda: web_sandbox.retiring_count() == 0)


# -- the engine's own settings -----------------------------------------------------


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_profile_page_and_view_are_hardened(probe):
    from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile

    from previewers.web import sandbox as web_sandbox

    widget = probe.open()
    page, view = widget.page, widget.view
    profile = page.profile()
    assert profile.isOffTheRecord()
    assert profile.storageName() == ""
    assert profile.httpCacheType() is QWebEngineProfile.HttpCacheType.NoCache
    assert profile.persistentCookiesPolicy() is (
        QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies
    )
    assert profile.persistentPermissionsPolicy() is (
        QWebEngineProfile.PersistentPermissionsPolicy.AskEveryTime
    )
    assert profile.httpUserAgent() == web_sandbox.NEUTRAL_USER_AGENT
    for settings in (profile.settings(), page.settings()):
        for attribute in web_sandbox.SETTINGS_OFF:
            assert not settings.testAttribute(attribute), attribute
        for attribute in web_sandbox.SETTINGS_ON:
            assert settings.testAttribute(attribute), attribute
        assert settings.unknownUrlSchemePolicy().name == "DisallowUnknownUrlSchemes"
    assert view.contextMenuPolicy() is Qt.ContextMenuPolicy.NoContextMenu
    assert not view.acceptDrops()
    assert view.focusProxy() is not None
    assert not view.focusProxy().acceptDrops()
    window = QWebEnginePage.WebWindowType.WebBrowserWindow
    assert page.createWindow(window) is None
    assert page.javaScriptConfirm(QUrl(), "sure?") is False
    assert page.javaScriptPrompt(QUrl(), "name?", "x") == (False, "")
    assert (
        page.acceptNavigationRequest(
            QUrl("http://127.0.0.1:1/"),
            QWebEnginePage.NavigationType.NavigationTypeTyped,
            True,
        )
        is False
    )
    assert page.acceptNavigationRequest(
        page.entry_url, QWebEnginePage.NavigationType.NavigationTypeReload, True
    )


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_dropping_a_file_on_the_page_does_not_open_it(probe):
    widget = probe.open()
    entry = widget.page.url()
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(probe.root / "secret.txt"))])
    target = widget.view.focusProxy()
    drop = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        data,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    with probe.qtbot.assertNotEmitted(widget.page.loadStarted, wait=700):
        QApplication.sendEvent(target, drop)
    assert widget.page.url() == entry


# -- the sandbox, crashes and closing ----------------------------------------------


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_renderer_runs_in_the_seccomp_sandbox(probe):
    from previewers.web import sandbox as web_sandbox

    widget = probe.open()
    pid = widget.page.renderProcessPid()
    assert pid > 0
    assert web_sandbox.read_seccomp_mode(pid) == 2
    assert widget.sandbox_detail == "Seccomp: 2"


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_inactive_sandbox_closes_the_page_and_says_so(probe, monkeypatch):
    from previewers.web import sandbox as web_sandbox

    def unsandboxed(_pid: int) -> web_sandbox.SandboxStatus:
        return web_sandbox.SandboxStatus(False, "Seccomp: 0")

    monkeypatch.setattr(web_sandbox, "check_renderer_sandbox", unsandboxed)
    (probe.root / "probe.js").write_text("")
    page = probe.root / "index.html"
    page.write_text(PAGE.format(listener=probe.listener.url))
    file = open_verified(str(page))
    widget = html_previewer.HTML_PREVIEWER.create(
        PreviewSource.from_file(str(page), file), file, None, context=probe.context
    )
    probe.widgets.append(widget)
    probe.qtbot.waitUntil(widget.is_settled, timeout=20000)
    assert not widget.is_loaded()
    assert widget.page is None
    assert widget.stopped_text() == web_preview.SANDBOX_OFF_MESSAGE
    assert widget.reload_button.isHidden()
    assert _status(widget.publication.url) == 410


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_renderer_crash_shows_reload_and_never_reloads_by_itself(probe):
    widget = probe.open()
    page = widget.page
    with probe.qtbot.waitSignal(page.renderProcessTerminated, timeout=10000):
        os.kill(page.renderProcessPid(), 9)
    assert widget.stopped_text().startswith("The page's renderer")
    assert not widget.reload_button.isHidden()
    with probe.qtbot.assertNotEmitted(page.loadStarted, wait=1000):
        pass
    with probe.qtbot.waitSignal(page.loadFinished, timeout=20000):
        widget.reload_button.click()
    assert widget.stopped_text() == ""
    assert probe.evaluate(widget, "document.getElementById('p').textContent") == (
        "hello"
    )


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_closing_revokes_the_url_and_deletes_page_then_profile(probe):
    from previewers.web import sandbox as web_sandbox

    widget = probe.open()
    url = widget.publication.url
    assert _status(url) == 200
    page, profile = widget.page, widget.page.profile()
    order: list[str] = []
    page.destroyed.connect(lambda: order.append("page"))
    profile.destroyed.connect(lambda: order.append("profile"))
    widget.release()
    assert _status(url) == 410
    probe.qtbot.waitUntil(lambda: web_sandbox.retiring_count() == 0)
    assert order == ["page", "profile"]
    assert widget.page is None


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


# -- before the engine starts ---------------------------------------------------------


def test_environment_that_would_disable_the_sandbox_is_scrubbed(monkeypatch):
    for name in UNSAFE_ENVIRONMENT:
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
    kept = scrub_environment(
        [
            "deliverables",
            "--no-sandbox",
            "--single-process",
            "--remote-debugging-port=9222",
            "--remote-allow-origins=*",
            "--enable-features=NetworkServiceInProcess",
            "view",
            "--webEngineArgs",
            "--disable-web-security",
        ]
    )
    assert kept == ["deliverables", "view"]
    for name in UNSAFE_ENVIRONMENT:
        assert name not in os.environ


def test_the_web_engine_loads_only_when_a_page_is_shown(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "import previewers.web, previewers.web.pages, previewers.web.preview\n"
        "import app.ui.window.browser_window, app.ui.cards.actions\n"
        "print(sorted(m for m in sys.modules if 'WebEngine' in m))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.stdout.strip() == "[]", done.stderr
