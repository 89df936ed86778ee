"""Serve the CDN libraries a page loads from the app's own pinned copies.

A page that asks a CDN for Chart.js, KaTeX or three.js gets the app's copy
(``app.core.serve.web_libraries``), read and checked against its recorded hash,
bound into its bundle like a file of its own, and the page's reference is
pointed at it: the preview stays offline and its policy still allows only
'self'. Anything else on the web is listed as left out, with the reason.

Each copy is served at a key that mirrors the URL the page asked for
(``_libraries/cdn.jsdelivr.net/npm/katex@0.16.9/dist/katex.min.css``), so the
relative URLs inside it (KaTeX's fonts, ``three.module.js`` importing
``./three.core.js``) land on other keys; those are looked up the same way and
bound too, silently when absent (a stylesheet names fonts in several formats
and the browser takes the first it gets). Module scripts are tied in through
the page's import map, its CDN URLs pointed at the copies, or through a map
of the app's placed before the first module script.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urljoin

from app.core.serve.html_scan import (
    PageScan,
    Reference,
    ScriptText,
    StartTag,
    css_references,
)
from app.core.serve.manifest import (
    MAX_LIBRARY_FILES,
    LeftOut,
    LibraryCopy,
    Resource,
    is_canonical_key,
)
from app.core.serve.web_libraries import (
    BundledFile,
    NotBundled,
    VersionMatch,
    read_library_file,
    resolve,
)
from app.core.serve.web_libraries.routes import clean_url

LIBRARIES_FOLDER = "_libraries"
"""The first segment of every key a library copy is served at."""

OFFLINE = "previews are offline"
_C0_AND_SPACE = "".join(chr(code) for code in range(0x21))
# Characters a browser leaves as they are in a path: the key's URL is spelled
# the way the browser spells the URLs it resolves against it.
_PATH_SAFE = "/@+!$&'()*,;=:"
_SPECIFIER = re.compile(
    r"""\b(?:import|export)\s*(?:[\w$*{}\s,]+?\s*from\s*)?(["'])([^"'\n]{1,2000})\1"""
    r"""|\bimport\s*\(\s*(["'])([^"'\n]{1,2000})\3\s*\)"""
)

Resolver = Callable[[str], BundledFile | NotBundled]


class LibraryRefusedError(Exception):
    """A web reference the app has no copy for; ``detail`` says why in words."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` of the page with ``replacement``."""

    start: int
    end: int
    replacement: str


def web_url(raw: str) -> str | None:
    """The absolute http(s) URL a reference names; ``//host/…`` is read as https."""
    url = raw.strip(_C0_AND_SPACE)
    url = url.replace("\t", "").replace("\n", "").replace("\r", "")
    if url.startswith("//"):
        return "https:" + url
    scheme, colon, _rest = url.partition(":")
    return url if colon and scheme.lower() in ("http", "https") else None


def mirror_key(url: str) -> str | None:
    """The key the file a web URL names is served at, or ``None`` if it has none.

    Host and decoded path, below ``_libraries/``; the host's root is ``index``.
    """
    clean = clean_url(url)
    if isinstance(clean, str):
        return None
    path = clean.path if clean.path != "/" else "/index"
    key = f"{LIBRARIES_FOLDER}/{clean.host}{path}"
    return key if is_canonical_key(key) else None


def key_url(key: str, page_key: str) -> str:
    """The URL of ``key`` written relative to the page at ``page_key``."""
    return ("../" * page_key.count("/") or "./") + quote(key, safe=_PATH_SAFE)


def module_specifiers(code: str) -> list[str]:
    """The specifiers a module's ``import``/``export … from``/``import()`` name.

    A pattern, not a parser: what it misses is not bound, and what it finds in
    a comment or a string is only looked up.
    """
    found = (first or second for _q, first, _p, second in _SPECIFIER.findall(code))
    return list(dict.fromkeys(found))


def map_specifier(specifier: str, imports: Mapping[str, str]) -> str | None:
    """What an import map's ``imports`` turn a bare specifier into, if anything."""
    if specifier in imports:
        return imports[specifier]
    prefixes = [key for key in imports if key.endswith("/")]
    best = max(
        (key for key in prefixes if specifier.startswith(key)), key=len, default=None
    )
    return imports[best] + specifier[len(best) :] if best is not None else None


def read_copy(file: BundledFile) -> bytes:
    """The bytes of a bundled file, checked against its recorded size and hash."""
    try:
        data = read_library_file(file.path, file.size + 1)
    except OSError as error:
        raise LibraryRefusedError(
            "library", f"the app's copy of {file.library} cannot be read: {error}"
        ) from None
    if len(data) != file.size or hashlib.sha256(data).hexdigest() != file.sha256:
        raise LibraryRefusedError(
            "library",
            f"the app's copy of {file.library} {file.version} is not the one it"
            " shipped with",
        )
    return data


def _copy_of(reference: str, file: BundledFile) -> LibraryCopy:
    in_place_of = ""
    if file.match is VersionMatch.NEAREST:
        in_place_of = file.requested
    elif file.match is VersionMatch.STAND_IN:
        in_place_of = file.stand_in
    return LibraryCopy(reference, file.library, file.version, file.host, in_place_of)


def _offline(found: NotBundled) -> str:
    return f"{OFFLINE}; {found.reason}"


@dataclass
class LibraryBinder:
    """Binds the copies that answer web URLs, with what they load in turn.

    ``taken`` holds the keys the page's own files have; ``budget`` the bytes
    the bundle has left; ``imports`` the page's import map, for the bare
    specifiers of the modules bound.
    """

    taken: Collection[str]
    budget: int
    imports: Mapping[str, str] = field(default_factory=dict)
    lookup: Resolver | None = None  # resolve() when None
    resources: dict[str, Resource] = field(default_factory=dict)
    # One copy per library, version and host, named by the first reference.
    copies: dict[tuple[str, str, str, str], LibraryCopy] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)  # web URL -> key
    # Web URLs modules import by their full URL, which only a map can redirect.
    imported_urls: dict[str, str] = field(default_factory=dict)
    _refused: dict[str, LibraryRefusedError] = field(default_factory=dict)
    _scanned: set[str] = field(default_factory=set)

    def add(self, url: str, *, module: bool = False, reference: str = "") -> str:
        """The key of the copy answering ``url``; ``LibraryRefusedError`` if none."""
        key = mirror_key(url)
        if key is None:
            raise LibraryRefusedError("remote", OFFLINE)
        if key not in self.resources:
            if key in self._refused:
                raise self._refused[key]
            try:
                self._bind(url, key, reference or url)
            except LibraryRefusedError as refused:
                self._refused[key] = refused
                raise
        self.urls.setdefault(url, key)
        if module and key not in self._scanned:
            self._scanned.add(key)
            self._follow_imports(url, key)
        return key

    def _bind(self, url: str, key: str, reference: str) -> None:
        found = (self.lookup or resolve)(url)
        if isinstance(found, NotBundled):
            raise LibraryRefusedError("remote", _offline(found))
        if key in self.taken:
            raise LibraryRefusedError(
                "taken", f"the page has a file of its own at {key}"
            )
        if len(self.resources) >= MAX_LIBRARY_FILES:
            raise LibraryRefusedError(
                "too_many", f"more than {MAX_LIBRARY_FILES} library files"
            )
        if found.size > self.budget:
            raise LibraryRefusedError(
                "bundle_full", f"{found.library} does not fit in the preview"
            )
        data = read_copy(found)
        self.budget -= len(data)
        # read_copy checked the bytes against this very hash.
        self.resources[key] = Resource(key, found.mime, data, found.sha256, True)
        copy = _copy_of(reference, found)
        self.copies.setdefault(
            (copy.library, copy.version, copy.host, copy.in_place_of), copy
        )
        if found.mime == "text/css":
            css = data.decode("utf-8", "replace")
            for inner, _what in css_references(css):
                self._quietly(urljoin(url, inner), module=False)

    def _follow_imports(self, url: str, key: str) -> None:
        code = self.resources[key].data.decode("utf-8", "replace")
        for specifier in module_specifiers(code):
            if specifier.startswith(("./", "../")):
                # Resolved by the browser against the copy's own key, which
                # mirrors its URL: no map entry is needed.
                self._quietly(urljoin(url, specifier), module=True)
                continue
            if specifier.startswith("/") and not specifier.startswith("//"):
                target: str | None = urljoin(url, specifier)
            elif web_url(specifier) is not None:
                target = web_url(specifier)
            else:
                mapped = map_specifier(specifier, self.imports)
                target = web_url(mapped) if mapped is not None else None
                if target is not None:
                    self._quietly(target, module=True)  # the map points at it
                continue
            # A root path or a full URL leaves the capability prefix: only an
            # import map entry for exactly this specifier brings it back.
            if target is not None and self._quietly(target, module=True):
                self.imported_urls.setdefault(specifier, self.urls[target])

    def _quietly(self, url: str, *, module: bool) -> bool:
        """Bind ``url`` if the app has it; nothing is listed either way."""
        try:
            self.add(url, module=module)
        except LibraryRefusedError:
            return False
        return True


