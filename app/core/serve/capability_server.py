"""Serve bound bundles on loopback under unguessable, revocable capability URLs.

Built on the stdlib ``http.server``: it hands bytes already in memory to one
local browser engine, so a server framework would add a dependency and attack
surface for nothing. Only request parsing is taken from it; every response,
error pages included, is written here.

Decisions: the query string is ignored for lookup (pages add ``?v=2`` to bust
caches) but the path is matched exactly, with percent-escapes decoded only for
characters a browser itself escapes; a multi-range request gets the whole
resource (200); a token revoked recently gets 410, any other unknown one 404;
the same Content-Security-Policy, sandbox included, goes on every response,
so a bound file opened on its own is sandboxed too. A request in CORS mode
for one of the page's own files gets 403: a page's opaque origin may not read
its files (and fetch is refused by the policy before it is sent). Only the
app's public library copies answer it, with ``Access-Control-Allow-Origin: *``:
fonts and module scripts are loaded in CORS mode, and those bytes are no secret.

A body is never read: a request that announces one is answered and its
connection closed, so the body cannot be taken for the next request; one whose
end other parsers could place differently (a repeated or malformed length, a
folded or unreadable header line) gets 400, and HTTP/0.9, whose answer has no
room for the security headers, gets 505. At most ``MAX_CONNECTIONS`` are served
at once, a thread each; past that, the connection idle longest is closed.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import logging
import re
import secrets
import socket
import socketserver
import threading
from dataclasses import dataclass, field
from email.message import Message
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote, unquote_to_bytes

from app.core.serve.manifest import Bundle, Resource, is_canonical_key

HOST = "127.0.0.1"
PREFIX = "/cap/"
# Inline styles are allowed: reports use them, and with every load limited to
# 'self' a stylesheet can neither run code nor send data anywhere. Inline
# scripts, event handler attributes and eval are allowed too: single-file
# pages are written that way, and a script beside the page is exactly as
# untrusted. What any script may do is fenced by the rest, unchanged: loads
# only from 'self', no connections, forms or frames, and an opaque origin
# (no storage, no reading of the server's responses). data: images are
# inline bytes, not requests. Forms are allowed in the sandbox so a page's own
# submit handlers run (a calculator, a validated contact form); where a
# submission would go, form-action 'none' stops it, and so would the
# navigation rules behind it.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; "
    "style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; media-src 'self'; font-src 'self'; connect-src 'none'; "
    "form-action 'none'; base-uri 'none'; frame-src 'none'; object-src 'none'; "
    "frame-ancestors 'none'; sandbox allow-scripts allow-forms"
)
_SECURITY_HEADERS = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
)
_REMEMBERED_REVOCATIONS = 1024
MAX_CONNECTIONS = 64
"""Connections served at once, a thread each; a new one past it closes the
connection that has waited longest for a request."""
# How long a connection past the bound waits for a thread to end: one that was
# waiting for a request ends at once, one answering finishes its response.
_SLOT_WAIT_SECONDS = 2.0
_RANGE = re.compile(r"bytes=(\d{0,18})-(\d{0,18})")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_DIGITS = re.compile(r"[0-9]{1,18}")
# Characters a browser never escapes in a path; an escaped one is a trick.
_NEVER_ESCAPED = frozenset(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/\\"
)
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Publication:
    """A published bundle: its URL, the token inside it, and how to revoke it.

    Token and URL stay out of ``repr`` so logging a publication leaks nothing.
    """

    url: str = field(repr=False)
    prefix: str = field(repr=False)
    token: str = field(repr=False)
    entry_key: str
    _server: CapabilityServer = field(repr=False, compare=False)

    def revoke(self) -> None:
        self._server.revoke(self.token)


class _RangeNotSatisfiableError(Exception):
    pass


def _byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """Inclusive (first, last) for one valid range; ``None`` means the whole body."""
    if header is None:
        return None
    match = _RANGE.fullmatch(header.strip())
    if match is None or match.group(1) == match.group(2) == "":
        return None  # invalid or several ranges: ignored, as the standard allows
    first_text, last_text = match.groups()
    if first_text == "":
        suffix = int(last_text)
        if suffix == 0 or size == 0:
            raise _RangeNotSatisfiableError
        return max(0, size - suffix), size - 1
    first = int(first_text)
    if last_text and int(last_text) < first:
        return None
    if first >= size:
        raise _RangeNotSatisfiableError
    last = min(int(last_text), size - 1) if last_text else size - 1
    return first, last


def _decode_key(raw: str) -> str | None:
    """The manifest key a raw request path names, or ``None`` for any trick."""
    if not raw or any(not 0x21 <= ord(char) <= 0x7E for char in raw):
        return None
    if "\\" in raw or raw.count("%") != len(_ESCAPE.findall(raw)):
        return None
    for escape in _ESCAPE.findall(raw):
        value = int(escape, 16)
        if value < 0x20 or value == 0x7F or value in _NEVER_ESCAPED:
            return None
    try:
        key = unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return key if is_canonical_key(key) else None


def _framing_is_ambiguous(headers: Message) -> bool:
    """Whether another parser could find a different end of this request.

    A header line the parser could not read ends the header block early, so
    a ``Content-Length`` after it goes unseen; a folded line or a repeated or
    malformed length is read differently by different parsers. Any of them
    could make a body read as the next request.
    """
    if headers.defects:
        return True
    if any("\r" in value or "\n" in value for value in headers.values()):
        return True
    lengths = headers.get_all("Content-Length") or []
    return len(lengths) > 1 or any(_DIGITS.fullmatch(v) is None for v in lengths)


def _announces_body(headers: Message) -> bool:
    # A Transfer-Encoding header counts whatever its value: an empty or unknown
    # coding is still a body some parser would look for.
    if "Transfer-Encoding" in headers:
        return True
    return any(int(value) != 0 for value in headers.get_all("Content-Length") or [])


class _Handler(BaseHTTPRequestHandler):
    server: _LoopbackServer
    target = ""
    protocol_version = "HTTP/1.1"
    server_version = "deliverables"
    sys_version = ""
    timeout = 30  # an idle keep-alive connection does not hold a thread forever

    def handle_one_request(self) -> None:
        # Waiting for a request (and reading it) is idle time: a connection
        # may be closed to make room then, never while it is being answered.
        self.server.mark_idle(self.connection)
        super().handle_one_request()

    def parse_request(self) -> bool:
        parsed = super().parse_request()
        self.server.mark_busy(self.connection)
        if not parsed:
            return False
        # The base class rewrites a leading "//" in self.path; match the
        # target exactly as it was sent.
        self.target = self.requestline.split()[1]
        if self.request_version == "HTTP/0.9":
            # A 0.9 answer is the body alone: no status line and none of the
            # security headers every response must carry.
            self.request_version = "HTTP/1.0"
            status = HTTPStatus.HTTP_VERSION_NOT_SUPPORTED
            self._refuse(status, status.phrase.lower())
            return False
        if _framing_is_ambiguous(self.headers):
            self._refuse(HTTPStatus.BAD_REQUEST, "bad request")
            return False
        if _announces_body(self.headers):
            self.close_connection = True  # a body is never read: do not reuse
        hosts = self.headers.get_all("Host") or []
        if hosts != [f"{HOST}:{self.server.server_port}"]:
            self._refuse(HTTPStatus.MISDIRECTED_REQUEST, "misdirected request")
            return False
        if self.command not in ("GET", "HEAD"):
            allow = (("Allow", "GET, HEAD"),)
            self._refuse(HTTPStatus.METHOD_NOT_ALLOWED, "method not allowed", allow)
            return False
        return True

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _find(self) -> Resource | HTTPStatus:
        path = self.target.split("?", 1)[0]
        if not path.startswith(PREFIX):
            return HTTPStatus.NOT_FOUND
        token, slash, raw_key = path[len(PREFIX) :].partition("/")
        if not slash:
            return HTTPStatus.NOT_FOUND
        bundle = self.server.owner.lookup(token)
        if not isinstance(bundle, Bundle):
            return bundle
        key = _decode_key(raw_key)
        resource = bundle.resources.get(key) if key is not None else None
        return resource if resource is not None else HTTPStatus.NOT_FOUND

    def _answer(self, *, send_body: bool) -> None:
        found = self._find()
        if isinstance(found, HTTPStatus):
            self._refuse(found, found.phrase.lower())
            return
        cors = self.headers.get("Sec-Fetch-Mode", "").lower() == "cors"
        if cors and not found.public:
            self._refuse(HTTPStatus.FORBIDDEN, "cross-origin reads are not served")
            return
        size = len(found.data)
        try:
            span = _byte_range(self.headers.get("Range"), size)
        except _RangeNotSatisfiableError:
            extra = (("Content-Range", f"bytes */{size}"),)
            status = HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE
            self._refuse(status, "range not satisfiable", extra)
            return
        first, last = span if span is not None else (0, size - 1)
        self.send_response(
            HTTPStatus.OK if span is None else HTTPStatus.PARTIAL_CONTENT
        )
        self.send_header("Content-Type", found.content_type)
        self.send_header("Accept-Ranges", "bytes")
        if found.public:
            # Bytes shipped with the app: any origin may read them, and an
            # opaque one can be granted no other way than "*".
            self.send_header("Access-Control-Allow-Origin", "*")
        if span is not None:
            self.send_header("Content-Range", f"bytes {first}-{last}/{size}")
        self._finish_headers(last - first + 1)
        if send_body and size:
            self.wfile.write(memoryview(found.data)[first : last + 1])

    def _finish_headers(self, length: int) -> None:
        for name, value in _SECURITY_HEADERS:
            self.send_header(name, value)
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def _refuse(
        self,
        status: HTTPStatus,
        text: str,
        extra: tuple[tuple[str, str], ...] = (),
    ) -> None:
        payload = (text + "\n").encode()
        if status >= HTTPStatus.BAD_REQUEST and status != HTTPStatus.NOT_FOUND:
            self.close_connection = True
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        for name, value in extra:
            self.send_header(name, value)
        self._finish_headers(len(payload))
        if self.command != "HEAD":
            self.wfile.write(payload)

    def send_error(
        self, code: int, message: str | None = None, explain: str | None = None
    ) -> None:
        # The base class echoes the request line into an HTML page; this
        # answers with the status phrase only, so no token is reflected.
        self.close_connection = True
        if self.request_version == "HTTP/0.9":
            # An unparsable request line leaves the 0.9 default, which would
            # suppress the status line; answer with a real one.
            self.request_version = "HTTP/1.0"
        status = HTTPStatus(code)
        self._refuse(status, status.phrase.lower())

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        _log.debug("%s %s", self.command, code)  # never the path: it holds the token

    def log_message(self, format: str, *args: Any) -> None:
        """Nothing: the base class's messages quote the request line."""


