"""Bind an HTML file's direct local dependencies into a frozen snapshot to serve.

The page is read for what it loads by ``app.core.serve.html_scan``. A key is exactly
the path the page will request below the capability prefix: the reference
resolver here follows the browser's own rules.

Keys are relative to the *bundle root*: the workspace root for a workspace
file, the file's own folder for an external one. A page at
``report/index.html`` is served as ``report/index.html`` so that its
``../assets/logo.png`` still resolves inside the capability prefix.

Libraries the page loads from a CDN are served from the app's own copies
(``app.core.serve.html_libraries``), with the page's references pointed at them; the
page's own bytes are kept for "Source". Not bound, and listed in
``Bundle.left_out`` with a reason: anything else on the web, the page's own
module scripts, frames, objects, embeds, ``<base>``, non-file schemes, root
paths, and everything CSS refers to (``@import`` and ``url()`` in bound
stylesheets, ``<style>`` blocks and ``style`` attributes are reported, never
bound). ``data:`` URLs in image positions are not files; the page shows them.
"""

from __future__ import annotations

import codecs
import html
import os
import posixpath
import re
from collections.abc import Callable
from urllib.parse import quote, unquote

from app.core.filetype import find_bom
from app.core.serve.html_libraries import apply_edits, bind_libraries, web_url
from app.core.serve.html_scan import PageScan, Reference, css_urls
from app.core.serve.manifest import (
    MAX_BUNDLE_BYTES,
    MAX_DEPENDENCIES,
    MAX_DEPENDENCY_BYTES,
    Bundle,
    LeftOut,
    Resource,
    content_type_for,
    is_canonical_key,
)
from app.core.trust.paths import is_within
from app.core.trust.policy import Policy, filesystem_is_case_insensitive
from app.core.trust.safeio import SafeOpenError, VerifiedFile, open_verified

# Enough for an info bar; past this the list ends with one summary entry.
MAX_LISTED = 200
_REWRITE_ROOM = 64 << 10


class BindError(ValueError):
    """The document itself cannot be previewed; the message says why."""


class BindCancelledError(BindError):
    """Binding stopped because nobody waits for it any more."""


_C0_AND_SPACE = "".join(chr(code) for code in range(0x21))
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_META_CHARSET = re.compile(
    rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:\-]+)", re.I
)
_OPEN_DETAILS = {
    "missing": "no such file",
    "symlink": "the file is a symbolic link",
    "directory": "it is a folder, not a file",
    "not_regular": "it is not a regular file",
    "unreadable": "it cannot be read",
}


class Skip(Exception):  # noqa: N818 - a control-flow signal, not an error
    """A reference that is not bound: a short reason word and the user's sentence."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


# The codecs that read the character sets of the Encoding standard. A label
# naming any other codec ("hex", "base64", "rot13", "idna", "utf-7") is
# unknown, as it is to a browser, and the page is read as if it named none.
_WEB_CODECS = frozenset(
    codecs.lookup(name).name
    for name in [
        "utf-8",
        "cp866",
        *(f"iso8859-{n}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)),
        "ascii",
        "koi8-r",
        "koi8-u",
        "mac-roman",
        "cp874",
        *(f"cp{n}" for n in range(1250, 1259)),
        "mac-cyrillic",
        "gb2312",
        "gbk",
        "gb18030",
        "big5",
        "euc-jp",
        "iso2022-jp",
        "shift-jis",
        "euc-kr",
    ]
)


def _declared_charset(data: bytes) -> str:
    """The label of the page's ``<meta charset>`` ("" if none), lower case."""
    declared = _META_CHARSET.search(data[:1024])
    return declared.group(1).decode("ascii").lower() if declared else ""


def _web_charset(label: str) -> str:
    """``label`` if it names a character set of the web ("" otherwise).

    UTF-16 labels count as none: the standard reads such a page as UTF-8.
    """
    if not label or label.startswith("utf-16"):
        return ""
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return ""
    return label if name in _WEB_CODECS else ""


