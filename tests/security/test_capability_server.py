"""Attacks on the loopback capability server, over real sockets, must all fail."""

from __future__ import annotations

import http.client
import io
import logging
import os
import secrets
import socket
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

import pytest

from app.core.serve.capability_server import (
    MAX_CONNECTIONS,
    CapabilityServer,
    Publication,
)
from app.core.serve.html_bind import bind_html
from app.core.serve.manifest import MIB, Bundle
from app.core.trust.policy import Policy, Rule, builtin_rules
from app.core.trust.safeio import open_verified

POLICY = Policy(builtin_rules(), home="/nonexistent-home")
CSS = b"body { color: #123456 }"
SCRIPT = b"document.body.dataset.ok = '1';"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
DEEP = b"p { margin: 0 }"
SECRET = b"TOP-SECRET-CANARY"
OTHER = b"OTHER-BUNDLE-CANARY"
PAGE = (
    b'<!DOCTYPE html><link rel="stylesheet" href="style.css">'
    b'<link rel="stylesheet" href="sub/deep.css">'
    b'<script src="app.js"></script><img src="pic.png">'
)


def _bind(root: Path, page: str = "index.html", policy: Policy = POLICY) -> Bundle:
    path = root / page
    with open_verified(str(path)) as opened:
        return bind_html(opened, str(path), str(root), policy)


@pytest.fixture(scope="module")
def server() -> Iterator[CapabilityServer]:
    with CapabilityServer() as running:
        yield running


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "index.html").write_bytes(PAGE)
    (tmp_path / "style.css").write_bytes(CSS)
    (tmp_path / "app.js").write_bytes(SCRIPT)
    (tmp_path / "pic.png").write_bytes(PNG)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deep.css").write_bytes(DEEP)
    (tmp_path / "secret.txt").write_bytes(SECRET)
    return tmp_path


@pytest.fixture
def published(server: CapabilityServer, workspace: Path) -> Publication:
    return server.publish(_bind(workspace))


@pytest.fixture
def other(
    server: CapabilityServer, tmp_path_factory: pytest.TempPathFactory
) -> Publication:
    """A second bundle, under its own token, that no attack may reach."""
    root = tmp_path_factory.mktemp("other")
    (root / "index.html").write_text('<img src="only-here.png">')
    (root / "only-here.png").write_bytes(OTHER)
    return server.publish(_bind(root))


class Answer:
    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = response.headers
        self.body = response.read()


def request(
    port: int,
    target: str,
    *,
    method: str = "GET",
    host: str | None = "default",
    headers: dict[str, str] | None = None,
) -> Answer:
    """Send exactly this request line and headers; no client-side cleanup."""
    lines = [f"{method} {target} HTTP/1.1"]
    if host == "default":
        lines.append(f"Host: 127.0.0.1:{port}")
    elif host is not None:
        lines.append(f"Host: {host}")
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    lines.append("Connection: close")
    return raw(port, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"), method)


def raw(port: int, data: bytes, method: str = "GET") -> Answer:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(data)
        response = http.client.HTTPResponse(sock, method=method)
        response.begin()
        return Answer(response)


def key_path(publication: Publication, key: str) -> str:
    return f"/cap/{publication.token}/{key}"


def assert_safe_headers(answer: Answer) -> None:
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Referrer-Policy"] == "no-referrer"
    assert answer.headers["Cache-Control"] == "no-store"
    assert "sandbox allow-scripts" in answer.headers["Content-Security-Policy"]
    assert answer.headers["Content-Length"] == str(len(answer.body))
    assert not [name for name in answer.headers if name.lower().startswith("access-")]
    assert "Set-Cookie" not in answer.headers


# Positive control ------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "data", "content_type"),
    [
        ("style.css", CSS, "text/css"),
        ("sub/deep.css", DEEP, "text/css"),
        ("app.js", SCRIPT, "text/javascript"),
        ("pic.png", PNG, "image/png"),
        ("index.html", PAGE, "text/html; charset=utf-8"),
    ],
)
def test_bound_files_come_back_byte_identical_with_their_type(
    published, server, key, data, content_type
):
    answer = request(server.port, key_path(published, key))
    assert answer.status == 200
    assert answer.body == data
    assert answer.headers["Content-Type"] == content_type
    assert_safe_headers(answer)


