"""Read a page's markup for what it loads: references, where they are written, notes.

Parsing uses the stdlib ``html.parser.HTMLParser``: it is tolerant of malformed
markup, decodes character references in attribute values as a browser does,
and only start tags, their attributes and the text of a few scripts matter
here, so a tree-building library would add a dependency without changing what
is collected. The ``srcset`` splitter is hand-written because no allowed
library has it and it must follow the browser's own rules.

Each reference keeps the start tag it was written in (its place in the text,
its raw text and its attributes), so a reference to a CDN library can be
pointed at the app's copy (``app.core.serve.html_libraries``). The text of import
maps and of inline module scripts is kept for the same reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser

from app.core.serve.manifest import LeftOut

# Text the parser takes at a time, with a check for cancellation between: a
# construct still open at a chunk's end is scanned again with the next one, so
# chunks are few and large.
SCAN_CHUNK = 1 << 20

# Past this many references the rest of the page is not examined: binding
# stops at 64 files anyway, and the listing must stay small.
MAX_REFERENCES = 4096
# Inline module scripts and import maps whose text is kept, and how much of it.
MAX_KEPT_SCRIPTS = 64
MAX_KEPT_SCRIPT_CHARS = 1 << 20

_CSS_URL = re.compile(
    r"""(@import\s+(?:url\(\s*)?["']?([^"'()\s;]+))|url\(\s*["']?([^"'()\s]+)""",
    re.I,
)
# The JavaScript MIME types of the HTML standard; any other type is not run.
_JS_TYPES = frozenset(
    [
        "application/ecmascript",
        "application/javascript",
        "application/x-ecmascript",
        "application/x-javascript",
        "text/ecmascript",
        "text/javascript",
        "text/javascript1.0",
        "text/javascript1.1",
        "text/javascript1.2",
        "text/javascript1.3",
        "text/javascript1.4",
        "text/javascript1.5",
        "text/jscript",
        "text/livescript",
        "text/x-ecmascript",
        "text/x-javascript",
    ]
)
# Scripts Babel's browser build compiles: it reads a src over the network.
_BABEL_TYPES = frozenset(["text/babel", "text/jsx"])
_LOADING_RELS = frozenset(
    ["icon", "apple-touch-icon", "preload", "prefetch", "modulepreload", "manifest"]
)
_NOT_LOADED = {"iframe": "src", "frame": "src", "object": "data", "embed": "src"}
# The tags whose references are bound, and so may be pointed elsewhere.
_WRITTEN = frozenset(["link", "script", "img", "audio", "video", "source", "track"])
_WEB_URL = re.compile(r"\s*(?:https?:)?//", re.I)


def is_web_url(url: str) -> bool:
    """Whether ``url`` names something on the web (http, https or ``//host``)."""
    return _WEB_URL.match(url) is not None


@dataclass(frozen=True)
class StartTag:
    """A start tag as the page writes it: where, its raw text, its attributes.

    ``line`` counts from 1 and ``column`` from 0, in the decoded text.
    """

    line: int
    column: int
    text: str
    name: str
    attributes: tuple[tuple[str, str | None], ...]


@dataclass(frozen=True)
class Reference:
    """A URL the page loads; ``what`` names the kind of thing in words.

    ``tag`` and ``attribute`` say where a single-URL reference is written;
    both are empty for one that cannot be rewritten (a ``srcset`` candidate).
    """

    url: str
    image: bool = False  # an image position, where a data: URL is fine as it is
    what: str = ""
    tag: StartTag | None = None
    attribute: str = ""
    module: bool = False


@dataclass(frozen=True)
class ScriptText:
    """The text of an inline module script or import map, and where it is.

    ``tag`` is its start tag; ``end_line`` and ``end_column`` are where its
    end tag starts, so the text between can be replaced.
    """

    tag: StartTag
    text: str
    end_line: int
    end_column: int


def _classic_script(type_attribute: str | None) -> bool:
    if type_attribute is None or not type_attribute.strip():
        return True
    return type_attribute.split(";")[0].strip().lower() in _JS_TYPES


def srcset_urls(value: str) -> list[str]:
    """The candidate URLs of a ``srcset``, split as the HTML standard does."""
    urls: list[str] = []
    index, length = 0, len(value)
    while index < length:
        while index < length and (value[index].isspace() or value[index] == ","):
            index += 1
        start = index
        while index < length and not value[index].isspace():
            index += 1
        url = value[start:index]
        if url.endswith(","):
            url = url.rstrip(",")
        else:  # skip the descriptors, up to a comma outside parentheses
            depth = 0
            while index < length:
                char = value[index]
                index += 1
                if char == "(":
                    depth += 1
                elif char == ")":
                    depth = max(0, depth - 1)
                elif char == "," and depth == 0:
                    break
        if url:
            urls.append(url)
    return urls


def css_references(css: str) -> list[tuple[str, str]]:
    """``(url, what)`` for each ``@import`` ("stylesheet") and ``url()`` ("file")."""
    found: dict[str, str] = {}
    for imported, import_url, url in _CSS_URL.findall(css):
        reference = import_url if imported else url
        if not reference.lower().startswith("data:"):
            found.setdefault(reference, "stylesheet" if imported else "file")
    return list(found.items())


def css_urls(css: str) -> list[str]:
    """URLs named by ``@import`` and ``url()``."""
    return [url for url, _what in css_references(css)]


class PageScan(HTMLParser):
    """Collect direct dependencies, notes on what will not load, module scripts.

    ``scan`` fills ``references`` (in the page's order), ``notes``,
    ``import_maps`` and ``module_scripts`` (inline ones), and
    ``first_module_tag`` (the first module script or import map, before which
    an import map of the app's can go).
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.references: list[Reference] = []
        self.notes: list[LeftOut] = []
        self.import_maps: list[ScriptText] = []
        self.module_scripts: list[ScriptText] = []
        self.first_module_tag: StartTag | None = None
        self.skipped = 0
        self._picture = 0
        self._in_style = False
        self._kept: StartTag | None = None  # the script whose text is kept
        self._kept_kind = ""
        self._kept_text: list[str] = []

    def _refer(
        self,
        url: str | None,
        what: str,
        *,
        image: bool = False,
        tag: StartTag | None = None,
        attribute: str = "",
        module: bool = False,
    ) -> None:
        if url is None:
            return
        if len(self.references) >= MAX_REFERENCES:
            self.skipped += 1
            return
        self.references.append(Reference(url, image, what, tag, attribute, module))

    def _note(
        self, reference: str | None, reason: str, detail: str, what: str = ""
    ) -> None:
        if reference is not None and len(self.notes) < MAX_REFERENCES:
            self.notes.append(LeftOut(reference, reason, detail, what))

    def _css(self, css: str) -> None:
        for url, what in css_references(css):
            if is_web_url(url):
                detail = "previews are offline"
                self._note(
                    url, "remote", detail, "font or image" if what == "file" else what
                )
            else:
                self._note(url, "css", "CSS @import and url() references are not bound")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found: dict[str, str] = {}
        for name, value in attrs:
            found.setdefault(name, value or "")  # the first duplicate wins
        self._in_style = tag == "style"
        self._kept = None  # a script's text has no tags: its end was missing
        if "style" in found:
            self._css(found["style"])
        if tag in _WRITTEN:
            # Only these tags are ever rewritten: the rest keep no position.
            line, column = self.getpos()
            written = self.get_starttag_text() or ""
            self._loading(found, StartTag(line, column, written, tag, tuple(attrs)))
        elif tag == "picture":
            self._picture += 1
        elif tag in _NOT_LOADED:
            detail = f"<{tag}> content is not loaded in a preview"
            self._note(found.get(_NOT_LOADED[tag]), "not_bound", detail)
        elif tag == "base":
            self._note(found.get("href"), "base", "<base> is ignored in a preview")

    def _loading(self, found: dict[str, str], start: StartTag) -> None:
        tag = start.name
        if "crossorigin" in found and tag not in ("source", "track"):
            url = found.get("href" if tag == "link" else "src")
            # The app's library copies answer CORS requests; a page's own
            # files never do.
            if url is not None and not is_web_url(url):
                detail = "crossorigin needs CORS headers, which a preview never sends"
                self._note(url, "cors", detail)
                return
        if tag == "link":
            self._link(found, start)
        elif tag == "script":
            self._script(found, start)
        elif tag == "img":
            src = found.get("src")
            self._refer(src, "image", image=True, tag=start, attribute="src")
            for url in srcset_urls(found.get("srcset", "")):
                self._refer(url, "image", image=True)
        else:  # audio, video, source, track
            what = "subtitles" if tag == "track" else "media"
            self._refer(found.get("src"), what, tag=start, attribute="src")
            if tag == "video":
                poster = found.get("poster")
                self._refer(poster, "image", image=True, tag=start, attribute="poster")
            if tag == "source" and self._picture:
                for url in srcset_urls(found.get("srcset", "")):
                    self._refer(url, "image", image=True)

    def _link(self, found: dict[str, str], start: StartTag) -> None:
        rels = set(found.get("rel", "").lower().split())
        if "stylesheet" in rels:
            self._refer(found.get("href"), "stylesheet", tag=start, attribute="href")
        elif rels & _LOADING_RELS:
            detail = f"<link rel={' '.join(sorted(rels))}> is not bound"
            self._note(found.get("href"), "not_bound", detail)

    def _script(self, found: dict[str, str], start: StartTag) -> None:
        type_attribute = found.get("type")
        kind = (type_attribute or "").split(";")[0].strip().lower()
        source = found.get("src")
        if _classic_script(type_attribute):
            self._refer(source, "script", tag=start, attribute="src")
        elif kind == "module":
            self.first_module_tag = self.first_module_tag or start
            if source is None:
                self._keep(start, "module")
            elif is_web_url(source):
                self._refer(source, "module", tag=start, attribute="src", module=True)
            else:
                self._note(source, "module", "module scripts are not bound")
        elif kind == "importmap":
            self.first_module_tag = self.first_module_tag or start
            if source is None:
                self._keep(start, "importmap")
        elif kind in _BABEL_TYPES and source is not None:
            detail = (
                "Babel reads such a file over the network, which previews do not"
                " allow; code written inside the page runs"
            )
            self._note(source, "not_bound", detail)
        else:
            detail = f"a script of type {type_attribute} is not run"
            self._note(source, "not_bound", detail)

    def _keep(self, start: StartTag, kind: str) -> None:
        kept = self.import_maps if kind == "importmap" else self.module_scripts
        if len(kept) < MAX_KEPT_SCRIPTS:
            self._kept, self._kept_kind, self._kept_text = start, kind, []

    def _end_kept(self, line: int, column: int) -> None:
        start, self._kept = self._kept, None
        if start is None:
            return
        text = "".join(self._kept_text)[:MAX_KEPT_SCRIPT_CHARS]
        kept = ScriptText(start, text, line, column)
        if self._kept_kind == "importmap":
            self.import_maps.append(kept)
        else:
            self.module_scripts.append(kept)

    def handle_endtag(self, tag: str) -> None:
        if tag == "picture":
            self._picture = max(0, self._picture - 1)
        if tag == "script":
            self._end_kept(*self.getpos())
        self._in_style = False
        self._kept = None

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self._css(data)
        elif self._kept is not None:
            self._kept_text.append(data)

    def scan(self, text: str, checkpoint: Callable[[], None] = lambda: None) -> None:
        """Collect from ``text``, a chunk at a time; ``checkpoint()`` runs
        between chunks and may raise to stop.

        A start tag needs a ``>`` to end it, so nothing after the last one can
        be a tag: that tail is left out, because the parser would otherwise
        rescan it from every ``<`` in it (``<a `` 10,000 times took 17 s).
        """
        end = text.rfind(">") + 1
        if "<" in text[end:]:
            text = text[:end]
        try:
            for start in range(0, len(text), SCAN_CHUNK):
                checkpoint()
                self.feed(text[start : start + SCAN_CHUNK])
            self.close()
        except AssertionError:
            # WORKAROUND(CPython's _markupbase asserts on broken marked sections
            # such as "<![ x"): keep what was collected before that point.
            self._note("(rest of the page)", "unparsed", "the HTML stops parsing here")
        if self.skipped:
            self._note(f"{self.skipped} more", "too_many", "not examined")
