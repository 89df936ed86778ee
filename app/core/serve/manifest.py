"""The frozen manifest an HTML preview is served from: resources, left-outs, limits."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from app.core.filetype import mime_from_name, suffix

MIB = 1 << 20
MAX_DEPENDENCY_BYTES = 4 * MIB
MAX_DEPENDENCIES = 64
# The HTML document counts toward the bundle: the limit bounds what one preview
# holds in memory, and the document is part of that.
MAX_BUNDLE_BYTES = 32 * MIB
# The app's own copies of CDN libraries (KaTeX alone is a stylesheet and 20
# fonts) count apart from the page's files, whose limit they would use up;
# their bytes count toward MAX_BUNDLE_BYTES like any others.
MAX_LIBRARY_FILES = 128

# The extensions a page may load, typed by the file-type service's fixed table.
# The type never comes from the content or the referencing element; with
# ``nosniff`` a script served as an image is not run. Other extensions are left
# out, not served as ``application/octet-stream``: nothing in a page could use
# such bytes.
SERVED_SUFFIXES: frozenset[str] = frozenset(
    {
        ".html", ".htm", ".css", ".js", ".png", ".jpg", ".jpeg", ".gif", ".webp",
        ".svg", ".ico", ".bmp", ".avif", ".mp3", ".wav", ".ogg", ".oga", ".ogv",
        ".mp4", ".m4v", ".webm", ".vtt", ".woff", ".woff2", ".ttf", ".otf",
    }
)  # fmt: skip


def content_type_for(name: str) -> str | None:
    """The served type for a file name, or ``None`` when the type is not served."""
    return mime_from_name(name) if suffix(name) in SERVED_SUFFIXES else None


def is_canonical_key(key: str) -> bool:
    """A key is a relative POSIX path with no empty, ``.`` or ``..`` segment."""
    if not key or "\\" in key or "\0" in key:
        return False
    return all(part not in ("", ".", "..") for part in key.split("/"))


@dataclass(frozen=True)
class Resource:
    """One snapshotted file: the bytes served, their type and their hash.

    ``public`` marks a file anyone may read, one of the app's bundled library
    files: it is also served to cross-origin (CORS) requests, which fonts and
    module scripts make from a page's opaque origin. A page's own files never
    are.
    """

    key: str
    content_type: str
    data: bytes = field(repr=False)
    sha256: str
    public: bool = False

    @classmethod
    def of(
        cls, key: str, content_type: str, data: bytes, *, public: bool = False
    ) -> Resource:
        digest = hashlib.sha256(data).hexdigest()
        return cls(key, content_type, data, digest, public)


@dataclass(frozen=True)
class LeftOut:
    """A reference the page makes that the preview does not serve, and why.

    ``reason`` is a short word (``symlink``, ``denied``, ``remote``, ...);
    ``detail`` is the sentence to show the user.
    """

    reference: str
    reason: str
    detail: str = ""
    what: str = ""  # what the page loads there: "script", "stylesheet", ...


@dataclass(frozen=True)
class LibraryCopy:
    """A library the page asks a CDN for, served from the app's own copy.

    ``in_place_of`` is what the page named when the copy is another version
    or another build ("4.4.0", "the Tailwind CSS Play CDN"), "" otherwise.
    """

    reference: str  # the URL as the page writes it
    library: str
    version: str
    host: str
    in_place_of: str = ""


@dataclass(frozen=True)
class Bundle:
    """Everything one preview may load, fixed at binding time.

    ``resources`` maps each key (the URL path below the capability prefix) to
    its snapshot; ``entry_key`` names the document to open. When the entry
    served is the page with its library references pointed at the app's
    copies, ``page_source`` holds the page's bytes as its file has them.
    """

    entry_key: str
    resources: Mapping[str, Resource]
    left_out: tuple[LeftOut, ...] = ()
    total_bytes: int = 0
    libraries: tuple[LibraryCopy, ...] = ()
    page_source: bytes | None = field(default=None, repr=False)

    @classmethod
    def of(
        cls,
        entry_key: str,
        resources: list[Resource],
        left_out: list[LeftOut],
        *,
        libraries: Sequence[LibraryCopy] = (),
        page_source: bytes | None = None,
    ) -> Bundle:
        table = {resource.key: resource for resource in resources}
        if entry_key not in table:
            raise ValueError("the entry document must be one of the resources")
        for key in table:
            if not is_canonical_key(key):
                raise ValueError(f"not a canonical manifest key: {key!r}")
        total = sum(len(resource.data) for resource in table.values())
        return cls(
            entry_key,
            MappingProxyType(table),
            tuple(left_out),
            total,
            tuple(libraries),
            page_source,
        )

    @property
    def entry(self) -> Resource:
        return self.resources[self.entry_key]

    @property
    def source(self) -> bytes:
        """The page's bytes as its file holds them (what "Source" shows)."""
        return self.entry.data if self.page_source is None else self.page_source