@dataclass(frozen=True)
class LibraryBinding:
    """What binding a page's web references gave: files, edits, left-outs."""

    resources: tuple[Resource, ...]
    copies: tuple[LibraryCopy, ...]
    left_out: tuple[LeftOut, ...]
    edits: tuple[Edit, ...]


class _Lines:
    """Offsets in the text from the parser's (line, column) positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = [0, *(found.end() for found in re.finditer("\n", text))]

    def offset(self, line: int, column: int) -> int:
        """The offset, or -1 if the text has no such line (then nothing is
        edited there)."""
        if not 1 <= line <= len(self._starts):
            return -1
        return self._starts[line - 1] + column

    def tag_span(self, tag: StartTag) -> tuple[int, int] | None:
        start = self.offset(tag.line, tag.column)
        end = start + len(tag.text)
        found = start >= 0 and self.text[start:end] == tag.text
        return (start, end) if found else None


def rewritten_tag(tag: StartTag, attribute: str, value: str) -> str:
    """``tag`` with ``attribute`` set to ``value`` and no ``integrity``.

    The integrity hash names the CDN's bytes; the copy served was checked
    against the app's own record instead, and may be a nearby version.
    """
    parts = [tag.name]
    replaced = False
    for name, old in tag.attributes:
        if name == "integrity":
            continue
        if name == attribute and not replaced:
            old, replaced = value, True
        parts.append(name if old is None else f'{name}="{html.escape(old)}"')
    close = " />" if tag.text.rstrip().endswith("/>") else ">"
    return "<" + " ".join(parts) + close


def _json_for_script(value: object) -> str:
    # No "</script" can end the map early: "<" is always escaped.
    return json.dumps(value, indent=2).replace("<", "\\u003c")


def _parse_map(text: str) -> dict[str, object] | None:
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("imports", {}), dict):
        return None
    parsed.setdefault("imports", {})  # a map of scopes alone has none
    return parsed


class _PageLibraries:
    """Binds one page's web references and works out the edits to its text."""

    def __init__(
        self, scan: PageScan, text: str, page_key: str, binder: LibraryBinder
    ) -> None:
        self.scan = scan
        self.lines = _Lines(text)
        self.page_key = page_key
        self.binder = binder
        self.left_out: list[LeftOut] = []
        self.edits: list[Edit] = []

    def leave_out(
        self, reference: str, refused: LibraryRefusedError, what: str
    ) -> None:
        self.left_out.append(LeftOut(reference, refused.reason, refused.detail, what))

    def reference(self, found: Reference) -> None:
        url = web_url(found.url)
        span = self.lines.tag_span(found.tag) if found.tag is not None else None
        if url is None or span is None or found.tag is None:
            self.left_out.append(LeftOut(found.url, "remote", OFFLINE, found.what))
            return
        try:
            key = self.binder.add(url, module=found.module, reference=found.url)
        except LibraryRefusedError as refused:
            self.leave_out(found.url, refused, found.what)
            return
        value = key_url(key, self.page_key)
        self.edits.append(Edit(*span, rewritten_tag(found.tag, found.attribute, value)))

    def module_script(self, script: ScriptText) -> None:
        for specifier in module_specifiers(script.text):
            url = web_url(specifier)
            if url is None and not specifier.startswith(("./", "../", "/")):
                mapped = map_specifier(specifier, self.binder.imports)
                if mapped is not None and web_url(mapped) is not None:
                    self.mapped(specifier, mapped)
                continue
            if url is None:
                continue  # the page's own module files are never bound
            try:
                key = self.binder.add(url, module=True, reference=specifier)
            except LibraryRefusedError as refused:
                self.leave_out(specifier, refused, "module")
                continue
            self.binder.imported_urls.setdefault(specifier, key)

    def mapped(self, specifier: str, target: str) -> None:
        url = web_url(target) or ""
        try:
            self.binder.add(url, module=True, reference=target)
        except LibraryRefusedError as refused:
            self.leave_out(target, refused, "module")

    def import_map_edits(
        self, maps: list[tuple[ScriptText, dict[str, object]]]
    ) -> None:
        added = dict(self.binder.imported_urls)
        for index, (script, parsed) in enumerate(maps):
            imports = parsed.get("imports")
            assert isinstance(imports, dict)
            changed = self._point_at_copies(imports)
            if index == 0:
                for url, key in added.items():
                    if url not in imports:
                        imports[url] = key_url(key, self.page_key)
                        changed = True
            if changed:
                self._replace_text(script, _json_for_script(parsed))
        if not maps and added and self.scan.first_module_tag is not None:
            imports = {url: key_url(key, self.page_key) for url, key in added.items()}
            block = (
                '<script type="importmap">'
                + _json_for_script({"imports": imports})
                + "</script>\n"
            )
            span = self.lines.tag_span(self.scan.first_module_tag)
            if span is not None:
                self.edits.append(Edit(span[0], span[0], block))

    def _point_at_copies(self, imports: dict[str, object]) -> bool:
        changed = False
        for name, target in list(imports.items()):
            url = web_url(target) if isinstance(target, str) else None
            if url is None:
                continue
            if url.endswith("/"):
                # A folder: pointed at the copies' folder if anything in it
                # was bound (each file has its own key there).
                if any(bound.startswith(url) for bound in self.binder.urls):
                    folder = mirror_key(url + "x")
                    if folder is not None:
                        imports[name] = key_url(folder[:-1], self.page_key)
                        changed = True
            elif url in self.binder.urls:
                imports[name] = key_url(self.binder.urls[url], self.page_key)
                changed = True
        return changed

    def _replace_text(self, script: ScriptText, replacement: str) -> None:
        tag = self.lines.tag_span(script.tag)
        if tag is None:
            return
        end = self.lines.offset(script.end_line, script.end_column)
        if end >= tag[1] and self.lines.text[tag[1] : end] == script.text:
            self.edits.append(Edit(tag[1], end, replacement))