def unknown_charset(data: bytes) -> str:
    """The page's declared charset label if no browser knows it ("" otherwise)."""
    if find_bom(data[:3]) is not None:
        return ""
    label = _declared_charset(data)
    if label and not label.startswith("utf-16") and not _web_charset(label):
        return label
    return ""


def decode_html(data: bytes) -> tuple[str, str]:
    """Text and charset: a BOM, then ``<meta charset>``, then UTF-8, then cp1252.

    The charset goes into the served ``Content-Type`` so the browser reads the
    page exactly as it was parsed here.
    """
    # HTML knows the UTF-8 and UTF-16 marks only, and reads a UTF-32 LE mark as
    # UTF-16 LE: three bytes are too few to hold a UTF-32 mark.
    bom = find_bom(data[:3])
    if bom is not None:
        label = bom.codec.replace("-le", "le").replace("-be", "be")  # HTML's names
        return data[len(bom.mark) :].decode(bom.codec, "replace"), label
    label = _web_charset(_declared_charset(data))
    if label:
        return data.decode(label, "replace"), label
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace"), "windows-1252"


def resolve_reference(
    raw: str, base: tuple[str, ...], *, image: bool = False
) -> tuple[str, ...] | None:
    """The path segments ``raw`` names below the bundle root, resolved once.

    ``None`` when there is nothing to bind (empty, fragment-only, an image
    ``data:`` URL). Follows the browser: tabs and newlines are dropped, ``..``
    pops a folder, query and fragment are not part of the path; anything the
    server would not answer with the same key (encoded slashes, empty
    segments, a folder) is refused here with a reason.
    """
    url = raw.strip(_C0_AND_SPACE)
    url = url.replace("\t", "").replace("\n", "").replace("\r", "")
    if not url or url.startswith(("#", "?")):
        return None
    if "\\" in url:
        raise Skip("invalid", "backslashes in a path are refused")
    scheme = _SCHEME.match(url)
    if scheme:
        name = scheme.group()[:-1].lower()
        if name in ("http", "https"):
            raise Skip("remote", "remote URLs are not loaded")
        if name == "data" and image:
            return None
        raise Skip("scheme", f"{name}: URLs are not loaded")
    if url.startswith("//"):
        raise Skip("remote", "remote URLs are not loaded")
    if url.startswith("/"):
        raise Skip("absolute", "absolute paths are not bound, only relative ones")
    path = url.split("#", 1)[0].split("?", 1)[0]
    lowered = path.lower()
    if "%2f" in lowered or "%5c" in lowered or _BAD_ESCAPE.search(path):
        raise Skip("invalid", "encoded slashes and broken escapes are refused")
    try:
        decoded = unquote(path, errors="strict")
    except UnicodeDecodeError:
        raise Skip("invalid", "the path is not valid UTF-8") from None
    if any(ord(char) < 0x20 or char == "\x7f" for char in decoded):
        raise Skip("invalid", "control characters (NUL) in a path are refused")
    parts = list(base)
    segments = decoded.split("/")
    for segment in segments:
        if segment == "..":
            if not parts:
                raise Skip("outside", "it points outside the workspace")
            parts.pop()
        elif segment == "":
            raise Skip("invalid", "it names a folder or has an empty segment")
        elif segment != ".":
            parts.append(segment)
    if segments[-1] in (".", ".."):
        raise Skip("invalid", "it names a folder, not a file")
    return tuple(parts)


def _same_path(first: str, second: str) -> bool:
    if filesystem_is_case_insensitive():
        return first.casefold() == second.casefold()
    return first == second


def _snapshot(opened: VerifiedFile, limit: int, what: str) -> bytes:
    """Read the whole file through its descriptor, refusing a change mid-read."""
    identity = opened.identity
    if identity.size > limit:
        raise Skip("too_large", f"{what} is larger than {limit >> 20} MiB")
    parts: list[bytes] = []
    position = 0
    while position < identity.size:
        chunk = opened.read(identity.size - position, position)
        if not chunk:
            break
        parts.append(chunk)
        position += len(chunk)
    data = b"".join(parts)
    if len(data) != identity.size or opened.current_identity() != identity:
        raise Skip("changed", f"{what} changed while it was being read")
    return data


