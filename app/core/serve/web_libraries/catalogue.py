"""The bundled libraries as their manifest lists them, read, checked and verified.

``resources/web/libraries/manifest.json`` is written at development time by
``scripts/fetch_web_libraries.py``. Loading it checks its shape strictly:
every name it gives for a file on disk must be a plain relative path, so no
entry, however written, can point outside the folder. ``verify_catalogue``
compares the files on disk with the recorded SHA-256 hashes.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.serve.web_libraries.routes import Pattern, compile_pattern
from app.core.serve.web_libraries.versions import VERSIONINGS, Version, parse_version
from app.core.trust.paths import is_within

FORMAT = 1
MANIFEST_NAME = "manifest.json"
# The package build stores each library file xz-compressed under its name
# plus this suffix (``chart.umd.min.js.xz``): 21.6 MB of copies take 4.4 MB
# installed. The manifest's size and hash stay those of the file as served.
PACKED_SUFFIX = ".xz"
_BLOCK = 1 << 20

_PACKAGE = re.compile(r"(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*")
_SEGMENT = re.compile(r"[A-Za-z0-9_@+-][A-Za-z0-9._@+-]*")
_HASH = re.compile(r"[0-9a-f]{64}")
_MIME = re.compile(r"[a-z]+/[a-z0-9.+-]+")


class CatalogueError(ValueError):
    """The manifest cannot be used; the message says what is wrong with it."""


@dataclass(frozen=True)
class FileEntry:
    """One served file: its place in the package, hash, MIME type and size."""

    name: str
    sha256: str
    mime: str
    size: int


@dataclass(frozen=True)
class LibraryVersion:
    """One bundled version of a package and the files served from it."""

    version: Version
    text: str
    integrity: str
    licence_file: str
    licence_sha256: str
    default: str
    files: Mapping[str, FileEntry]
    aliases: Mapping[str, str]

    def lookup(self, name: str) -> FileEntry | None:
        """The file served for ``name`` (a file of the package, or an alias)."""
        if not name:
            return self.files[self.default]
        found = self.files.get(name)
        if found is None and name in self.aliases:
            found = self.files[self.aliases[name]]
        return found


@dataclass(frozen=True)
class Route:
    """One CDN URL pattern of a library, as the manifest writes it."""

    pattern: str
    compiled: Pattern
    prefixes: tuple[str, ...] = ("",)
    file: str = ""  # the URL always means this file
    stand_in: str = ""  # what the URL names, served by this library instead


@dataclass(frozen=True)
class Library:
    """A bundled library: its display name, npm package, licence and versions."""

    name: str
    package: str
    licence: str
    versioning: str
    routes: tuple[Route, ...]
    versions: tuple[LibraryVersion, ...]


@dataclass(frozen=True)
class Catalogue:
    """Every bundled library, and the folder their files are in."""

    root: Path
    libraries: tuple[Library, ...]

    def path_of(self, library: Library, version: LibraryVersion, name: str) -> Path:
        """Where the bundled file is on disk; always inside ``root``."""
        path = self.root.joinpath(library.package, version.text, *name.split("/"))
        if not is_within(os.path.normpath(path), os.path.normpath(self.root)):
            raise CatalogueError(f"{name!r} is not inside the libraries folder")
        return path


def _relative(value: object, what: str) -> str:
    """A plain relative path of safe segments, or an error naming ``what``."""
    if not isinstance(value, str) or not value:
        raise CatalogueError(f"{what} is not a file name: {value!r}")
    for segment in value.split("/"):
        if not _SEGMENT.fullmatch(segment) or segment in (".", ".."):
            raise CatalogueError(f"{what} is not a plain relative path: {value!r}")
    return value


def _text(data: Mapping[str, Any], key: str, what: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise CatalogueError(f"{what} has no text {key!r}")
    return value


def _files(data: object, what: str) -> dict[str, FileEntry]:
    if not isinstance(data, dict) or not data:
        raise CatalogueError(f"{what} lists no files")
    files = {}
    for name, entry in data.items():
        _relative(name, f"a file of {what}")
        if not isinstance(entry, dict):
            raise CatalogueError(f"{what}: {name} is not described")
        sha256, mime, size = entry.get("sha256"), entry.get("mime"), entry.get("size")
        if not (isinstance(sha256, str) and _HASH.fullmatch(sha256)):
            raise CatalogueError(f"{what}: {name} has no SHA-256")
        if not (isinstance(mime, str) and _MIME.fullmatch(mime)):
            raise CatalogueError(f"{what}: {name} has no MIME type")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise CatalogueError(f"{what}: {name} has no size")
        files[name] = FileEntry(name, sha256, mime, size)
    return files


def _version(data: object, package: str) -> LibraryVersion:
    if not isinstance(data, dict):
        raise CatalogueError(f"a version of {package} is not described")
    text = _text(data, "version", package)
    parsed = parse_version(text)
    if parsed is None:
        raise CatalogueError(f"{package} has a version that is not x.y.z: {text!r}")
    what = f"{package} {text}"
    files = _files(data.get("files"), what)
    aliases = data.get("aliases", {})
    if not isinstance(aliases, dict):
        raise CatalogueError(f"{what}: the aliases are not a mapping")
    for asked, served in aliases.items():
        _relative(asked, f"an alias of {what}")
        if served not in files:
            raise CatalogueError(f"{what}: the alias {asked} names no file")
    default = _text(data, "default", what)
    if default not in files:
        raise CatalogueError(f"{what}: the default file {default!r} is not listed")
    licence_sha256 = _text(data, "licence_sha256", what)
    if not _HASH.fullmatch(licence_sha256):
        raise CatalogueError(f"{what}: the licence file has no SHA-256")
    licence_file = _relative(data.get("licence_file"), f"the licence file of {what}")
    if not licence_file.startswith(f"{package}/{text}/"):
        raise CatalogueError(f"{what}: the licence file is not beside its files")
    return LibraryVersion(
        version=parsed,
        text=text,
        integrity=_text(data, "integrity", what),
        licence_file=licence_file,
        licence_sha256=licence_sha256,
        default=default,
        files=files,
        aliases=dict(aliases),
    )


def _route(data: object, package: str) -> Route:
    if not isinstance(data, dict):
        raise CatalogueError(f"a URL of {package} is not described")
    prefixes = data.get("prefixes", [""])
    if not isinstance(prefixes, list) or not all(
        isinstance(p, str) and (not p or _relative(p.rstrip("/"), package))
        for p in prefixes
    ):
        raise CatalogueError(f"{package}: bad path prefixes {prefixes!r}")
    file = data.get("file", "")
    if file:
        _relative(file, f"a URL's file of {package}")
    stand_in = data.get("stand_in", "")
    if not isinstance(stand_in, str):
        raise CatalogueError(f"{package}: bad stand-in {stand_in!r}")
    pattern = _text(data, "pattern", package)
    try:
        compiled = compile_pattern(pattern)
    except ValueError as error:
        raise CatalogueError(f"{package}: {error}") from error
    return Route(pattern, compiled, tuple(prefixes), file, stand_in)


def _library(data: object) -> Library:
    if not isinstance(data, dict):
        raise CatalogueError("a library is not described")
    package = _text(data, "package", "a library")
    if not _PACKAGE.fullmatch(package):
        raise CatalogueError(f"not an npm package name: {package!r}")
    versioning = _text(data, "versioning", package)
    if versioning not in VERSIONINGS:
        raise CatalogueError(f"{package}: unknown versioning {versioning!r}")
    versions = data.get("versions")
    routes = data.get("urls")
    if not isinstance(versions, list) or not versions:
        raise CatalogueError(f"{package} has no versions")
    if not isinstance(routes, list) or not routes:
        raise CatalogueError(f"{package} has no URLs")
    return Library(
        name=_text(data, "name", package),
        package=package,
        licence=_text(data, "licence", package),
        versioning=versioning,
        routes=tuple(_route(route, package) for route in routes),
        versions=tuple(_version(version, package) for version in versions),
    )


def parse_catalogue(data: object, root: Path) -> Catalogue:
    """The catalogue a parsed manifest describes, or ``CatalogueError``."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CatalogueError(f"the manifest is not of format {FORMAT}")
    libraries = data.get("libraries")
    if not isinstance(libraries, list) or not libraries:
        raise CatalogueError("the manifest lists no libraries")
    parsed = tuple(_library(library) for library in libraries)
    packages = [library.package for library in parsed]
    if len(set(packages)) != len(packages):
        raise CatalogueError("the manifest lists a package twice")
    return Catalogue(root, parsed)