class _LoopbackServer(ThreadingHTTPServer):
    allow_reuse_address = False  # on Windows it would let another process share
    daemon_threads = False
    block_on_close = True  # close() joins every connection thread

    # Connections the kernel holds until they are accepted. Past the default
    # of 5 it drops them, and a client tries again only a second later.
    request_queue_size = MAX_CONNECTIONS

    def __init__(self, owner: CapabilityServer) -> None:
        self.owner = owner
        # Each open connection, with when it began to wait for a request (an
        # order, not a time) or None while a request is being answered.
        self._connections: dict[socket.socket, int | None] = {}
        self._connections_lock = threading.Lock()
        self._idle_order = itertools.count()
        # A thread per connection, so bounding connections bounds threads:
        # idle sockets opened by any local process cannot pile them up.
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        # Threads that gave their slot back and are ending; joined before a
        # new one starts, so the bound holds for live threads, not just slots.
        self._ending: collections.deque[threading.Thread] = collections.deque()
        super().__init__((HOST, 0), _Handler)

    def server_bind(self) -> None:
        if hasattr(socket, "SO_EXCLUSIVEADDRUSE"):
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
        # Skip HTTPServer's reverse lookup of the host name: it can stall.
        socketserver.TCPServer.server_bind(self)
        self.server_name = HOST
        self.server_port = self.server_address[1]

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self._close_longest_idle()
            if not self._slots.acquire(timeout=_SLOT_WAIT_SECONDS):
                # Every connection is being answered: refuse this one rather
                # than grow past the bound.
                self.shutdown_request(request)
                return
        while self._ending:
            self._ending.popleft().join(_SLOT_WAIT_SECONDS)
        with self._connections_lock:
            self._connections[request] = next(self._idle_order)
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()  # no thread started to release it
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._ending.append(threading.current_thread())
            self._slots.release()

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.pop(request, None)
        super().shutdown_request(request)

    def mark_idle(self, connection: socket.socket) -> None:
        with self._connections_lock:
            if connection in self._connections:
                self._connections[connection] = next(self._idle_order)

    def mark_busy(self, connection: socket.socket) -> None:
        with self._connections_lock:
            if connection in self._connections:
                self._connections[connection] = None

    def _close_longest_idle(self) -> None:
        # Under the lock: shutdown_request forgets a connection before closing
        # it, so a socket found here is still open and is not another's fd.
        with self._connections_lock:
            idle = {c: o for c, o in self._connections.items() if o is not None}
            if not idle:
                return
            oldest = min(idle, key=idle.__getitem__)
            self._connections[oldest] = None  # closed once, not picked again
            with contextlib.suppress(OSError):
                oldest.shutdown(socket.SHUT_RDWR)  # its thread reads EOF and ends

    def drop_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by its thread
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The default prints a traceback to stderr; a client that went away
        # mid-response is normal (media seeking), anything else is named only.
        _log.debug("capability server: a request ended with an error")