Fetch = Callable[[str, int], bytes]
"""Reads one dependency whole: ``fetch(path, budget)`` gets its absolute path
(policy, type and count already checked) and the bytes left in the bundle;
returns the bytes of one version or raises ``Skip`` (``SafeOpenError`` for a
file refused as it is opened). ``check_dependency_size`` gives the limits."""


def check_dependency_size(size: int, budget: int) -> None:
    """Raise ``Skip`` if a dependency of ``size`` bytes may not join the bundle."""
    if size > MAX_DEPENDENCY_BYTES:
        limit = MAX_DEPENDENCY_BYTES >> 20
        raise Skip("too_large", f"the file is larger than {limit} MiB")
    if size > budget:
        raise Skip(
            "bundle_full", f"the preview would exceed {MAX_BUNDLE_BYTES >> 20} MiB"
        )


def fetch_local(path: str, budget: int) -> bytes:
    """A dependency on the local disk, through a verified descriptor."""
    parent = os.path.dirname(path)
    if not _same_path(os.path.realpath(parent), parent):
        raise Skip("symlink", "a folder on its path is a symbolic link")
    opened = open_verified(path)
    with opened:
        real = opened.real_path
        if real is not None and not _same_path(real, path):
            raise Skip("symlink", "a folder on its path leads somewhere else")
        size = opened.identity.size
        if size <= MAX_DEPENDENCY_BYTES:
            check_dependency_size(size, budget)
        return _snapshot(opened, MAX_DEPENDENCY_BYTES, "the file")


class _Binder:
    """Snapshot references one by one, within the limits, remembering outcomes."""

    def __init__(
        self, root: str, policy: Policy, budget: int, fetch: Fetch = fetch_local
    ) -> None:
        self.fetch = fetch
        self.root = root
        self.policy = policy
        self.budget = budget
        self.resources: dict[str, Resource] = {}
        self.left_out: dict[tuple[str, str], LeftOut] = {}
        self.unlisted = 0
        self._failed: dict[str, Skip] = {}

    def leave_out(
        self, reference: str, reason: str, detail: str, what: str = ""
    ) -> None:
        if (reference, reason) in self.left_out:
            return
        if len(self.left_out) >= MAX_LISTED:
            self.unlisted += 1
            return
        self.left_out[(reference, reason)] = LeftOut(reference, reason, detail, what)

    def add(self, reference: Reference, base: tuple[str, ...]) -> None:
        try:
            parts = resolve_reference(reference.url, base, image=reference.image)
            if parts is None:
                return
            key = "/".join(parts)
            if key in self.resources:
                return  # duplicates bind once
            if key in self._failed:
                raise self._failed[key]
            try:
                self._bind(key)
            except SafeOpenError as error:
                detail = _OPEN_DETAILS.get(error.reason, str(error))
                skip = Skip(error.reason, detail)
                self._failed[key] = skip
                raise skip from error
            except Skip as skip:
                if skip.reason != "too_many":
                    self._failed[key] = skip
                raise
        except Skip as skip:
            self.leave_out(reference.url, skip.reason, skip.detail)

    def _bind(self, key: str) -> None:
        path = os.path.join(self.root, *key.split("/"))
        rule = self.policy.denying_rule(path)
        if rule is not None:
            raise Skip("denied", f"denied by read-deny rule {rule.describe()}")
        content_type = content_type_for(key)
        if content_type is None:
            suffix = posixpath.splitext(key)[1] or "without an extension"
            raise Skip("type", f"files of type {suffix} are not served")
        if len(self.resources) >= MAX_DEPENDENCIES:
            raise Skip("too_many", f"more than {MAX_DEPENDENCIES} dependencies")
        data = self.fetch(path, self.budget)
        self.budget -= len(data)
        self.resources[key] = Resource.of(key, content_type, data)

    def finish(self) -> list[LeftOut]:
        listed = list(self.left_out.values())
        if self.unlisted:
            listed.append(
                LeftOut(f"{self.unlisted} more", "not_listed", "not listed one by one")
            )
        return listed