def load_catalogue(root: Path) -> Catalogue:
    """Read ``root/manifest.json``; ``CatalogueError`` says why it cannot be used."""
    try:
        data = json.loads((root / MANIFEST_NAME).read_bytes())
    except (OSError, ValueError, RecursionError) as error:
        raise CatalogueError(
            f"the manifest of the bundled libraries: {error}"
        ) from error
    return parse_catalogue(data, root)


def packed_twin(path: Path) -> Path:
    """Where the package build keeps ``path`` compressed."""
    return path.with_name(path.name + PACKED_SUFFIX)


def _stored(path: Path) -> Path:
    """The file on disk that holds ``path``'s bytes: itself, or its packed twin."""
    twin = packed_twin(path)
    return twin if not os.path.lexists(path) and os.path.lexists(twin) else path


def _blocks(path: Path, limit: int) -> Iterator[bytes]:
    """The bytes ``path`` serves, in blocks, stopping once ``limit`` are given.

    A packed twin is decompressed as it is read, never past ``limit``, so a
    damaged or hostile one cannot make the reader hold more than asked for.
    """
    stored = _stored(path)
    with stored.open("rb") as file:
        if stored == path:
            while limit > 0 and (block := file.read(min(_BLOCK, limit))):
                limit -= len(block)
                yield block
            return
        unpacker = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        try:
            while limit > 0 and not unpacker.eof:
                if unpacker.needs_input:
                    packed = file.read(_BLOCK)
                    if not packed:
                        raise OSError(f"{stored.name} ends before its data does")
                else:
                    packed = b""
                block = unpacker.decompress(packed, max_length=min(_BLOCK, limit))
                limit -= len(block)
                yield block
        except lzma.LZMAError as error:
            raise OSError(f"{stored.name} is damaged: {error}") from None


