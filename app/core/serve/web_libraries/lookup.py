"""Which bundled file answers a CDN URL, and how to say what a page loads.

``resolve(url)`` answers a URL a page asks for with a ``BundledFile`` (its
path, MIME type, SHA-256, library, version, and how the version matches) or
a ``NotBundled`` with the reason. ``describe`` turns either into the phrase a
person reads: "Chart.js 4.6.1 from cdn.jsdelivr.net".
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from app.core.serve.web_libraries.catalogue import (
    Catalogue,
    CatalogueError,
    Library,
    LibraryVersion,
    Route,
    load_catalogue,
)
from app.core.serve.web_libraries.routes import CleanUrl, clean_url, fit
from app.core.serve.web_libraries.versions import (
    Version,
    VersionMatch,
    choose,
    parse_spec,
)
from app.resources import resources_folder

# Hosts that build ES modules on request: what they serve is their own build,
# not a file of the package, so the app has no copy of it.
_MODULE_BUILDERS = ("esm.sh", "esm.run", "cdn.skypack.dev", "jspm.dev", "ga.jspm.io")


@dataclass(frozen=True)
class BundledFile:
    """A bundled file that answers a URL, and how well it answers it."""

    path: Path
    name: str  # the file's place in its npm package, e.g. "dist/chart.umd.min.js"
    mime: str
    sha256: str
    size: int
    library: str  # its display name, e.g. "Chart.js"
    package: str  # its npm package, e.g. "chart.js"
    version: str  # the version served, e.g. "4.6.1"
    requested: str  # the version the URL wrote ("" when it wrote none)
    match: VersionMatch
    host: str  # the URL's host, "" for a file asked for by package
    stand_in: str = ""  # what the URL named, when this library stands in for it

    @property
    def exact(self) -> bool:
        """Whether the URL named exactly the version served."""
        return self.match is VersionMatch.EXACT


@dataclass(frozen=True)
class NotBundled:
    """A URL the app has no file for, and the reason, to show as plain text."""

    reason: str
    library: str = ""  # the library's name when the URL names a bundled one


def libraries_folder() -> Path:
    """The folder of the bundled libraries and their manifest."""
    return resources_folder() / "web" / "libraries"


@functools.cache
def bundled_catalogue() -> Catalogue:
    """The app's own catalogue, read once; ``CatalogueError`` if it is broken."""
    return load_catalogue(libraries_folder())


def _answer(
    catalogue: Catalogue,
    library: Library,
    version: LibraryVersion,
    name: str,
    **how: object,
) -> BundledFile:
    entry = version.lookup(name)
    assert entry is not None
    return BundledFile(
        path=catalogue.path_of(library, version, entry.name),
        name=entry.name,
        mime=entry.mime,
        sha256=entry.sha256,
        size=entry.size,
        library=library.name,
        package=library.package,
        version=version.text,
        **how,  # type: ignore[arg-type]
    )


def _names(route: Route, path: str) -> list[str]:
    """The package files a route's path may mean, in the order to try them."""
    if route.file:
        return [route.file]
    if not path:
        return [""]  # the package's default file
    return [prefix + path for prefix in route.prefixes]


def _held(version: LibraryVersion, names: list[str]) -> str | None:
    return next((name for name in names if version.lookup(name) is not None), None)


def _by_route(
    catalogue: Catalogue, library: Library, route: Route, url: CleanUrl
) -> BundledFile | NotBundled | None:
    found = fit(route.compiled, url)
    if found is None:
        return None
    newest = max(library.versions, key=lambda v: v.version)
    if route.stand_in:
        return _answer(
            catalogue,
            library,
            newest,
            route.file,
            requested=found.version,
            match=VersionMatch.STAND_IN,
            host=url.host,
            stand_in=route.stand_in,
        )
    spec = parse_spec(found.version)
    if spec is None:
        return NotBundled(
            f"{library.name} has no version {found.version!r}", library.name
        )
    if found.path == "+esm" or found.path.endswith("/+esm"):
        return NotBundled(
            f"the CDN's own ES module build of {library.name} is not bundled",
            library.name,
        )
    names = _names(route, found.path)
    holders: dict[Version, tuple[LibraryVersion, str]] = {}
    for version in library.versions:
        name = _held(version, names)
        if name is not None:
            holders[version.version] = (version, name)
    choice = choose(spec, holders, library.versioning)
    if choice is None:
        shipped = ", ".join(v.text for v in library.versions)
        wanted = f"{library.name} {found.version}".rstrip()
        if choose(spec, (v.version for v in library.versions), library.versioning):
            return NotBundled(
                f"{wanted} has no bundled file {found.path}", library.name
            )
        return NotBundled(
            f"{wanted} is not bundled (the app has {library.name} {shipped})",
            library.name,
        )
    version, name = holders[choice.version]
    return _answer(
        catalogue,
        library,
        version,
        name,
        requested=found.version,
        match=choice.match,
        host=url.host,
    )


def resolve(url: str, catalogue: Catalogue | None = None) -> BundledFile | NotBundled:
    """The bundled file that answers ``url``, or why there is none.

    Never raises for any URL; a broken manifest is a ``NotBundled`` too.
    """
    clean = clean_url(url)
    if isinstance(clean, str):
        return NotBundled(clean)
    if catalogue is None:
        try:
            catalogue = bundled_catalogue()
        except CatalogueError as error:
            return NotBundled(f"the app's bundled libraries cannot be read: {error}")
    if clean.host in _MODULE_BUILDERS:
        return NotBundled(
            f"{clean.host} builds ES modules of its own; the app bundles the"
            " libraries' own files, not these"
        )
    for library in catalogue.libraries:
        for route in library.routes:
            answer = _by_route(catalogue, library, route, clean)
            if answer is not None:
                return answer
    return NotBundled(f"the app has no bundled library at {clean.host}")


def bundled(
    package: str, name: str = "", catalogue: Catalogue | None = None
) -> BundledFile:
    """The newest bundled version's file ``name`` of ``package`` (its default if "").

    For the app's own pages (Mermaid and KaTeX in Markdown previews). Raises
    ``CatalogueError`` if the catalogue is broken or lacks the file.
    """
    catalogue = catalogue if catalogue is not None else bundled_catalogue()
    for library in catalogue.libraries:
        if library.package != package:
            continue
        newest = max(library.versions, key=lambda v: v.version)
        if newest.lookup(name) is None:
            break
        return _answer(
            catalogue,
            library,
            newest,
            name,
            requested="",
            match=VersionMatch.RANGE,
            host="",
        )
    raise CatalogueError(f"no bundled file {name or '(default)'} of {package}")


def describe(result: BundledFile | NotBundled) -> str:
    """What a page loads, in words: "Chart.js 4.6.1 from cdn.jsdelivr.net"."""
    if isinstance(result, NotBundled):
        return result.reason
    served = f"{result.library} {result.version}"
    where = f" from {result.host}" if result.host else " (bundled with the app)"
    if result.match is VersionMatch.STAND_IN:
        return f"{served} in place of {result.stand_in}{where}"
    if result.match is VersionMatch.NEAREST:
        return f"{served}{where}, in place of {result.requested}"
    return f"{served}{where}"
