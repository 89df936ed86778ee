"""CDN URLs taken apart: the host, the clean path, and which pattern it fits.

A manifest pattern reads like the URL it stands for, with placeholders:
``{version}`` (a version in the path), ``{@version}`` (an optional
``@version``), ``{path}`` (the rest of the path) and ``{/path}`` (an optional
``/rest``). ``https://cdn.jsdelivr.net/npm/chart.js{@version}{/path}`` fits
``https://cdn.jsdelivr.net/npm/chart.js@4/dist/chart.umd.min.js``.

A URL is only ever compared with the patterns and looked up in the manifest;
no part of it becomes a file path. Even so, anything a CDN would not serve
as a plain file (user info, an odd port, ``..`` or ``.`` segments, encoded
slashes or backslashes, control characters, stray escapes) is refused here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import SplitResult, unquote, urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
# A pattern's host is lower-case DNS labels; its path starts with "/" or a
# placeholder, and has no query or fragment.
_PATTERN_HOST = re.compile(r"https://([a-z0-9-]+(?:\.[a-z0-9-]+)+)((?:[/{][^?#]*)?)")
_PLACEHOLDERS = re.compile(r"\{(@version|version|/path|path)\}")
# Strict where the version sits inside a file name (``plotly-2.35.2.min.js``),
# so it cannot swallow the name's next part; after ``@`` anything up to the
# next slash, for the version parser to judge.
_VERSION_IN_NAME = r"[~^]?v?\d+(?:\.(?:\d+|[xX*]))*(?:-[0-9A-Za-z.]+)?|latest|r\d+"
_REGEX_OF = {
    "@version": r"(?:@(?P<version>[^/@]*))?",
    "version": rf"(?P<version>{_VERSION_IN_NAME})",
    "/path": r"(?:/(?P<path>.*))?",
    "path": r"(?P<path>.*)",
}


@dataclass(frozen=True)
class CleanUrl:
    """The parts of a URL that decide what it names: host and decoded path."""

    host: str
    path: str  # decoded, starts with "/"


@dataclass(frozen=True)
class Pattern:
    """A compiled manifest pattern: the host it is for and its path's regex."""

    host: str
    regex: re.Pattern[str]


@dataclass(frozen=True)
class Fit:
    """What a URL's path says under one pattern."""

    version: str  # as written; "" when the URL names none
    path: str  # the rest of the path; "" when none


def compile_pattern(pattern: str) -> Pattern:
    """The compiled form of one manifest pattern; ``ValueError`` if malformed."""
    found_host = _PATTERN_HOST.fullmatch(pattern)
    if found_host is None:
        raise ValueError(f"a URL pattern must be https://host/path: {pattern!r}")
    host, rest = found_host[1], found_host[2]
    pieces: list[str] = []
    position = 0
    for found in _PLACEHOLDERS.finditer(rest):
        pieces.append(re.escape(rest[position : found.start()]))
        pieces.append(_REGEX_OF[found[1]])
        position = found.end()
    pieces.append(re.escape(rest[position:]))
    regex = "".join(pieces) if rest else "/"
    return Pattern(host, re.compile(regex))


def fit(pattern: Pattern, url: CleanUrl) -> Fit | None:
    """What ``url`` says under ``pattern``, or ``None`` if it does not fit."""
    if url.host != pattern.host:
        return None
    found = pattern.regex.fullmatch(url.path)
    if found is None:
        return None
    groups = found.groupdict()
    return Fit(groups.get("version") or "", groups.get("path") or "")


def _netloc_is_plain(parts: SplitResult) -> bool:
    try:
        port = parts.port
    except ValueError:
        return False
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return False
    return port is None or port == _DEFAULT_PORTS[parts.scheme]


def _decoded_path(raw: str) -> str | None:
    """The path with escapes decoded, or ``None`` if it is no plain file path."""
    if not raw.startswith("/") or "\\" in raw:
        return None
    try:
        path = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return None
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in path):
        return None
    if "\\" in path or "%" in path:
        return None  # an encoded backslash, or an escape inside an escape
    if path == "/":
        return path
    segments = path[1:].split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        return None
    return path


def clean_url(url: str) -> CleanUrl | str:
    """The URL's host and decoded path, or the reason it is not looked up.

    The query and the fragment are dropped: they do not change which file a
    CDN serves. The host is compared in lower case, as DNS compares it.
    """
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return "the URL cannot be read"
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        return "only http and https URLs name bundled libraries"
    parts = parts._replace(scheme=scheme)
    if not parts.hostname or not _netloc_is_plain(parts):
        return "the URL carries a user name, a password or an unusual port"
    path = _decoded_path(parts.path or "/")
    if path is None:
        return "the URL's path is not a plain file path"
    return CleanUrl(parts.hostname.lower(), path)