def test_the_publication_url_opens_the_document_with_its_full_policy(published, server):
    origin = f"http://127.0.0.1:{server.port}"
    assert published.url == f"{origin}/cap/{published.token}/index.html"
    assert published.url.startswith(published.prefix)
    assert len(published.token) >= 43  # 32 random bytes, URL-safe base64
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.request("GET", published.url[len(server.origin) :])
    answer = Answer(connection.getresponse())
    connection.close()
    assert answer.body == PAGE
    policy = answer.headers["Content-Security-Policy"]
    for directive in (
        "default-src 'none'",
        "script-src 'self'",
        "img-src 'self'",
        "media-src 'self'",
        "font-src 'self'",
        "connect-src 'none'",
        "form-action 'none'",
        "base-uri 'none'",
        "frame-src 'none'",
        "object-src 'none'",
        "sandbox allow-scripts",
    ):
        assert directive in policy
    assert "allow-same-origin" not in policy
    directives = dict(
        part.strip().split(" ", 1) for part in policy.split(";") if part.strip()
    )
    # Inline scripts, handlers and eval run (single-file pages need them);
    # scripts still load from nowhere but the capability prefix itself.
    assert directives["script-src"] == "'self' 'unsafe-inline' 'unsafe-eval'"
    assert directives["connect-src"] == "'none'"
    # Scripts and forms run in an opaque origin: no same-origin, popups,
    # downloads, modals, top navigation or pointer lock. Where a form would
    # send its data, form-action 'none' stops it.
    assert directives["sandbox"] == "allow-scripts allow-forms"
    assert "*" not in policy and "http" not in policy and "blob:" not in policy


def test_a_query_string_is_ignored_for_lookup(published, server):
    answer = request(server.port, key_path(published, "style.css") + "?v=2")
    assert answer.body == CSS


def test_head_sends_headers_without_a_body(published, server):
    answer = request(server.port, key_path(published, "pic.png"), method="HEAD")
    assert answer.status == 200
    assert answer.body == b""
    assert answer.headers["Content-Length"] == str(len(PNG))


def test_the_server_listens_on_127_0_0_1_only(server):
    if not sys.platform.startswith("linux"):
        pytest.skip("127.0.0.2 is a loopback address only on Linux")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.2", server.port), timeout=5).close()


# Traversal and encoding corpus ---------------------------------------------------

TRICKS = [
    "/cap/{t}/../secret.txt",
    "/cap/{t}/%2e%2e/secret.txt",
    "/cap/{t}/%2E%2E/secret.txt",
    "/cap/{t}/..%2fsecret.txt",
    "/cap/{t}/..%2Fsecret.txt",
    "/cap/{t}/%c0%ae%c0%ae/secret.txt",
    "/cap/{t}/sub%2Fdeep.css",
    "/cap/{t}/sub%2fdeep.css",
    "/cap/{t}//style.css",
    "/cap/{t}/sub//deep.css",
    "/cap/{t}/./style.css",
    "/cap/{t}/sub/../style.css",
    "/cap/{t}/sub\\deep.css",
    "/cap/{t}/.\\style.css",
    "/cap/{t}/sub%5cdeep.css",
    "/cap/{t}/sub%5Cdeep.css",
    "/cap/{t}/style.css%00",
    "/cap/{t}/style.css%00.png",
    "/cap/{t}/%73tyle.css",
    "/cap/{t}/style%2ecss",
    "/cap/{t}/STYLE.CSS",
    "/cap/{t}/Style.css",
    "/cap/{t}/style.css/",
    "/cap/{t}/style.css;.png",
    "/cap/{t}/style.css%20",
    "/cap/{t}/style.css#x",
    "/cap/{t}/",
    "/cap/{t}",
    "/cap/{t}/sub/",
    "/cap/{t}/sub",
    "/cap/",
    "/cap",
    "/",
    "/cap//style.css",
    "//cap/{t}/style.css",
    "///cap/{t}/style.css",
    "/cap/{t}/secret.txt",
    "/cap/{t}/../../../../etc/passwd",
    "/cap/{t}/%2fetc%2fpasswd",
    "/cap/{t}/etc/passwd",
    "/etc/passwd",
    "/cap/{t}/style.css%",
    "/cap/{t}/style.css%2",
    "/cap/{t}/%ff.css",
    "http://evil.example/cap/{t}/style.css",
    "http://127.0.0.1:{port}/cap/{t}/style.css",
    "*",
    "style.css",
]