def _locate(
    html_file: VerifiedFile, html_path: str, workspace_root: str
) -> tuple[str, tuple[str, ...]]:
    """The bundle root and the document's path segments below it."""
    if html_file.real_path is not None:
        real = html_file.real_path
    else:
        folder, name = os.path.split(os.path.abspath(html_path))
        real = os.path.join(os.path.realpath(folder), name)
    root = os.path.realpath(workspace_root) if workspace_root else ""
    if is_within(real, root, allow_root=False):
        return root, tuple(os.path.relpath(real, root).split(os.sep))
    folder, name = os.path.split(real)
    return folder, (name,)


def bind_html(
    html_file: VerifiedFile,
    html_path: str,
    workspace_root: str,
    policy: Policy,
    cancelled: Callable[[], bool] = lambda: False,
) -> Bundle:
    """Snapshot the document read through ``html_file`` and its direct dependencies.

    Dependencies must stay inside the workspace root (an external document:
    inside its own folder). What cannot be bound is listed with a reason.
    Raises ``BindError`` when the document itself cannot be served, and
    ``BindCancelledError`` soon after ``cancelled()`` turns true.
    """
    root, segments = _locate(html_file, html_path, workspace_root)
    _check_page(root, segments, policy)  # a denied page is never read
    try:
        document = _snapshot(html_file, MAX_BUNDLE_BYTES, "the page")
    except Skip as skip:
        raise BindError(skip.detail) from None
    return bind_document(document, root, segments, policy, fetch_local, cancelled)


def _check_page(root: str, segments: tuple[str, ...], policy: Policy) -> str:
    """The page's key in the bundle; ``BindError`` if it may not be served."""
    rule = policy.denying_rule(os.path.join(root, *segments))
    if rule is not None:
        raise BindError(f"the page is denied by read-deny rule {rule.describe()}")
    entry_key = "/".join(segments)
    if content_type_for(entry_key) != "text/html" or not is_canonical_key(entry_key):
        raise BindError("the page's file name does not end in .html or .htm")
    return entry_key


def bind_document(
    document: bytes,
    root: str,
    segments: tuple[str, ...],
    policy: Policy,
    fetch: Fetch,
    cancelled: Callable[[], bool] = lambda: False,
) -> Bundle:
    """Bind a page already read whole: ``segments`` place it below ``root``.

    Its dependencies are read with ``fetch`` (``fetch_local`` for the local
    disk; another host brings its own), within the same limits and policy.
    """
    if len(document) > MAX_BUNDLE_BYTES:
        raise BindError(f"the page is larger than {MAX_BUNDLE_BYTES >> 20} MiB")
    entry_key = _check_page(root, segments, policy)
    text, charset = decode_html(document)

    def checkpoint() -> None:
        if cancelled():
            raise BindCancelledError("the preview was closed")

    scan = PageScan()
    scan.scan(text, checkpoint)
    binder = _Binder(root, policy, MAX_BUNDLE_BYTES - len(document), fetch)
    unknown = unknown_charset(document)
    if unknown:
        detail = (
            f"the page names an unknown character set ({unknown}); read as {charset}"
        )
        binder.leave_out(f"<meta charset={unknown}>", "charset", detail)
    base = segments[:-1]
    for reference in scan.references:
        checkpoint()
        if web_url(reference.url) is None:
            binder.add(reference, base)
    # The page served with its library references rewritten is a second copy
    # of it; room for that is kept (the rewrites add a few hundred bytes).
    budget = binder.budget - len(document) - _REWRITE_ROOM
    libraries = bind_libraries(scan, text, entry_key, binder.resources, budget)
    checkpoint()
    for item in libraries.left_out:
        binder.leave_out(item.reference, item.reason, item.detail, item.what)
    for note in scan.notes:
        binder.leave_out(note.reference, note.reason, note.detail, note.what)
    for resource in list(binder.resources.values()):
        if resource.content_type == "text/css":
            css = resource.data.decode("utf-8", "replace")
            for url in css_urls(css):
                detail = f"named in {resource.key}: CSS references are not bound"
                binder.leave_out(url, "css", detail)
    resources = [*binder.resources.values(), *libraries.resources]
    if not libraries.edits:
        entry = Resource.of(entry_key, f"text/html; charset={charset}", document)
        return Bundle.of(
            entry_key, [entry, *resources], binder.finish(), libraries=libraries.copies
        )
    # Served as UTF-8 whatever the page was written in: the header's charset
    # outranks the page's <meta>, and the text is what the browser would read.
    served = apply_edits(text, libraries.edits).encode("utf-8", "replace")
    entry = Resource.of(entry_key, "text/html; charset=utf-8", served)
    return Bundle.of(
        entry_key,
        [entry, *resources],
        binder.finish(),
        libraries=libraries.copies,
        page_source=document,
    )


