"""Fetch pinned browser libraries from the npm registry into resources/web/libraries.

Run at development time, never by the app: ``python scripts/fetch_web_libraries.py``.
Each pinned package's tarball is downloaded from the npm registry, checked
against the registry's ``integrity`` (SHA-512), and the files a page loads from
a CDN are copied out with the package's licence. ``manifest.json`` records, per
library, the npm package, version, tarball integrity, licence, every file with
its SHA-256 and MIME type, and the CDN URL patterns that map to it; the app's
``app.core.serve.web_libraries`` reads nothing else. Standard library only, so it
runs before the project is installed.

To update a library, change its version in ``web_library_pins.py``, run this script
and commit the result (the manifest and the files in one commit).
"""

from __future__ import annotations

import argparse
import base64
import fnmatch
import hashlib
import io
import json
import posixpath
import re
import shutil
import sys
import tarfile
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from web_library_pins import LIBRARIES, Library, Pin

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "resources" / "web" / "libraries"
REGISTRY = "https://registry.npmjs.org"
MANIFEST_FORMAT = 1

MIME_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".woff2": "font/woff2",
    ".png": "image/png",
}

# Licences that permit redistributing the files with the app. Font Awesome
# Free is three: its icons CC BY 4.0, its fonts the SIL OFL 1.1, its code MIT.
PERMITTED_LICENCES = {
    "MIT",
    "ISC",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "Apache-2.0",
    "(CC-BY-4.0 AND OFL-1.1 AND MIT)",
}