@pytest.mark.parametrize("trick", TRICKS)
def test_traversal_and_encoding_tricks_get_404(published, server, trick):
    target = trick.format(t=published.token, port=server.port)
    answer = request(server.port, target)
    assert answer.status == 404
    assert answer.body == b"not found\n"
    assert SECRET not in answer.body
    assert_safe_headers(answer)


@pytest.mark.parametrize(
    "line",
    [
        b"GET /cap/{t}/style.css\x00 HTTP/1.1",
        b"GET /cap/{t}/caf\xc3\xa9.css HTTP/1.1",
        b"GET /cap/{t}/style.css HTTP/1.1 extra",
        b"GET /cap/{t}/style.css HTTP/9.9",
        b"GET /cap/{t}/" + b"a" * 70_000 + b" HTTP/1.1",
    ],
)
def test_broken_request_lines_are_refused_without_echoing_the_token(
    published, server, line
):
    data = line.replace(b"{t}", published.token.encode())
    host = f"Host: 127.0.0.1:{server.port}".encode()
    answer = raw(server.port, data + b"\r\n" + host + b"\r\nConnection: close\r\n\r\n")
    assert answer.status in (400, 404, 414, 505)
    assert published.token.encode() not in answer.body
    assert CSS not in answer.body


# Host, method, token ------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "localhost:{port}",
        "127.0.0.1",
        "evil.example",
        "127.0.0.1:{other}",
        None,
        "",
        "127.0.0.1.:{port}",
        "[::1]:{port}",
        "127.0.0.1:0{port}",
        "127.1:{port}",
    ],
)
def test_a_wrong_host_gets_421(published, server, host):
    value = (
        None if host is None else host.format(port=server.port, other=server.port + 1)
    )
    answer = request(server.port, key_path(published, "style.css"), host=value)
    assert answer.status == 421
    assert CSS not in answer.body
    assert_safe_headers(answer)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("127.0.0.1:{port}", "evil:{port}"),
        ("evil:{port}", "127.0.0.1:{port}"),
        ("127.0.0.1:{port}", "127.0.0.1:{port}"),
    ],
)
def test_two_host_headers_get_421(published, server, first, second):
    port = server.port
    answer = request(
        port,
        key_path(published, "style.css"),
        host=first.format(port=port),
        headers={"Host": second.format(port=port)},
    )
    assert answer.status == 421
    assert CSS not in answer.body


