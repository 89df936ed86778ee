"""Pinned copies of the browser libraries pages load from CDNs, and their lookup.

Previews have no network, so a page that loads Chart.js, D3, Plotly, Tailwind,
React, three.js, Mermaid or KaTeX from a CDN would show blank or unstyled.
The app ships pinned copies (``resources/web/libraries``, written by
``scripts/fetch_web_libraries.py``) and answers a known CDN URL with the
bundled file: ``resolve(url)`` gives a ``BundledFile`` or ``NotBundled``,
``describe`` the words for it, ``bundled`` a file for the app's own pages and
``verify_catalogue`` checks the files against their recorded hashes;
``read_library_file`` reads one, from its packed twin in the package.
"""

from __future__ import annotations

from app.core.serve.web_libraries.catalogue import (
    Catalogue,
    CatalogueError,
    FileEntry,
    Library,
    LibraryVersion,
    load_catalogue,
    packed_twin,
    read_library_file,
    verify_catalogue,
)
from app.core.serve.web_libraries.lookup import (
    BundledFile,
    NotBundled,
    bundled,
    bundled_catalogue,
    describe,
    libraries_folder,
    resolve,
)
from app.core.serve.web_libraries.versions import VersionMatch

__all__ = [
    "BundledFile",
    "Catalogue",
    "CatalogueError",
    "FileEntry",
    "Library",
    "LibraryVersion",
    "NotBundled",
    "VersionMatch",
    "bundled",
    "bundled_catalogue",
    "describe",
    "libraries_folder",
    "load_catalogue",
    "packed_twin",
    "read_library_file",
    "resolve",
    "verify_catalogue",
]