def read_library_file(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes that the bundled file at ``path`` serves.

    ``OSError`` when neither the file nor its packed twin can be read.
    """
    return b"".join(_blocks(path, limit))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    for block in _blocks(path, 1 << 40):
        digest.update(block)
    return digest.hexdigest()


def _check(path: Path, sha256: str, problems: list[str]) -> None:
    stored = _stored(path)
    if stored.is_symlink() or not stored.is_file():
        problems.append(f"missing or not a regular file: {path}")
        return
    try:
        digest = _sha256(path)
    except OSError as error:
        problems.append(f"cannot be read ({error}): {stored}")
        return
    if digest != sha256:
        problems.append(f"SHA-256 differs from the manifest: {stored}")


def verify_catalogue(catalogue: Catalogue) -> list[str]:
    """What is wrong with the files on disk against the manifest (empty: nothing).

    Every listed file and licence must be there with its recorded hash, and
    nothing unlisted may be in the folder, so what ships is what was recorded.
    """
    problems: list[str] = []
    expected = {(catalogue.root / MANIFEST_NAME).resolve()}
    for library in catalogue.libraries:
        for version in library.versions:
            for entry in version.files.values():
                path = catalogue.path_of(library, version, entry.name)
                expected.add(_stored(path).resolve())
                _check(path, entry.sha256, problems)
            licence = catalogue.root.joinpath(*version.licence_file.split("/"))
            expected.add(licence.resolve())
            _check(licence, version.licence_sha256, problems)
    for path in sorted(catalogue.root.rglob("*")):
        if not path.is_dir() and path.resolve() not in expected:
            problems.append(f"not in the manifest: {path}")
    return problems