def bind_libraries(
    scan: PageScan,
    text: str,
    page_key: str,
    taken: Collection[str],
    budget: int,
    lookup: Resolver | None = None,
) -> LibraryBinding:
    """Bind the app's copies of the libraries a scanned page loads from the web.

    ``text`` is the page as scanned, ``page_key`` its key; the page's own files
    hold the keys in ``taken`` and leave ``budget`` bytes.
    """
    maps = [
        (script, parsed)
        for script in scan.import_maps
        if (parsed := _parse_map(script.text)) is not None
    ]
    imports: dict[str, str] = {}
    for _script, parsed in maps:
        entries = parsed.get("imports")
        assert isinstance(entries, dict)
        for name, target in entries.items():
            if isinstance(target, str):
                imports.setdefault(name, target)
    binder = LibraryBinder(taken, budget, imports, lookup)
    page = _PageLibraries(scan, text, page_key, binder)
    for found in scan.references:
        if web_url(found.url) is not None:
            page.reference(found)
    for name, target in imports.items():
        if web_url(target) is not None and not target.endswith("/"):
            page.mapped(name, target)
    for script in scan.module_scripts:
        page.module_script(script)
    page.import_map_edits(maps)
    return LibraryBinding(
        tuple(binder.resources.values()),
        tuple(binder.copies.values()),
        tuple(page.left_out),
        tuple(page.edits),
    )


def apply_edits(text: str, edits: Collection[Edit]) -> str:
    """``text`` with each edit made; edits never overlap (one per tag or map)."""
    parts: list[str] = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.start < position:
            continue
        parts.append(text[position : edit.start])
        parts.append(edit.replacement)
        position = edit.end
    parts.append(text[position:])
    return "".join(parts)
