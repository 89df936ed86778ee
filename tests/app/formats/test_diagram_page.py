"""The page that draws diagrams and math: its document, its bundle, its limits."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from app.core.serve.html_bind import bind_made_page
from app.core.serve.manifest import MAX_BUNDLE_BYTES, Bundle, Resource
from app.core.serve.web_libraries import BundledFile, bundled
from app.core.trust.policy import Policy
from app.core.trust.safeio import open_verified
from app.formats import diagram_page
from app.formats.diagram_page import (
    DRAWING_FOLDER,
    ENTRY_KEY,
    PageColors,
    PageError,
    add_drawing,
    bind_page,
    image_budget,
    page_document,
)
from app.formats.markdown_diagrams import MAX_DIAGRAM_CHARS
from app.formats.notebook import render_notebook
from app.resources import resource_path
from tests.data.notebooks import DRAWN_CELLS, with_drawings

COLORS = PageColors("#111111", "#fafafa", "#777777", "#0044cc", "#eeeeee", "#cccccc")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[str | None, str]] = []
        self.styles: list[str | None] = []
        self.root: dict[str, str | None] = {}
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "html":
            self.root = values
        elif tag == "script":
            self.scripts.append((values.get("src"), ""))
            self._in_script = True
        elif tag == "link" and values.get("rel") == "stylesheet":
            self.styles.append(values.get("href"))

    def handle_endtag(self, tag: str) -> None:
        self._in_script = self._in_script and tag != "script"

    def handle_data(self, data: str) -> None:
        if self._in_script:
            source, text = self.scripts[-1]
            self.scripts[-1] = (source, text + data)


def _tags(html: str) -> _Tags:
    tags = _Tags()
    tags.feed(html)
    return tags


@pytest.fixture
def fresh_libraries() -> Iterator[None]:
    """Forget the libraries read so far, before and after the test."""
    diagram_page._library.cache_clear()
    yield
    diagram_page._library.cache_clear()


def test_the_page_runs_only_bound_script_files_each_one_in_the_bundle() -> None:
    bundle = bind_page("<p>x</p>", title="r.md", colors=COLORS, dark=False,
                       diagrams=True, math=True)  # fmt: skip
    tags = _tags(bundle.entry.data.decode())
    assert tags.scripts == [
        ("lib/katex.min.js", ""),
        ("lib/mermaid.min.js", ""),
        ("draw.js", ""),
    ]
    assert tags.styles == ["lib/katex.min.css", "page.css"]
    named = {src for src, _ in tags.scripts} | set(tags.styles)
    fonts = {key for key in bundle.resources if key.startswith("lib/fonts/")}
    assert named | fonts | {ENTRY_KEY} == set(bundle.resources)
    assert bundle.total_bytes < MAX_BUNDLE_BYTES


@pytest.mark.parametrize(
    ("diagrams", "math", "libraries"),
    [
        (True, False, {"lib/mermaid.min.js"}),
        (False, True, {"lib/katex.min.js", "lib/katex.min.css"}),
    ],
)
def test_a_page_carries_only_the_library_it_draws_with(
    diagrams: bool, math: bool, libraries: set[str]
) -> None:
    bundle = bind_page("", title="t", colors=COLORS, dark=False,
                       diagrams=diagrams, math=math)  # fmt: skip
    fonts = {key for key in bundle.resources if key.startswith("lib/fonts/")}
    assert bool(fonts) is math
    assert set(bundle.resources) - fonts == {
        ENTRY_KEY, "page.css", "draw.js", *libraries
    }  # fmt: skip


def test_the_libraries_served_are_the_bundled_copies_byte_for_byte() -> None:
    bundle = bind_page("", title="t", colors=COLORS, dark=False,
                       diagrams=True, math=True)  # fmt: skip
    for key, (package, name) in {
        "lib/mermaid.min.js": ("mermaid", "dist/mermaid.min.js"),
        "lib/katex.min.js": ("katex", "dist/katex.min.js"),
    }.items():
        served = bundle.resources[key]
        assert served.sha256 == bundled(package, name).sha256
        assert served.content_type == "text/javascript"
        assert served.public  # the app's own copy, no secret of the page's
    draw = resource_path("web", "pages", "draw.js").read_bytes()
    assert bundle.resources["draw.js"].data == draw
    assert not bundle.resources["draw.js"].public
    assert not bundle.entry.public


def test_katex_fonts_are_served_where_its_stylesheet_names_them() -> None:
    # A sandboxed page fetches fonts in CORS mode: only public copies answer it.
    bundle = bind_page("", title="t", colors=COLORS, dark=False,
                       diagrams=False, math=True)  # fmt: skip
    css = bundle.resources["lib/katex.min.css"].data.decode()
    named = set(re.findall(r"url\((fonts/[^)]+\.woff2)\)", css))
    assert len(named) == css.count("@font-face") == 20
    for font in named:
        served = bundle.resources["lib/" + font]
        assert served.public and served.content_type == "font/woff2"
        assert served.sha256 == bundled("katex", "dist/" + font).sha256


def test_the_limits_the_script_reads_are_on_the_root_element() -> None:
    html = page_document("", title="t", dark=True, diagrams=True, math=True)
    root = _tags(html).root
    assert root["data-theme"] == "dark"
    assert root["data-diagram-max-chars"] == str(MAX_DIAGRAM_CHARS)
    script = resource_path("web", "pages", "draw.js").read_text()
    read = set(re.findall(r'number\("([A-Za-z]+)"\)', script))
    assert read, "draw.js reads its limits with number(...)"
    for name in read:
        attribute = "data-" + re.sub(r"([A-Z])", r"-\1", name).lower()
        assert root.get(attribute, "").isdigit(), attribute


def test_the_title_is_escaped_and_colours_must_be_colours() -> None:
    html = page_document("", title="</title><script>x</script>", dark=False,
                         diagrams=False, math=False)  # fmt: skip
    assert "<script>x" not in html
    assert "&lt;/title&gt;&lt;script&gt;" in html
    with pytest.raises(ValueError, match="#rrggbb"):
        PageColors("red;}body{display:none", *["#000000"] * 5)


def test_the_page_style_takes_the_palettes_colours_and_scheme() -> None:
    dark = PageColors("#eeeeee", "#1b1b1b", "#999999", "#66aaff", "#2a2a2a", "#444444")
    bundle = bind_page("", title="t", colors=dark, dark=True,
                       diagrams=False, math=False)  # fmt: skip
    css = bundle.resources["page.css"].data.decode()
    assert "color-scheme: dark" in css
    assert "background: #1b1b1b; color: #eeeeee;" in css


def test_images_are_served_beside_the_page_within_the_budget() -> None:
    budget = image_budget(diagrams=True, math=True)
    assert 0 < budget < MAX_BUNDLE_BYTES - 3_000_000
    image = Resource.of("images/0", "image/png", b"\x89PNG\r\n\x1a\n")
    bundle = bind_page('<img src="images/0">', title="t", colors=COLORS, dark=False,
                       diagrams=True, math=False, images=[image])  # fmt: skip
    assert bundle.resources["images/0"].content_type == "image/png"
    assert not bundle.resources["images/0"].public


def _change_libraries_on_disk(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Every bundled file is read from a copy with its last byte changed."""
    recorded = diagram_page.bundled

    def changed_on_disk(package: str, name: str = "") -> BundledFile:
        found = recorded(package, name)
        copy = folder / found.path.name
        data = found.path.read_bytes()
        copy.write_bytes(data[:-1] + b"!")  # the same size, other bytes
        return dataclasses.replace(found, path=copy)

    monkeypatch.setattr(diagram_page, "bundled", changed_on_disk)


