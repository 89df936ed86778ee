"""The agent's public files (``<workspace>/public/``) and short-lived links to them."""

from __future__ import annotations

import os
import secrets
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Final

from app.core.filetype import mime_from_name, suffix
from app.core.trust.policy import Policy

PUBLIC_FOLDER: Final = "public"
LINK_SCHEME: Final = "public://"
DEFAULT_LINK_TTL: Final = 600.0  # seconds

# The image formats ``show_image`` offers; their types come from the file-type
# service's fixed table, never from the system's registry.
IMAGE_SUFFIXES: Final = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".bmp", ".ico"}
)


@dataclass(frozen=True)
class PublicFile:
    """One regular file directly in the public folder, as seen at listing time."""

    name: str
    path: PurePath  # a local Path, or a POSIX path on a remote workspace's host
    size: int
    mime: str | None  # None for files that are not a supported image


def public_folder(workspace: Path) -> Path:
    return workspace / PUBLIC_FOLDER


def is_public_path(real_path: str, workspace: str | Path) -> bool:
    """Whether a resolved path names a file directly in the real public folder.

    Directly, not below: the agent can make subfolders and links in there,
    and only the folder's own files are published.
    """
    public = os.path.realpath(public_folder(Path(workspace)))
    return os.path.dirname(real_path) == public


def image_mime(name: str) -> str | None:
    """The image MIME type for a file name, or ``None`` if not a supported image."""
    return mime_from_name(name) if suffix(name) in IMAGE_SUFFIXES else None


def public_files(workspace: Path, policy: Policy) -> list[PublicFile]:
    """Every public file, sorted by name: regular, not a symlink, not denied.

    A symlinked ``public`` folder is not followed: the agent can create one, and
    following it would publish whatever it points at.
    """
    folder = public_folder(workspace)
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return []
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    real_folder = os.path.realpath(folder)
    found: list[PublicFile] = []
    for name in names:
        path = folder / name
        try:
            status = os.lstat(path)
        except FileNotFoundError:
            continue  # removed between listing and lstat: not a public file now
        if not stat.S_ISREG(status.st_mode):
            continue
        if policy.denying_rule(os.path.join(real_folder, name)) is not None:
            continue
        found.append(PublicFile(name, path, status.st_size, image_mime(name)))
    return found


def public_images(workspace: Path, policy: Policy) -> list[PublicFile]:
    """The public files that are images of a supported format."""
    return [file for file in public_files(workspace, policy) if file.mime is not None]


def has_public_files(workspace: Path, policy: Policy) -> bool:
    return bool(public_files(workspace, policy))


@dataclass(frozen=True)
class _Link:
    path: PurePath
    expires_at: float


class LinkRegistry:
    """Issues ``public://<token>/<filename>`` links that expire after ``ttl`` seconds.

    The token (256 bits of randomness) is the capability; the file name is only
    there so a link reads well. Safe to share between threads.
    """

    def __init__(
        self,
        ttl: float = DEFAULT_LINK_TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl <= 0:
            raise ValueError("A link needs a positive time to live.")
        self._ttl = ttl
        self._clock = clock
        self._links: dict[str, _Link] = {}
        self._lock = threading.Lock()

    def issue(self, path: PurePath) -> str:
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._forget_expired()
            self._links[token] = _Link(path, self._clock() + self._ttl)
        return f"{LINK_SCHEME}{token}/{path.name}"

    def resolve(self, url: str) -> PurePath | None:
        """The file behind a live link, or ``None`` if unknown, expired or revoked."""
        token, name = _split(url)
        if token is None:
            return None
        with self._lock:
            link = self._links.get(token)
            if link is None:
                return None
            if self._clock() >= link.expires_at:
                del self._links[token]
                return None
        return link.path if link.path.name == name else None

    def revoke(self, url: str) -> bool:
        """Forget a link; returns whether it was live."""
        token, _ = _split(url)
        if token is None:
            return False
        with self._lock:
            return self._links.pop(token, None) is not None

    def _forget_expired(self) -> None:
        now = self._clock()
        for token in [t for t, link in self._links.items() if now >= link.expires_at]:
            del self._links[token]


def _split(url: str) -> tuple[str | None, str]:
    if not url.startswith(LINK_SCHEME):
        return None, ""
    token, sep, name = url[len(LINK_SCHEME) :].partition("/")
    if not sep or not token:
        return None, ""
    return token, name
