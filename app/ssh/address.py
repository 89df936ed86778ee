"""``ssh://`` workspace addresses, and the two forms of a remote file's coordinate."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote, unquote

SCHEME: Final = "ssh://"
DEFAULT_PORT: Final = 22

# Host names and ~/.ssh/config aliases as people write them; IPv6 in brackets.
# Nothing that a shell, an option parser or a known_hosts line would read as
# something else: no spaces, commas, quotes or a leading dash.
_HOST = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.\-]{0,252})")
_IPV6 = re.compile(r"\[([0-9A-Fa-f:.]{2,45})\]")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
# RFC 3986 "pchar" minus "%": what may stay unescaped in a path segment.
_PATH_SAFE: Final = "/-._~!$&'()*+,;=:@"
_USER_SAFE: Final = "-._~!$&'()*+,;="


class AddressError(ValueError):
    """An ``ssh://`` address that cannot be used; the message says why."""


def is_remote_address(text: str) -> bool:
    """Whether ``text`` is meant as an ``ssh://`` address (valid or not)."""
    return text[: len(SCHEME)].lower() == SCHEME


def _check_user(user: str) -> str:
    if not user or len(user) > 256:
        raise AddressError("the user name is empty or too long")
    if user.startswith("-") or any(c in user for c in ":/") or not user.isprintable():
        raise AddressError(f"the user name {user!r} cannot be used")
    if any(c.isspace() for c in user):
        raise AddressError("the user name contains a space")
    return user


def _check_host(host: str) -> str:
    match = _IPV6.fullmatch(host)
    if match is not None:
        return match.group(1)
    if not _HOST.fullmatch(host):
        raise AddressError(f"{host!r} is not a host name or address")
    return host


def _check_port(text: str) -> int:
    if not text.isdigit() or len(text) > 5 or not 1 <= int(text) <= 65535:
        raise AddressError(f"the port {text!r} is not a number from 1 to 65535")
    return int(text)


def normalise_path(path: str) -> str:
    """An absolute POSIX path with ``.``, ``..`` and doubled slashes applied.

    Remote paths are POSIX whatever this computer uses; ``..`` is applied
    lexically, the server resolves links later.
    """
    if not path.startswith("/"):
        raise AddressError("the remote path must be absolute (start with /)")
    if "\0" in path:
        raise AddressError("the remote path contains a NUL byte")
    normal = posixpath.normpath(path)
    # POSIX lets "//" mean something else; no server of ours does.
    return "/" + normal.lstrip("/")


@dataclass(frozen=True)
class RemoteAddress:
    """Where a remote workspace is, as the user wrote it (config may fill in more).

    ``user`` and ``port`` are ``None`` when the address leaves them to
    ``~/.ssh/config`` and the defaults; ``host`` may be a config alias.
    """

    host: str
    path: str
    user: str | None = None
    port: int | None = None

    def __str__(self) -> str:
        return format_address(self.user, self.host, self.port, self.path)

    def with_path(self, path: str) -> RemoteAddress:
        return RemoteAddress(self.host, normalise_path(path), self.user, self.port)


def _host_text(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def format_address(user: str | None, host: str, port: int | None, path: str) -> str:
    """The ``ssh://`` text of an address, with the path percent-escaped."""
    who = f"{quote(user, safe=_USER_SAFE)}@" if user else ""
    where = f"{_host_text(host)}:{port}" if port is not None else _host_text(host)
    return f"{SCHEME}{who}{where}{quote(path, safe=_PATH_SAFE)}"


def parse_address(text: str) -> RemoteAddress:
    """Read ``ssh://[user@]host[:port]/absolute/path``; raise ``AddressError``."""
    if not is_remote_address(text):
        raise AddressError("a remote workspace address starts with ssh://")
    rest = text[len(SCHEME) :]
    if any(c in rest for c in "?#") or not rest.isprintable():
        raise AddressError(
            "the address has a character that must be percent-escaped (?, # or "
            "a control character)"
        )
    authority, slash, path = rest.partition("/")
    if not slash:
        raise AddressError("the address needs an absolute path after the host")
    user: str | None = None
    if "@" in authority:
        raw_user, _, authority = authority.rpartition("@")
        if _BAD_ESCAPE.search(raw_user):
            raise AddressError("the user name has a broken percent escape")
        user = _check_user(unquote(raw_user, errors="strict"))
    port: int | None = None
    host = authority
    if authority.startswith("["):
        end = authority.find("]")
        if end == -1:
            raise AddressError("an IPv6 address needs its closing ]")
        host, after = authority[: end + 1], authority[end + 1 :]
        if after:
            if not after.startswith(":"):
                raise AddressError(f"unexpected text after the host: {after!r}")
            port = _check_port(after[1:])
    elif ":" in authority:
        host, _, port_text = authority.rpartition(":")
        port = _check_port(port_text)
    if _BAD_ESCAPE.search(path):
        raise AddressError("the path has a broken percent escape")
    try:
        decoded = unquote("/" + path, errors="strict")
    except UnicodeDecodeError as error:
        raise AddressError("the path is not valid UTF-8 once unescaped") from error
    return RemoteAddress(_check_host(host), normalise_path(decoded), user, port)


@dataclass(frozen=True)
class Coordinate:
    """One file on one host: what a remote card can copy and what it points at."""

    user: str
    host: str
    port: int
    path: str

    def url(self) -> str:
        """``ssh://user@host:port/path``, percent-escaped, the port always given."""
        return format_address(self.user, self.host, self.port, self.path)

    def scp(self) -> str:
        """``user@host:/path``, as scp and rsync take it (the path unescaped).

        This form cannot carry a port: with another port than 22 the caller
        says so beside it (``scp -P``), or offers ``url()`` instead.
        """
        return f"{self.user}@{_host_text(self.host)}:{self.path}"
