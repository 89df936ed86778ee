"""Fetch pinned browser libraries from the npm registry into resources/web/libraries.

Run at development time, never by the app: ``python scripts/fetch_web_libraries.py``.
Each pinned package's tarball is downloaded from the npm registry, checked
against the registry's ``integrity`` (SHA-512), and the files a page loads from
a CDN are copied out with the package's licence. ``manifest.json`` records, per
library, the npm package, version, tarball integrity, licence, every file with
its SHA-256 and MIME type, and the CDN URL patterns that map to it; the app's
``app.core.web_libraries`` reads nothing else. Standard library only, so it
runs before the project is installed.

To update a library, change its version in ``LIBRARIES`` below, run this script
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


@dataclass(frozen=True)
class Pin:
    """One pinned version of a package and the files the app serves from it."""

    version: str
    files: tuple[str, ...]  # glob patterns below the package's root
    default: str  # served for a URL that names the package and no file
    aliases: dict[str, str] = field(default_factory=dict)  # asked-for -> served


@dataclass(frozen=True)
class Library:
    """A library as pages load it: its package, licence and CDN URLs."""

    name: str
    package: str
    licence: str  # the SPDX expression the package must declare
    pins: tuple[Pin, ...]
    urls: tuple[dict[str, Any], ...] = ()  # beyond jsDelivr's and unpkg's
    # "semver": a major (0.y below 1) is one series; "any": every release is
    # one series, for three.js, whose 0.y releases are monthly, not breaking.
    versioning: str = "semver"
    mit_from_declaration: bool = False


def _cdnjs(name: str, *prefixes: str) -> dict[str, Any]:
    return {
        "pattern": f"https://cdnjs.cloudflare.com/ajax/libs/{name}/{{version}}/{{path}}",
        "prefixes": [*prefixes, ""],
    }


def _google(name: str, *prefixes: str) -> dict[str, Any]:
    return {
        "pattern": f"https://ajax.googleapis.com/ajax/libs/{name}/{{version}}/{{path}}",
        "prefixes": [*prefixes, ""],
    }


def _file(pattern: str, file: str) -> dict[str, Any]:
    return {"pattern": pattern, "file": file}


JQUERY_FILES = ("dist/jquery.min.js", "dist/jquery.slim.min.js")
JQUERY_ALIASES = {
    "dist/jquery.js": "dist/jquery.min.js",
    "dist/jquery.slim.js": "dist/jquery.slim.min.js",
}
BOOTSTRAP_FILES = (
    "dist/css/bootstrap.min.css",
    "dist/js/bootstrap.bundle.min.js",
    "dist/js/bootstrap.min.js",
)
BOOTSTRAP_ALIASES = {
    "dist/css/bootstrap.css": "dist/css/bootstrap.min.css",
    "dist/js/bootstrap.bundle.js": "dist/js/bootstrap.bundle.min.js",
    "dist/js/bootstrap.js": "dist/js/bootstrap.min.js",
}
KATEX_FILES = (
    "dist/katex.min.js",
    "dist/katex.min.css",
    "dist/contrib/auto-render.min.js",
    "dist/contrib/mhchem.min.js",
    "dist/contrib/copy-tex.min.js",
    "dist/fonts/*.woff2",
)

LIBRARIES: tuple[Library, ...] = (
    Library(
        "Chart.js",
        "chart.js",
        "MIT",
        (
            Pin(
                "4.6.1",
                ("dist/chart.umd.min.js",),
                "dist/chart.umd.min.js",
                {
                    "dist/chart.umd.js": "dist/chart.umd.min.js",
                    "dist/chart.min.js": "dist/chart.umd.min.js",
                    "dist/chart.js": "dist/chart.umd.min.js",
                },
            ),
            Pin(
                "3.9.1",
                ("dist/chart.min.js",),
                "dist/chart.min.js",
                {"dist/chart.js": "dist/chart.min.js"},
            ),
        ),
        (_cdnjs("Chart.js", "dist/"),),
    ),
    Library(
        "D3",
        "d3",
        "ISC",
        (
            Pin(
                "7.9.2",
                ("dist/d3.min.js",),
                "dist/d3.min.js",
                {"dist/d3.js": "dist/d3.min.js"},
            ),
        ),
        (
            _file("https://d3js.org/d3.v{version}.min.js", "dist/d3.min.js"),
            _file("https://d3js.org/d3.v{version}.js", "dist/d3.min.js"),
            _cdnjs("d3", "dist/"),
            _google("d3js", "dist/"),
        ),
    ),
    Library(
        "Plotly",
        "plotly.js-dist-min",
        "MIT",
        (
            Pin(
                "2.35.3",
                ("plotly.min.js",),
                "plotly.min.js",
                {"plotly.js": "plotly.min.js"},
            ),
        ),
        (
            _file("https://cdn.plot.ly/plotly-{version}.min.js", "plotly.min.js"),
            _file("https://cdn.plot.ly/plotly-{version}.js", "plotly.min.js"),
            _cdnjs("plotly.js"),
            # Pages name the full package as often as the minified one.
            {"pattern": "https://cdn.jsdelivr.net/npm/plotly.js-dist{@version}{/path}"},
            {"pattern": "https://unpkg.com/plotly.js-dist{@version}{/path}"},
        ),
    ),
    Library(
        "Tailwind CSS",
        "@tailwindcss/browser",
        "MIT",
        (Pin("4.3.5", ("dist/index.global.js",), "dist/index.global.js"),),
        (
            # The version 3 Play CDN is no npm package: its script is served by
            # Tailwind's own host only. Version 4's browser build is its
            # successor and reads the same utility classes.
            {
                "pattern": "https://cdn.tailwindcss.com{/path}",
                "file": "dist/index.global.js",
                "stand_in": "the Tailwind CSS Play CDN",
            },
        ),
    ),
    Library(
        "Tailwind CSS",
        "tailwindcss",
        "MIT",
        (
            Pin(
                "2.2.19",
                ("dist/tailwind.min.css",),
                "dist/tailwind.min.css",
                {"dist/tailwind.css": "dist/tailwind.min.css"},
            ),
        ),
        (_cdnjs("tailwindcss", "dist/"),),
    ),
    Library(
        "React",
        "react",
        "MIT",
        (
            Pin(
                "18.3.1",
                ("umd/react.production.min.js",),
                "umd/react.production.min.js",
                # The development build differs only in its console warnings,
                # which no one reads in a preview.
                {"umd/react.development.js": "umd/react.production.min.js"},
            ),
        ),
        (_cdnjs("react"),),
    ),
    Library(
        "ReactDOM",
        "react-dom",
        "MIT",
        (
            Pin(
                "18.3.1",
                ("umd/react-dom.production.min.js",),
                "umd/react-dom.production.min.js",
                {"umd/react-dom.development.js": "umd/react-dom.production.min.js"},
            ),
        ),
        (_cdnjs("react-dom"),),
    ),
    Library(
        "Babel",
        "@babel/standalone",
        "MIT",
        (
            Pin(
                "7.29.13",
                ("babel.min.js",),
                "babel.min.js",
                {"babel.js": "babel.min.js"},
            ),
        ),
        (_cdnjs("babel-standalone"),),
    ),
    Library(
        "three.js",
        "three",
        "MIT",
        (
            Pin(
                "0.187.0",
                (
                    "build/three.module.js",
                    "build/three.core.js",
                    "examples/jsm/controls/OrbitControls.js",
                    "examples/jsm/loaders/GLTFLoader.js",
                    "examples/jsm/utils/BufferGeometryUtils.js",
                    "examples/jsm/utils/SkeletonUtils.js",
                ),
                "build/three.module.js",
                {
                    "build/three.module.min.js": "build/three.module.js",
                    "build/three.core.min.js": "build/three.core.js",
                },
            ),
            # The last script (not module) build cdnjs published, and the one
            # pages most often name.
            Pin(
                "0.128.0",
                ("build/three.min.js", "examples/js/controls/OrbitControls.js"),
                "build/three.min.js",
                {"build/three.js": "build/three.min.js"},
            ),
        ),
        (_cdnjs("three.js", "build/"), _google("threejs", "build/")),
        versioning="any",
    ),
    Library(
        "Mermaid",
        "mermaid",
        "MIT",
        (
            Pin(
                "11.17.2",
                # The module build is 3.6 MB more in 200 chunks; pages load
                # the script build as often, and the Markdown preview uses it.
                ("dist/mermaid.min.js",),
                "dist/mermaid.min.js",
                {"dist/mermaid.js": "dist/mermaid.min.js"},
            ),
        ),
        (_cdnjs("mermaid", "dist/"),),
    ),
    Library(
        "KaTeX",
        "katex",
        "MIT",
        (
            Pin(
                "0.16.47",
                KATEX_FILES,
                "dist/katex.min.js",
                {
                    "dist/katex.js": "dist/katex.min.js",
                    "dist/katex.css": "dist/katex.min.css",
                    "dist/contrib/auto-render.js": "dist/contrib/auto-render.min.js",
                },
            ),
        ),
        (_cdnjs("KaTeX", "dist/"),),
    ),
    Library(
        "jQuery",
        "jquery",
        "MIT",
        (
            Pin("4.1.0", JQUERY_FILES, "dist/jquery.min.js", JQUERY_ALIASES),
            Pin("3.8.0", JQUERY_FILES, "dist/jquery.min.js", JQUERY_ALIASES),
        ),
        (
            _file(
                "https://code.jquery.com/jquery-{version}.min.js", "dist/jquery.min.js"
            ),
            _file("https://code.jquery.com/jquery-{version}.js", "dist/jquery.min.js"),
            _file(
                "https://code.jquery.com/jquery-{version}.slim.min.js",
                "dist/jquery.slim.min.js",
            ),
            _file(
                "https://code.jquery.com/jquery-{version}.slim.js",
                "dist/jquery.slim.min.js",
            ),
            _cdnjs("jquery", "dist/"),
            _google("jquery", "dist/"),
        ),
    ),
    Library(
        "Bootstrap",
        "bootstrap",
        "MIT",
        (
            Pin(
                "5.3.9", BOOTSTRAP_FILES, "dist/js/bootstrap.min.js", BOOTSTRAP_ALIASES
            ),
            Pin(
                "4.6.2", BOOTSTRAP_FILES, "dist/js/bootstrap.min.js", BOOTSTRAP_ALIASES
            ),
        ),
        (
            _cdnjs("twitter-bootstrap", "dist/"),
            {
                "pattern": "https://stackpath.bootstrapcdn.com/bootstrap/{version}/{path}",
                "prefixes": ["dist/"],
            },
            {
                "pattern": "https://maxcdn.bootstrapcdn.com/bootstrap/{version}/{path}",
                "prefixes": ["dist/"],
            },
        ),
    ),
    Library(
        "Bootstrap Icons",
        "bootstrap-icons",
        "MIT",
        (
            Pin(
                "1.13.2",
                ("font/bootstrap-icons.min.css", "font/fonts/bootstrap-icons.woff2"),
                "font/bootstrap-icons.min.css",
                {"font/bootstrap-icons.css": "font/bootstrap-icons.min.css"},
            ),
        ),
        (_cdnjs("bootstrap-icons"),),
    ),
    Library(
        "Font Awesome",
        "@fortawesome/fontawesome-free",
        "(CC-BY-4.0 AND OFL-1.1 AND MIT)",
        (
            Pin(
                "6.7.2",
                ("css/*.min.css", "webfonts/*.woff2"),
                "css/all.min.css",
                {
                    "css/all.css": "css/all.min.css",
                    "css/fontawesome.css": "css/fontawesome.min.css",
                    "css/solid.css": "css/solid.min.css",
                    "css/regular.css": "css/regular.min.css",
                    "css/brands.css": "css/brands.min.css",
                    "css/v4-shims.css": "css/v4-shims.min.css",
                },
            ),
        ),
        (
            _cdnjs("font-awesome"),
            {"pattern": "https://use.fontawesome.com/releases/v{version}/{path}"},
            {
                "pattern": "https://maxcdn.bootstrapcdn.com/font-awesome/{version}/{path}"
            },
            {
                "pattern": "https://stackpath.bootstrapcdn.com/font-awesome/{version}/{path}"
            },
        ),
    ),
    Library(
        "marked",
        "marked",
        "MIT",
        (
            Pin(
                "15.0.12",
                ("marked.min.js", "lib/marked.umd.js"),
                "marked.min.js",
            ),
            Pin("4.3.0", ("marked.min.js",), "marked.min.js"),
        ),
        (_cdnjs("marked"),),
    ),
    Library(
        "Lodash",
        "lodash",
        "MIT",
        (
            Pin(
                "4.18.1",
                ("lodash.min.js",),
                "lodash.min.js",
                {"lodash.js": "lodash.min.js"},
            ),
        ),
        (_cdnjs("lodash.js"),),
    ),
    Library(
        "highlight.js",
        "@highlightjs/cdn-assets",
        "BSD-3-Clause",
        (
            Pin(
                "11.12.0",
                # The common languages are in highlight.min.js; the other 150
                # (1.5 MB) are left out.
                ("highlight.min.js", "styles/*.min.css"),
                "highlight.min.js",
                {"highlight.js": "highlight.min.js"},
            ),
        ),
        (
            _cdnjs("highlight.js"),
            {
                "pattern": "https://cdn.jsdelivr.net/gh/highlightjs/cdn-release{@version}/build/{path}",
            },
        ),
    ),
    Library(
        "Leaflet",
        "leaflet",
        "BSD-2-Clause",
        (
            Pin(
                "1.9.4",
                ("dist/leaflet.js", "dist/leaflet.css", "dist/images/*.png"),
                "dist/leaflet.js",
                {"dist/leaflet-src.js": "dist/leaflet.js"},
            ),
        ),
        (_cdnjs("leaflet", "dist/"),),
    ),
    Library(
        "Alpine.js",
        "alpinejs",
        "MIT",
        (
            Pin(
                "3.17.5",
                ("dist/cdn.min.js",),
                "dist/cdn.min.js",
                {"dist/cdn.js": "dist/cdn.min.js"},
            ),
        ),
        (_cdnjs("alpinejs", "dist/"),),
        mit_from_declaration=True,
    ),
    Library(
        "Vue",
        "vue",
        "MIT",
        (
            Pin(
                "3.5.46",
                ("dist/vue.global.prod.js",),
                "dist/vue.global.prod.js",
                {
                    # As with React: the development build only adds warnings.
                    "dist/vue.global.js": "dist/vue.global.prod.js",
                    "dist/vue.global.min.js": "dist/vue.global.prod.js",
                    "dist/vue.global.prod.min.js": "dist/vue.global.prod.js",
                },
            ),
            Pin(
                "2.7.16",
                ("dist/vue.min.js",),
                "dist/vue.min.js",
                {"dist/vue.js": "dist/vue.min.js"},
            ),
        ),
        (_cdnjs("vue", "dist/"),),
    ),
)


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