class CapabilityServer:
    """One loopback server per app, serving each published bundle by token."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bundles: dict[str, Bundle] = {}
        self._revoked: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._httpd = _LoopbackServer(self)
        self.port: int = self._httpd.server_port
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="capability-server",
            daemon=True,
        )
        self._thread.start()

    @property
    def origin(self) -> str:
        return f"http://{HOST}:{self.port}"

    def publish(self, bundle: Bundle) -> Publication:
        """Serve ``bundle`` under a fresh 256-bit token until it is revoked."""
        token = secrets.token_urlsafe(32)
        prefix = f"{self.origin}{PREFIX}{token}/"
        with self._lock:
            self._bundles[token] = bundle
        url = prefix + quote(bundle.entry_key, safe="/")
        return Publication(url, prefix, token, bundle.entry_key, self)

    def revoke(self, token: str) -> None:
        """Stop serving ``token``; later requests get 410, then 404."""
        with self._lock:
            if self._bundles.pop(token, None) is None:
                return
            self._revoked[token] = None
            while len(self._revoked) > _REMEMBERED_REVOCATIONS:
                self._revoked.popitem(last=False)

    def lookup(self, token: str) -> Bundle | HTTPStatus:
        with self._lock:
            bundle = self._bundles.get(token)
            if bundle is not None:
                return bundle
            return HTTPStatus.GONE if token in self._revoked else HTTPStatus.NOT_FOUND

    def close(self) -> None:
        """Stop serving, end open connections and join every thread."""
        with self._lock:
            self._bundles.clear()
        self._httpd.shutdown()
        self._httpd.drop_connections()
        self._httpd.server_close()
        self._thread.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