@pytest.mark.parametrize(
    "method", ["POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "PROPFIND"]
)
def test_methods_other_than_get_and_head_get_405(published, server, method):
    answer = request(
        server.port,
        key_path(published, "style.css"),
        method=method,
        headers={"Content-Length": "4"},
    )
    assert answer.status == 405
    assert answer.headers["Allow"] == "GET, HEAD"
    assert CSS not in answer.body


def test_a_cors_mode_read_gets_403(published, server):
    answer = request(
        server.port,
        key_path(published, "style.css"),
        headers={"Origin": "null", "Sec-Fetch-Mode": "cors"},
    )
    assert answer.status == 403
    assert CSS not in answer.body


LIBRARY_PAGE = (
    b'<!DOCTYPE html><script src="https://cdn.jsdelivr.net/npm/chart.js"></script>'
    b'<link rel="stylesheet" href="style.css">'
)
LIBRARY_KEY = "_libraries/cdn.jsdelivr.net/npm/chart.js"


@pytest.fixture
def with_library(server: CapabilityServer, workspace: Path) -> Publication:
    (workspace / "index.html").write_bytes(LIBRARY_PAGE)
    return server.publish(_bind(workspace))


def test_a_library_copy_answers_cors_reads_with_any_origin(with_library, server):
    from app.core.serve.web_libraries import BundledFile, resolve

    copy = resolve("https://cdn.jsdelivr.net/npm/chart.js")
    assert isinstance(copy, BundledFile)
    answer = request(
        server.port,
        key_path(with_library, LIBRARY_KEY),
        headers={"Origin": "null", "Sec-Fetch-Mode": "cors"},
    )
    assert answer.status == 200
    assert answer.body == copy.path.read_bytes()
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert answer.headers["Content-Type"] == "text/javascript"
    assert "sandbox allow-scripts" in answer.headers["Content-Security-Policy"]


def test_the_pages_own_files_beside_a_library_copy_stay_closed_to_cors(
    with_library, server
):
    cors = {"Origin": "null", "Sec-Fetch-Mode": "cors"}
    for key in ("style.css", "index.html"):
        answer = request(server.port, key_path(with_library, key), headers=cors)
        assert answer.status == 403
        assert CSS not in answer.body
        plain = request(server.port, key_path(with_library, key))
        assert plain.status == 200
        assert_safe_headers(plain)  # no Access-Control-* header at all


def test_a_file_of_the_page_at_a_library_key_is_never_made_public(server, workspace):
    # The page brings its own file where the copy of Chart.js would be served,
    # and asks for both: its file keeps the key, and stays closed to CORS.
    (workspace / "index.html").write_bytes(
        LIBRARY_PAGE + f'<script src="{LIBRARY_KEY}"></script>'.encode()
    )
    planted = workspace.joinpath(*LIBRARY_KEY.split("/"))
    planted.parent.mkdir(parents=True)
    planted.write_bytes(SECRET)
    bundle = _bind(workspace)
    assert bundle.resources[LIBRARY_KEY].data == SECRET
    assert not bundle.resources[LIBRARY_KEY].public
    reasons = {item.reference: item.reason for item in bundle.left_out}
    assert reasons["https://cdn.jsdelivr.net/npm/chart.js"] == "taken"
    published = server.publish(bundle)
    cors = {"Origin": "null", "Sec-Fetch-Mode": "cors"}
    answer = request(server.port, key_path(published, LIBRARY_KEY), headers=cors)
    assert answer.status == 403
    assert SECRET not in answer.body


def test_a_guessed_token_gets_404(published, server):
    guess = secrets.token_urlsafe(32)
    assert request(server.port, f"/cap/{guess}/style.css").status == 404


def test_a_token_one_character_off_gets_404(published, server):
    token = published.token
    for index in (0, len(token) // 2, len(token) - 1):
        changed = "A" if token[index] != "A" else "B"
        wrong = token[:index] + changed + token[index + 1 :]
        assert request(server.port, f"/cap/{wrong}/style.css").status == 404
    assert request(server.port, f"/cap/{token[:-1]}/style.css").status == 404
    assert request(server.port, f"/cap/{token}x/style.css").status == 404


def test_a_revoked_token_gets_410_and_nothing_else_is_served(published, server):
    published.revoke()
    answer = request(server.port, key_path(published, "style.css"))
    assert answer.status == 410
    assert CSS not in answer.body


def test_one_token_never_reaches_another_bundle(server, workspace, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "index.html").write_text('<img src="only-here.png">')
    (other / "only-here.png").write_bytes(b"other")
    first = server.publish(_bind(workspace))
    server.publish(_bind(other))
    assert request(server.port, key_path(first, "only-here.png")).status == 404


def test_the_token_stays_out_of_the_publication_repr(published):
    assert published.token not in repr(published)


# Request framing: smuggling, pipelining, request forms, old versions -------------


class Reply(NamedTuple):
    status: int
    body: bytes


def get(port: int, target: str, *headers: str, version: str = "HTTP/1.1") -> bytes:
    """One GET with the right Host, then ``headers``, exactly as written."""
    lines = [f"GET {target} {version}", f"Host: 127.0.0.1:{port}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def exchange(
    port: int, data: bytes, methods: Sequence[str] = ()
) -> tuple[list[Reply], bytes]:
    """Send ``data`` in one write, end the sending side, read until the server closes.

    Returns the replies in order (the ones to ``HEAD`` in ``methods`` have no
    body) and every byte received. Ending the sending side lets any request the
    server finds in ``data`` be answered before it sees the end, so a request
    smuggled in a body shows up here as one more reply.
    """
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    stream = io.BytesIO(received)
    replies: list[Reply] = []
    while line := stream.readline():
        assert line.startswith(b"HTTP/1."), f"not a status line: {line!r}"
        headers = http.client.parse_headers(stream)
        method = methods[len(replies)] if len(replies) < len(methods) else "GET"
        length = 0 if method == "HEAD" else int(headers["Content-Length"])
        replies.append(Reply(int(line.split()[1]), stream.read(length)))
    return replies, received


def _chunked(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data)


# What follows the headers: the hidden request as it is, chunk-encoded, or after
# an empty last chunk (where a parser that honours the chunking would find it).
_BODIES = {
    "raw": lambda hidden: hidden,
    "chunked": _chunked,
    "after-last-chunk": lambda hidden: b"0\r\n\r\n" + hidden,
}
ANSWERED = Reply(200, CSS)
BAD_REQUEST = Reply(400, b"bad request\n")


@pytest.mark.parametrize(
    ("headers", "body", "expected"),
    [
        pytest.param(["Content-Length: {n}"], "raw", ANSWERED, id="content-length"),
        pytest.param(["Transfer-Encoding: chunked"], "chunked", ANSWERED, id="chunked"),
        pytest.param(
            ["Transfer-Encoding: chunked"], "raw", ANSWERED, id="chunked-unframed"
        ),
        pytest.param(
            ["Content-Length: {n}", "Transfer-Encoding: chunked"],
            "after-last-chunk",
            ANSWERED,
            id="length-and-chunked",
        ),
        pytest.param(
            ["Transfer-Encoding: chunked", "Content-Length: 0"],
            "raw",
            ANSWERED,
            id="chunked-and-zero-length",
        ),
        pytest.param(["Transfer-Encoding: xchunked"], "raw", ANSWERED, id="xchunked"),
        pytest.param(
            ["Transfer-Encoding:  chunked"], "raw", ANSWERED, id="space-chunked"
        ),
        pytest.param(
            ["Transfer-Encoding:\tchunked"], "raw", ANSWERED, id="tab-chunked"
        ),
        pytest.param(["Transfer-Encoding: CHUNKED"], "raw", ANSWERED, id="upper-case"),
        pytest.param(
            ["Transfer-Encoding: chunked, identity"], "raw", ANSWERED, id="coding-list"
        ),
        pytest.param(
            ["Transfer-Encoding: chunked", "Transfer-Encoding: identity"],
            "raw",
            ANSWERED,
            id="two-te-chunked-first",
        ),
        pytest.param(
            ["Transfer-Encoding: identity", "Transfer-Encoding: chunked"],
            "raw",
            ANSWERED,
            id="two-te-chunked-last",
        ),
        pytest.param(["Transfer-Encoding:"], "raw", ANSWERED, id="te-empty"),
        pytest.param(
            ["Transfer-Encoding : chunked"], "raw", BAD_REQUEST, id="te-space-colon"
        ),
        pytest.param(
            ["X-Pad: 1", " Transfer-Encoding: chunked"],
            "raw",
            BAD_REQUEST,
            id="te-folded",
        ),
        pytest.param(
            ["Content-Length: 0", "Content-Length: {n}"],
            "raw",
            BAD_REQUEST,
            id="two-lengths",
        ),
        pytest.param(
            ["Content-Length: {n}, {n}"], "raw", BAD_REQUEST, id="length-list"
        ),
        pytest.param(
            ["Content-Length : {n}"], "raw", BAD_REQUEST, id="length-space-colon"
        ),
        pytest.param(["Content-Length: +{n}"], "raw", BAD_REQUEST, id="length-sign"),
    ],
)
def test_a_request_hidden_in_a_body_is_never_answered(
    published, other, server, headers, body, expected
):
    hidden = get(server.port, key_path(other, "only-here.png"))
    payload = _BODIES[body](hidden)
    lines = [line.format(n=len(payload)) for line in headers]
    outer = get(server.port, key_path(published, "style.css"), *lines)
    replies, received = exchange(server.port, outer + payload)
    assert replies == [expected]
    assert OTHER not in received


def test_pipelined_gets_are_answered_in_order_each_with_its_own_key(
    published, other, server
):
    port = server.port
    data = get(port, key_path(published, "style.css")) + get(
        port, key_path(published, "app.js"), "Connection: close"
    )
    replies, received = exchange(port, data)
    assert replies == [Reply(200, CSS), Reply(200, SCRIPT)]
    assert OTHER not in received


def test_a_pipelined_run_through_404_and_head_stays_in_step(published, other, server):
    port = server.port
    data = (
        get(port, key_path(published, "style.css"))
        + get(port, key_path(published, "missing.css"))
        + get(port, key_path(published, "pic.png")).replace(b"GET", b"HEAD", 1)
        + get(port, key_path(published, "app.js"), "Connection: close")
    )
    replies, received = exchange(port, data, methods=["GET", "GET", "HEAD", "GET"])
    assert replies == [
        Reply(200, CSS),
        Reply(404, b"not found\n"),
        Reply(200, b""),
        Reply(200, SCRIPT),
    ]
    assert OTHER not in received
    assert PNG not in received


@pytest.mark.parametrize("authority", ["127.0.0.1:{port}", "evil.example"])
def test_an_absolute_form_target_gets_404_and_the_next_request_its_key(
    published, server, authority
):
    port = server.port
    path = key_path(published, "style.css")
    absolute = f"http://{authority.format(port=port)}{path}"
    data = get(port, absolute) + get(port, path, "Connection: close")
    replies, _received = exchange(port, data)
    assert replies == [Reply(404, b"not found\n"), Reply(200, CSS)]


def test_http_1_0_gets_one_answer_and_the_connection_ends(published, other, server):
    port = server.port
    hidden = get(port, key_path(other, "only-here.png"))
    first = get(port, key_path(published, "style.css"), version="HTTP/1.0")
    replies, received = exchange(port, first + hidden)
    assert replies == [Reply(200, CSS)]
    assert OTHER not in received


def test_http_1_0_without_host_gets_421(published, server):
    data = f"GET {key_path(published, 'style.css')} HTTP/1.0\r\n\r\n".encode()
    replies, received = exchange(server.port, data)
    assert replies == [Reply(421, b"misdirected request\n")]
    assert CSS not in received


@pytest.mark.parametrize(
    "request_text",
    [
        "GET {path}\r\n",
        "GET {path}\r\nHost: 127.0.0.1:{port}\r\n\r\n",
        "GET {path} HTTP/0.9\r\nHost: 127.0.0.1:{port}\r\n\r\n",
    ],
)
def test_http_0_9_gets_505_with_a_status_line_and_no_bytes(
    published, server, request_text
):
    # A 0.9 answer would be the bare body, without any of the security headers.
    path = key_path(published, "style.css")
    data = request_text.format(path=path, port=server.port).encode()
    replies, received = exchange(server.port, data)
    assert replies == [Reply(505, b"http version not supported\n")]
    assert CSS not in received


# Byte ranges ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "start", "end"),
    [
        ("bytes=0-3", 0, 3),
        ("bytes=10-", 10, len(PNG) - 1),
        ("bytes=-4", len(PNG) - 4, len(PNG) - 1),
        ("bytes=5-99999", 5, len(PNG) - 1),
    ],
)
def test_a_single_range_gets_206_with_the_exact_slice(
    published, server, header, start, end
):
    answer = request(
        server.port, key_path(published, "pic.png"), headers={"Range": header}
    )
    assert answer.status == 206
    assert answer.body == PNG[start : end + 1]
    assert answer.headers["Content-Range"] == f"bytes {start}-{end}/{len(PNG)}"
    assert_safe_headers(answer)


def test_seeking_reuses_one_keep_alive_connection(published, server):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        for start in (200, 0, 100, 255):
            connection.request(
                "GET",
                key_path(published, "pic.png"),
                headers={"Range": f"bytes={start}-"},
            )
            response = connection.getresponse()
            assert response.status == 206
            assert response.read() == PNG[start:]
        connection.request("GET", key_path(published, "absent.png"))
        assert connection.getresponse().read() == b"not found\n"
        connection.request("GET", key_path(published, "pic.png"))
        assert connection.getresponse().read() == PNG
    finally:
        connection.close()


@pytest.mark.parametrize("header", ["bytes=9999-", "bytes=-0", f"bytes={len(PNG)}-"])
def test_an_unsatisfiable_range_gets_416(published, server, header):
    answer = request(
        server.port, key_path(published, "pic.png"), headers={"Range": header}
    )
    assert answer.status == 416
    assert answer.headers["Content-Range"] == f"bytes */{len(PNG)}"


@pytest.mark.parametrize(
    "header",
    ["bytes=0-1,4-5", "bytes=5-2", "items=0-1", "bytes=-", "bytes=" + "9" * 40],
)
def test_multiple_or_invalid_ranges_get_the_whole_body(published, server, header):
    answer = request(
        server.port, key_path(published, "pic.png"), headers={"Range": header}
    )
    assert answer.status == 200
    assert answer.body == PNG


# What binding leaves out is never served ------------------------------------------


def _publish_page(
    server: CapabilityServer, root: Path, body: str
) -> tuple[Bundle, Publication]:
    (root / "index.html").write_text(f"<!DOCTYPE html>{body}")
    bundle = _bind(root)
    return bundle, server.publish(bundle)


def _reasons(bundle: Bundle) -> dict[str, str]:
    return {item.reference: item.reason for item in bundle.left_out}


def test_a_dependency_of_5_mib_is_left_out(server, tmp_path):
    (tmp_path / "big.png").write_bytes(bytes(5 * MIB))
    (tmp_path / "small.png").write_bytes(b"s")
    bundle, publication = _publish_page(
        server, tmp_path, '<img src="big.png"><img src="small.png">'
    )
    assert _reasons(bundle) == {"big.png": "too_large"}
    assert request(server.port, key_path(publication, "big.png")).status == 404
    assert request(server.port, key_path(publication, "small.png")).status == 200


def test_65_dependencies_bind_64_and_list_one(server, tmp_path):
    for index in range(65):
        (tmp_path / f"d{index}.png").write_bytes(b"%d" % index)
    bundle, publication = _publish_page(
        server, tmp_path, "".join(f'<img src="d{i}.png">' for i in range(65))
    )
    assert len(bundle.resources) == 65  # 64 dependencies and the page
    assert _reasons(bundle) == {"d64.png": "too_many"}
    assert request(server.port, key_path(publication, "d64.png")).status == 404
    assert request(server.port, key_path(publication, "d63.png")).body == b"63"


def test_a_bundle_over_32_mib_leaves_the_excess_out(server, tmp_path):
    for index in range(9):
        (tmp_path / f"part{index}.png").write_bytes(bytes(4 * MIB - 1024))
    bundle, publication = _publish_page(
        server, tmp_path, "".join(f'<img src="part{i}.png">' for i in range(9))
    )
    assert _reasons(bundle) == {"part8.png": "bundle_full"}
    (tmp_path / "huge.png").write_bytes(bytes(5 * MIB))
    (tmp_path / "index.html").write_text(
        "".join(f'<img src="part{i}.png">' for i in range(9)) + '<img src="huge.png">'
    )
    assert _reasons(_bind(tmp_path))["huge.png"] == "too_large"
    assert bundle.total_bytes <= 32 * MIB
    assert request(server.port, key_path(publication, "part8.png")).status == 404


def test_a_symlinked_dependency_is_left_out(server, tmp_path):
    (tmp_path / "secret.txt").write_bytes(SECRET)
    os.symlink(tmp_path / "secret.txt", tmp_path / "pic.png")
    bundle, publication = _publish_page(server, tmp_path, '<img src="pic.png">')
    assert _reasons(bundle) == {"pic.png": "symlink"}
    answer = request(server.port, key_path(publication, "pic.png"))
    assert answer.status == 404
    assert SECRET not in answer.body


def test_a_dependency_outside_the_workspace_is_left_out(server, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "outside.png").write_bytes(SECRET)
    bundle, publication = _publish_page(server, workspace, '<img src="../outside.png">')
    assert _reasons(bundle) == {"../outside.png": "outside"}
    assert set(bundle.resources) == {"index.html"}
    for target in ("../outside.png", "outside.png", "%2e%2e/outside.png"):
        assert SECRET not in request(server.port, key_path(publication, target)).body


def test_a_denied_dependency_is_left_out_naming_the_rule(server, tmp_path):
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "id_rsa.png").write_bytes(SECRET)
    (tmp_path / "private.png").write_bytes(SECRET)
    policy = Policy(
        [*builtin_rules(), Rule("private.*", "workspace policy")], home="/nonexistent"
    )
    (tmp_path / "index.html").write_text(
        '<img src="secrets/id_rsa.png"><img src="private.png">'
    )
    bundle = _bind(tmp_path, policy=policy)
    assert set(bundle.resources) == {"index.html"}
    details = {item.reference: item.detail for item in bundle.left_out}
    assert {item.reason for item in bundle.left_out} == {"denied"}
    assert "id_rsa*" in details["secrets/id_rsa.png"]
    assert "private.*" in details["private.png"]
    publication = server.publish(bundle)
    answer = request(server.port, key_path(publication, "secrets/id_rsa.png"))
    assert SECRET not in answer.body