def _single_key(path: str) -> str:
    name = os.path.basename(path)
    if is_canonical_key(name):
        return name
    return "file" + posixpath.splitext(name)[1].lower()


def bind_single(
    file: VerifiedFile, path: str, content_type: str | None = None
) -> Bundle:
    """Snapshot one file (up to the bundle limit) as a bundle of its own."""
    key = _single_key(path)
    content_type = content_type or content_type_for(key)
    if content_type is None:
        raise BindError("this type of file is not served in a preview")
    try:
        data = _snapshot(file, MAX_BUNDLE_BYTES, "the file")
    except Skip as skip:
        raise BindError(skip.detail) from None
    return Bundle.of(key, [Resource.of(key, content_type, data)], [])


def wrap_image_page(key: str, alt: str) -> bytes:
    """A page whose only content is ``<img src=key>``, with escaped alt text.

    An image context runs no script in an SVG and loads nothing it names.
    """
    source = html.escape(quote(key, safe="/"), quote=True)
    text = html.escape(alt, quote=True)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{text}</title><style>"
        "html,body{margin:0;height:100%}"
        "body{display:flex;align-items:center;justify-content:center}"
        "img{max-width:100%;max-height:100%}</style></head>"
        f'<body><img src="{source}" alt="{text}"></body></html>\n'
    ).encode()


def bind_image_page(
    file: VerifiedFile,
    path: str,
    alt: str | None = None,
    *,
    content_type: str | None = None,
) -> Bundle:
    """An image (SVG included) shown as ``<img>`` in a generated wrapper page.

    ``content_type`` is the type the file's bytes gave, served whatever the
    name says; without it the name's type from the fixed table is served.
    """
    image = bind_single(file, path, content_type)
    if not image.entry.content_type.startswith("image/"):
        raise BindError("only images can be shown in an image page")
    page_key = "index.html" if image.entry_key != "index.html" else "page.html"
    text = alt if alt is not None else os.path.basename(path)
    page = Resource.of(
        page_key, "text/html; charset=utf-8", wrap_image_page(image.entry_key, text)
    )
    return Bundle.of(page_key, [page, image.entry], [])


def made_page_segments(segments: tuple[str, ...]) -> tuple[str, ...]:
    """Where a page made from a file lies: beside it, its name with ``.html`` added."""
    return (*segments[:-1], segments[-1] + ".html")


def bind_made_page(
    document: bytes,
    source_file: VerifiedFile,
    source_path: str,
    workspace_root: str,
    policy: Policy,
    cancelled: Callable[[], bool] = lambda: False,
) -> Bundle:
    """Bind a page the app wrote from another file (a notebook) as a page beside it.

    The files the page names resolve from that file's folder, within the same
    root, limits and policy as a page of its own would; the page is served as
    ``made_page_segments`` places it.
    """
    root, segments = _locate(source_file, source_path, workspace_root)
    page = made_page_segments(segments)
    return bind_document(document, root, page, policy, fetch_local, cancelled)