def test_a_library_that_differs_from_its_record_fails_the_page_with_the_reason(
    fresh_libraries: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _change_libraries_on_disk(monkeypatch, tmp_path)
    with pytest.raises(PageError, match="is not the one it shipped with"):
        bind_page("", title="t", colors=COLORS, dark=False,
                  diagrams=True, math=False)  # fmt: skip
    with pytest.raises(PageError, match="is not the one it shipped with"):
        image_budget(diagrams=True, math=False)


# -- a page bound from a file (a notebook's) ----------------------------------------


def _bound_notebook(folder: Path, cells: tuple[str, ...] = DRAWN_CELLS) -> Bundle:
    """``reports/growth.ipynb``'s page, bound beside it as the preview binds it."""
    (folder / "reports").mkdir(exist_ok=True)
    path = with_drawings(folder / "reports", cells)
    document = render_notebook(path.read_bytes(), title=path.name).html
    with open_verified(str(path)) as file:
        return bind_made_page(document, file, str(path), str(folder), Policy([]))


def test_a_bound_notebook_page_gets_the_drawing_files_it_asks_for(
    tmp_path: Path,
) -> None:
    bound = _bound_notebook(tmp_path)
    assert bound.entry_key == "reports/growth.ipynb.html"
    drawn = add_drawing(bound)
    served = drawn.entry.data.decode()
    tags = _tags(served)
    assert tags.scripts == [
        ("_drawing/lib/katex.min.js", ""),
        ("_drawing/lib/mermaid.min.js", ""),
        ("_drawing/draw.js", ""),
    ]
    assert tags.styles == ["_drawing/lib/katex.min.css"]
    # The libraries run before anything of the notebook's, draw.js after it.
    head, main = served.index("</head>"), served.index("<main")
    assert served.index("mermaid.min.js") < head < main < served.index("draw.js")
    folder = "reports/" + DRAWING_FOLDER
    for key, (package, name) in {
        "lib/mermaid.min.js": ("mermaid", "dist/mermaid.min.js"),
        "lib/katex.min.css": ("katex", "dist/katex.min.css"),
        "lib/fonts/KaTeX_Main-Regular.woff2": (
            "katex",
            "dist/fonts/KaTeX_Main-Regular.woff2",
        ),
    }.items():
        copy = drawn.resources[folder + key]
        assert copy.public and copy.sha256 == bundled(package, name).sha256
    draw = drawn.resources[folder + "draw.js"]
    assert draw.data == resource_path("web", "pages", "draw.js").read_bytes()
    assert not draw.public and not drawn.entry.public
    assert drawn.source == bound.entry.data  # the page as the app wrote it
    assert drawn.total_bytes < MAX_BUNDLE_BYTES
    assert drawn.left_out == bound.left_out


def test_a_page_bound_from_a_file_that_asks_for_nothing_is_left_as_it_is(
    tmp_path: Path,
) -> None:
    bound = _bound_notebook(tmp_path, ("It costs $5 and $10.",))
    assert add_drawing(bound) is bound


@pytest.mark.parametrize(
    ("crowd", "reason"),
    [
        ("full", "the preview would exceed 32 MiB"),
        ("taken", "the page has a file of its own at reports/_drawing/draw.js"),
        ("changed", "is not the one it shipped with"),
    ],
)
def test_drawing_files_that_cannot_be_added_leave_math_as_text_and_say_why(
    tmp_path: Path,
    crowd: str,
    reason: str,
    fresh_libraries: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bound = _bound_notebook(tmp_path)
    resources = list(bound.resources.values())
    if crowd == "full":
        room = MAX_BUNDLE_BYTES - bound.total_bytes - 1_000_000
        resources.append(Resource.of("reports/big.png", "image/png", bytes(room)))
    elif crowd == "taken":
        resources.append(
            Resource.of("reports/_drawing/draw.js", "text/javascript", b"")
        )
    else:
        _change_libraries_on_disk(monkeypatch, tmp_path)
    crowded = Bundle.of(bound.entry_key, resources, [])
    drawn = add_drawing(crowded)
    root = _tags(drawn.entry.data.decode()).root
    assert root["data-drawn"] == "done" and "data-draws" not in root
    assert not any(key.endswith(".min.js") for key in drawn.resources)
    [left_out] = drawn.left_out
    assert left_out.detail.startswith("diagrams and math are shown as text: ")
    assert reason in left_out.detail