def test_a_dependency_changed_after_publishing_serves_the_snapshot(server, tmp_path):
    (tmp_path / "data.js").write_bytes(b"var version = 1;")
    (tmp_path / "pic.png").write_bytes(b"old picture")
    _, publication = _publish_page(
        server, tmp_path, '<script src="data.js"></script><img src="pic.png">'
    )
    (tmp_path / "data.js").write_bytes(b"var version = 2; // changed")
    (tmp_path / "pic.png").unlink()
    os.symlink(tmp_path / "index.html", tmp_path / "pic.png")
    assert request(server.port, key_path(publication, "data.js")).body == (
        b"var version = 1;"
    )
    assert request(server.port, key_path(publication, "pic.png")).body == b"old picture"


# No leaks, no leftovers -----------------------------------------------------------


def test_the_token_never_appears_in_a_log_record(published, server, caplog, capfd):
    caplog.set_level(logging.DEBUG)
    token = published.token
    request(server.port, key_path(published, "style.css"))
    request(server.port, key_path(published, "missing.css"))
    request(server.port, key_path(published, "style.css"), method="POST")
    request(server.port, key_path(published, "style.css"), host="evil")
    raw(server.port, f"BROKEN /cap/{token}/x\r\n\r\n".encode())
    published.revoke()
    request(server.port, key_path(published, "style.css"))
    assert caplog.records  # the server does log, just never the token
    assert all(token not in record.getMessage() for record in caplog.records)
    captured = capfd.readouterr()
    assert token not in captured.out
    assert token not in captured.err


def test_close_ends_open_connections_and_leaves_no_thread(workspace):
    before = set(threading.enumerate())
    server = CapabilityServer()
    publication = server.publish(_bind(workspace))
    idle = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    kept = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    kept.request("GET", key_path(publication, "style.css"))
    assert kept.getresponse().read() == CSS  # keep-alive: the thread stays
    server.close()
    idle.close()
    kept.close()
    assert set(threading.enumerate()) <= before
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1).close()


def test_400_idle_connections_neither_block_a_request_nor_pile_up_threads(workspace):
    before = set(threading.enumerate())
    server = CapabilityServer()
    idle: list[socket.socket] = []
    try:
        publication = server.publish(_bind(workspace))
        for _ in range(400):
            idle.append(
                socket.create_connection(("127.0.0.1", server.port), timeout=10)
            )
        port = server.port
        request_data = get(
            port, key_path(publication, "style.css"), "Connection: close"
        )
        replies, _received = exchange(port, request_data)
        assert replies == [Reply(200, CSS)]
        # One thread per connection served, plus the one accepting them.
        assert len(set(threading.enumerate()) - before) <= MAX_CONNECTIONS + 1
    finally:
        for connection in idle:
            connection.close()
        server.close()
    assert set(threading.enumerate()) <= before