# The MIT licence's text, for a package that declares MIT but carries no
# licence file in its tarball (alpinejs); the copyright line names the
# package's author as its package.json gives it.
MIT_TEXT = """MIT License

Copyright (c) {holder}

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""


def _npm_urls(package: str) -> list[dict[str, Any]]:
    return [
        {"pattern": f"https://cdn.jsdelivr.net/npm/{package}{{@version}}{{/path}}"},
        {"pattern": f"https://unpkg.com/{package}{{@version}}{{/path}}"},
    ]


def _get(url: str) -> bytes:
    if not url.startswith("https://"):
        raise SystemExit(f"refusing a non-HTTPS URL: {url}")
    with urllib.request.urlopen(url, timeout=120) as response:  # noqa: S310
        return bytes(response.read())


def _metadata(registry: str, package: str, version: str) -> dict[str, Any]:
    name = urllib.parse.quote(package, safe="@")
    data: dict[str, Any] = json.loads(_get(f"{registry}/{name}/{version}"))
    return data


def _check_integrity(data: bytes, integrity: str) -> None:
    algorithm, _, digest = integrity.partition("-")
    if algorithm != "sha512":
        raise SystemExit(f"expected a sha512 integrity, got {integrity!r}")
    actual = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if actual != digest:
        raise SystemExit(f"integrity mismatch: registry {digest}, tarball {actual}")


def _members(tarball: bytes) -> dict[str, bytes]:
    """The tarball's regular files by their path below the package's folder."""
    found: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        for member in archive.getmembers():
            if not member.isfile():
                continue
            parts = member.name.split("/", 1)
            if len(parts) != 2:
                continue
            name = posixpath.normpath(parts[1])
            if name.startswith(("../", "/")) or name == "..":
                raise SystemExit(f"unsafe path in tarball: {member.name}")
            handle = archive.extractfile(member)
            assert handle is not None
            found[name] = handle.read()
    return found


def _licence(
    library: Library, members: dict[str, bytes], meta: dict[str, Any]
) -> tuple[str, bytes]:
    named = sorted(
        name for name in members if re.fullmatch(r"(?i)licen[cs]e(\.md|\.txt)?", name)
    )
    if named:
        return named[0], members[named[0]]
    if library.mit_from_declaration and meta.get("license") == "MIT":
        author = meta.get("author")
        holder = author.get("name") if isinstance(author, dict) else author
        if not holder:
            raise SystemExit(f"{library.package}: no author to name in its licence")
        note = (
            f"The {library.package} package carries no licence file; its package.json"
            ' declares "license": "MIT". This is that licence.\n\n'
        )
        return "LICENSE", (note + MIT_TEXT.format(holder=holder)).encode()
    raise SystemExit(f"{library.package}: no licence file in the tarball")


def _select(pin: Pin, members: dict[str, bytes], package: str) -> list[str]:
    chosen: list[str] = []
    for pattern in pin.files:
        # fnmatch's * crosses "/", so each pattern is matched folder by folder.
        depth = pattern.count("/")
        hits = sorted(
            name
            for name in members
            if name.count("/") == depth and fnmatch.fnmatchcase(name, pattern)
        )
        if not hits:
            raise SystemExit(f"{package}@{pin.version}: nothing matches {pattern}")
        chosen += hits
    for name in chosen:
        if posixpath.splitext(name)[1] not in MIME_TYPES:
            raise SystemExit(f"{package}@{pin.version}: no MIME type for {name}")
    return sorted(set(chosen))


def fetch(library: Library, pin: Pin, registry: str) -> dict[str, Any]:
    """Download one pinned version, write its files, and describe it."""
    meta = _metadata(registry, library.package, pin.version)
    if meta.get("license") != library.licence:
        raise SystemExit(
            f"{library.package}@{pin.version} declares {meta.get('license')!r},"
            f" expected {library.licence!r}"
        )
    tarball_url = meta["dist"]["tarball"]
    integrity = meta["dist"]["integrity"]
    tarball = _get(tarball_url)
    _check_integrity(tarball, integrity)
    members = _members(tarball)
    folder = TARGET / library.package / pin.version
    files: dict[str, Any] = {}
    for name in _select(pin, members, library.package):
        data = members[name]
        destination = folder / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
        files[name] = {
            "sha256": hashlib.sha256(data).hexdigest(),
            "mime": MIME_TYPES[posixpath.splitext(name)[1]],
            "size": len(data),
        }
    licence_name, licence_text = _licence(library, members, meta)
    (folder / licence_name).write_bytes(licence_text)
    for asked, served in [*pin.aliases.items(), ("", pin.default)]:
        if served not in files:
            raise SystemExit(
                f"{library.package}@{pin.version}: {asked or 'the default'}"
                f" names {served}, which is not among its files"
            )
    print(f"{library.package}@{pin.version}: {len(files)} files", flush=True)
    return {
        "version": pin.version,
        "tarball": tarball_url,
        "integrity": integrity,
        "licence_file": f"{library.package}/{pin.version}/{licence_name}",
        "licence_sha256": hashlib.sha256(licence_text).hexdigest(),
        "default": pin.default,
        "files": files,
        "aliases": dict(sorted(pin.aliases.items())),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--registry", default=REGISTRY, help="npm registry URL")
    args = parser.parse_args()
    for library in LIBRARIES:
        if library.licence not in PERMITTED_LICENCES:
            raise SystemExit(f"{library.package}: {library.licence} is not permitted")
    shutil.rmtree(TARGET, ignore_errors=True)
    TARGET.mkdir(parents=True)
    entries = []
    for library in LIBRARIES:
        versions = [
            fetch(library, pin, args.registry.rstrip("/")) for pin in library.pins
        ]
        entries.append(
            {
                "name": library.name,
                "package": library.package,
                "licence": library.licence,
                "versioning": library.versioning,
                "urls": [*_npm_urls(library.package), *library.urls],
                "versions": versions,
            }
        )
    manifest = {"format": MANIFEST_FORMAT, "registry": REGISTRY, "libraries": entries}
    text = json.dumps(manifest, indent=1, sort_keys=False, ensure_ascii=False)
    (TARGET / "manifest.json").write_text(text + "\n", encoding="utf-8")
    total = sum(path.stat().st_size for path in TARGET.rglob("*") if path.is_file())
    print(f"{TARGET.relative_to(ROOT)}: {total / 1e6:.1f} MB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
