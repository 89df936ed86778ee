"""The bundled browser libraries: which file answers a CDN URL; the copies' record."""

from __future__ import annotations

import json
import lzma
import re
import shutil
from pathlib import Path
from urllib.parse import urljoin

import pytest

from app.core.serve import web_libraries
from app.core.serve.html_libraries import LibraryRefusedError, read_copy
from app.core.serve.web_libraries import (
    BundledFile,
    CatalogueError,
    NotBundled,
    VersionMatch,
    bundled,
    bundled_catalogue,
    describe,
    load_catalogue,
    resolve,
    verify_catalogue,
)
from app.core.serve.web_libraries.versions import parse_spec

EXACT, RANGE, NEAREST = VersionMatch.EXACT, VersionMatch.RANGE, VersionMatch.NEAREST
PERMITTED_LICENCES = {
    "MIT",
    "ISC",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "Apache-2.0",
    "(CC-BY-4.0 AND OFL-1.1 AND MIT)",
}


def _served(url: str) -> BundledFile:
    result = resolve(url)
    assert isinstance(result, BundledFile), (url, result)
    return result


# -- URL forms per CDN ---------------------------------------------------------

# Each URL, then the package, version, file and match that answer it.
CDN_FORMS_TABLE = """
# jsDelivr: /npm/<package>@<version>/<path>, a range, or no version and no file.
https://cdn.jsdelivr.net/npm/chart.js
    chart.js 4.6.1 dist/chart.umd.min.js range
https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.umd.js
    chart.js 4.6.1 dist/chart.umd.min.js exact
https://cdn.jsdelivr.net/npm/chart.js@4/dist/chart.umd.min.js
    chart.js 4.6.1 dist/chart.umd.min.js range
https://cdn.jsdelivr.net/npm/chart.js@latest
    chart.js 4.6.1 dist/chart.umd.min.js range
https://cdn.jsdelivr.net/npm/chart.js@3.9.1/dist/chart.min.js
    chart.js 3.9.1 dist/chart.min.js exact
https://cdn.jsdelivr.net/npm/alpinejs@3.x.x/dist/cdn.min.js
    alpinejs 3.17.5 dist/cdn.min.js range
https://cdn.jsdelivr.net/npm/@tailwindcss/browser@4
    @tailwindcss/browser 4.3.5 dist/index.global.js range
https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css
    tailwindcss 2.2.19 dist/tailwind.min.css exact
https://cdn.jsdelivr.net/npm/mermaid/dist/mermaid.min.js
    mermaid 11.17.2 dist/mermaid.min.js range
https://cdn.jsdelivr.net/npm/katex@0.16.47/dist/contrib/auto-render.min.js
    katex 0.16.47 dist/contrib/auto-render.min.js exact
https://cdn.jsdelivr.net/npm/three@0.187.0/build/three.module.js
    three 0.187.0 build/three.module.js exact
https://cdn.jsdelivr.net/npm/three@0.187.0/build/three.core.min.js
    three 0.187.0 build/three.core.js exact
https://cdn.jsdelivr.net/npm/three@0.187.0/examples/jsm/controls/OrbitControls.js
    three 0.187.0 examples/jsm/controls/OrbitControls.js exact
https://cdn.jsdelivr.net/npm/bootstrap@5.3.9/dist/js/bootstrap.bundle.min.js
    bootstrap 5.3.9 dist/js/bootstrap.bundle.min.js exact
https://cdn.jsdelivr.net/gh/highlightjs/cdn-release@11.12.0/build/highlight.min.js
    @highlightjs/cdn-assets 11.12.0 highlight.min.js exact
https://cdn.jsdelivr.net/npm/plotly.js-dist@2.35.3/plotly.min.js
    plotly.js-dist-min 2.35.3 plotly.min.js exact
# unpkg: /<package>@<version>/<path>
https://unpkg.com/react@18/umd/react.production.min.js
    react 18.3.1 umd/react.production.min.js range
https://unpkg.com/react-dom@18.3.1/umd/react-dom.development.js
    react-dom 18.3.1 umd/react-dom.production.min.js exact
https://unpkg.com/@babel/standalone/babel.min.js
    @babel/standalone 7.29.13 babel.min.js range
https://unpkg.com/vue@3
    vue 3.5.46 dist/vue.global.prod.js range
https://unpkg.com/vue@2.7.16/dist/vue.js
    vue 2.7.16 dist/vue.min.js exact
https://unpkg.com/leaflet@1.9.4/dist/images/marker-icon.png
    leaflet 1.9.4 dist/images/marker-icon.png exact
# cdnjs: /ajax/libs/<its own name>/<version>/<file>, often without dist/.
https://cdnjs.cloudflare.com/ajax/libs/Chart.js/4.6.1/chart.umd.min.js
    chart.js 4.6.1 dist/chart.umd.min.js exact
https://cdnjs.cloudflare.com/ajax/libs/d3/7.9.2/d3.min.js
    d3 7.9.2 dist/d3.min.js exact
https://cdnjs.cloudflare.com/ajax/libs/plotly.js/2.35.3/plotly.min.js
    plotly.js-dist-min 2.35.3 plotly.min.js exact
https://cdnjs.cloudflare.com/ajax/libs/three.js/r128/three.min.js
    three 0.128.0 build/three.min.js exact
https://cdnjs.cloudflare.com/ajax/libs/mermaid/11.17.2/mermaid.min.js
    mermaid 11.17.2 dist/mermaid.min.js exact
https://cdnjs.cloudflare.com/ajax/libs/KaTeX/0.16.47/katex.min.css
    katex 0.16.47 dist/katex.min.css exact
https://cdnjs.cloudflare.com/ajax/libs/KaTeX/0.16.47/fonts/KaTeX_Main-Regular.woff2
    katex 0.16.47 dist/fonts/KaTeX_Main-Regular.woff2 exact
https://cdnjs.cloudflare.com/ajax/libs/jquery/3.8.0/jquery.min.js
    jquery 3.8.0 dist/jquery.min.js exact
https://cdnjs.cloudflare.com/ajax/libs/twitter-bootstrap/5.3.9/css/bootstrap.min.css
    bootstrap 5.3.9 dist/css/bootstrap.min.css exact
https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.7.2/css/all.min.css
    @fortawesome/fontawesome-free 6.7.2 css/all.min.css exact
https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.7.2/webfonts/fa-solid-900.woff2
    @fortawesome/fontawesome-free 6.7.2 webfonts/fa-solid-900.woff2 exact
https://cdnjs.cloudflare.com/ajax/libs/highlight.js/11.12.0/styles/github-dark.min.css
    @highlightjs/cdn-assets 11.12.0 styles/github-dark.min.css exact
https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.18.1/lodash.min.js
    lodash 4.18.1 lodash.min.js exact
https://cdnjs.cloudflare.com/ajax/libs/babel-standalone/7.29.13/babel.min.js
    @babel/standalone 7.29.13 babel.min.js exact
https://cdnjs.cloudflare.com/ajax/libs/leaflet/1.9.4/leaflet.css
    leaflet 1.9.4 dist/leaflet.css exact
https://cdnjs.cloudflare.com/ajax/libs/marked/4.3.0/marked.min.js
    marked 4.3.0 marked.min.js exact
# The hosts of a single library, each with its own file names.
https://cdn.plot.ly/plotly-2.35.3.min.js
    plotly.js-dist-min 2.35.3 plotly.min.js exact
https://cdn.plot.ly/plotly-latest.min.js
    plotly.js-dist-min 2.35.3 plotly.min.js range
https://code.jquery.com/jquery-3.8.0.min.js
    jquery 3.8.0 dist/jquery.min.js exact
https://code.jquery.com/jquery-3.8.0.slim.min.js
    jquery 3.8.0 dist/jquery.slim.min.js exact
https://code.jquery.com/jquery-4.1.0.js
    jquery 4.1.0 dist/jquery.min.js exact
https://d3js.org/d3.v7.min.js
    d3 7.9.2 dist/d3.min.js range
https://ajax.googleapis.com/ajax/libs/jquery/3.8.0/jquery.min.js
    jquery 3.8.0 dist/jquery.min.js exact
https://stackpath.bootstrapcdn.com/bootstrap/4.6.2/css/bootstrap.min.css
    bootstrap 4.6.2 dist/css/bootstrap.min.css exact
https://use.fontawesome.com/releases/v6.7.2/css/all.css
    @fortawesome/fontawesome-free 6.7.2 css/all.min.css exact
"""


def _cdn_forms() -> list[tuple[str, str, str, str, VersionMatch]]:
    rows = [
        line.strip()
        for line in CDN_FORMS_TABLE.splitlines()
        if line.strip() and not line.startswith("#")
    ]
    forms = []
    for url, expected in zip(rows[::2], rows[1::2], strict=True):
        package, version, name, match = expected.split()
        forms.append((url, package, version, name, VersionMatch(match)))
    return forms


CDN_FORMS = _cdn_forms()


@pytest.mark.parametrize(("url", "package", "version", "name", "match"), CDN_FORMS)
def test_each_cdns_url_forms_resolve_to_the_bundled_file(
    url: str, package: str, version: str, name: str, match: VersionMatch
) -> None:
    served = _served(url)
    assert (served.package, served.version, served.name, served.match) == (
        package,
        version,
        name,
        match,
    )
    assert served.path == bundled_catalogue().root.joinpath(package, version, name)
    assert served.path.is_file()


def test_the_answer_carries_what_a_server_needs() -> None:
    served = _served("https://cdn.jsdelivr.net/npm/katex@0.16.47/dist/katex.min.css")
    assert served.mime == "text/css"
    assert served.size == served.path.stat().st_size
    assert re.fullmatch(r"[0-9a-f]{64}", served.sha256)
    assert served.exact and served.library == "KaTeX"
    assert _served("https://unpkg.com/leaflet@1.9.4/dist/images/layers.png").mime == (
        "image/png"
    )


# -- versions -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "version"),
    [
        ("https://cdn.jsdelivr.net/npm/chart.js@4.4.1/dist/chart.umd.min.js", "4.6.1"),
        ("https://cdn.jsdelivr.net/npm/chart.js@3.5.0/dist/chart.min.js", "3.9.1"),
        ("https://cdn.jsdelivr.net/npm/chart.js@4.7.0-beta.1", "4.6.1"),
        ("https://cdn.jsdelivr.net/npm/chart.js@~4.4.0", "4.6.1"),
        ("https://cdn.plot.ly/plotly-2.27.0.min.js", "2.35.3"),
        ("https://code.jquery.com/jquery-3.7.1.min.js", "3.8.0"),
        ("https://cdn.jsdelivr.net/npm/katex@0.16.9/dist/katex.min.css", "0.16.47"),
        # three.js's releases are one series; each file from the nearest that has it.
        ("https://cdn.jsdelivr.net/npm/three@0.160.0/build/three.module.js", "0.187.0"),
        ("https://cdn.jsdelivr.net/npm/three@0.150.0/build/three.min.js", "0.128.0"),
    ],
)
def test_a_version_not_shipped_gets_the_nearest_of_its_major_and_says_so(
    url: str, version: str
) -> None:
    served = _served(url)
    assert (served.version, served.match, served.exact) == (version, NEAREST, False)


@pytest.mark.parametrize(
    ("url", "version"),
    [
        ("https://cdn.jsdelivr.net/npm/chart.js@^4.2.0", "4.6.1"),
        ("https://cdn.jsdelivr.net/npm/chart.js@3", "3.9.1"),
        ("https://cdn.jsdelivr.net/npm/chart.js@3.x", "3.9.1"),
        ("https://cdn.jsdelivr.net/npm/jquery@3/dist/jquery.min.js", "3.8.0"),
        ("https://cdn.jsdelivr.net/npm/jquery/dist/jquery.min.js", "4.1.0"),
        ("https://cdn.jsdelivr.net/npm/katex@^0.16.0/dist/katex.min.js", "0.16.47"),
        (
            "https://cdn.jsdelivr.net/npm/bootstrap@~5.3.0/dist/css/bootstrap.min.css",
            "5.3.9",
        ),
    ],
)
def test_a_range_or_no_version_gets_the_newest_bundled_inside_it(
    url: str, version: str
) -> None:
    served = _served(url)
    assert (served.version, served.match) == (version, RANGE)


@pytest.mark.parametrize(
    "url",
    [
        "https://cdn.jsdelivr.net/npm/chart.js@2.9.4/dist/Chart.min.js",
        "https://unpkg.com/react@19/umd/react.production.min.js",
        "https://unpkg.com/react@17.0.2/umd/react.development.js",
        "https://cdn.jsdelivr.net/npm/mermaid@10/dist/mermaid.min.js",
        "https://cdn.plot.ly/plotly-3.0.1.min.js",
        "https://d3js.org/d3.v5.min.js",
        "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/4.7.0/css/font-awesome.min.css",
        # Below 1.0 each minor is its own series, as npm's caret reads it.
        "https://cdn.jsdelivr.net/npm/katex@0.15.6/dist/katex.min.js",
    ],
)
def test_another_major_is_not_bundled(url: str) -> None:
    result = resolve(url)
    assert isinstance(result, NotBundled)
    assert "not bundled" in result.reason and result.library


def test_a_file_the_copy_lacks_is_named_as_missing() -> None:
    result = resolve("https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.cjs")
    assert isinstance(result, NotBundled)
    assert result.reason == "Chart.js 4.6.1 has no bundled file dist/chart.cjs"


@pytest.mark.parametrize(
    "url",
    [
        "https://cdn.tailwindcss.com",
        "https://cdn.tailwindcss.com/",
        "https://cdn.tailwindcss.com/3.4.16",
        "https://cdn.tailwindcss.com/?plugins=forms,typography",
    ],
)
def test_the_tailwind_play_cdn_is_served_by_the_version_4_browser_build(
    url: str,
) -> None:
    served = _served(url)
    assert (served.package, served.name) == (
        "@tailwindcss/browser",
        "dist/index.global.js",
    )
    assert served.match is VersionMatch.STAND_IN and not served.exact
    assert describe(served) == (
        "Tailwind CSS 4.3.5 in place of the Tailwind CSS Play CDN"
        " from cdn.tailwindcss.com"
    )


@pytest.mark.parametrize(
    ("text", "exact", "low", "high"),
    [
        ("4.4.1", (4, 4, 1), None, None),
        ("v4.4.1", (4, 4, 1), None, None),
        ("r128", (0, 128, 0), None, None),
        ("4", None, (4, 0, 0), (5, 0, 0)),
        ("3.x.x", None, (3, 0, 0), (4, 0, 0)),
        ("4.4", None, (4, 4, 0), (4, 5, 0)),
        ("^4.2.0", None, (4, 2, 0), (5, 0, 0)),
        ("^0.16.9", None, (0, 16, 9), (0, 17, 0)),
        ("~4.4.1", None, (4, 4, 1), (4, 5, 0)),
    ],
)
def test_version_specifiers_read_as_npm_reads_them(text, exact, low, high) -> None:
    spec = parse_spec(text)
    assert spec is not None and (spec.exact, spec.low, spec.high) == (exact, low, high)


@pytest.mark.parametrize("text", ["next", "4.x.1", ">=4", "1.2.3.4", "abc"])
def test_a_specifier_that_names_no_version_is_refused(text: str) -> None:
    assert parse_spec(text) is None
    result = resolve(f"https://cdn.jsdelivr.net/npm/chart.js@{text}")
    assert isinstance(result, NotBundled)


# -- what a person reads --------------------------------------------------------


def test_describe_says_which_library_and_version_a_page_loads_from_where() -> None:
    exact = _served("https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.umd.min.js")
    assert describe(exact) == "Chart.js 4.6.1 from cdn.jsdelivr.net"
    nearest = _served("https://cdn.plot.ly/plotly-2.27.0.min.js")
    assert describe(nearest) == "Plotly 2.35.3 from cdn.plot.ly, in place of 2.27.0"
    missing = resolve("https://unpkg.com/react@19")
    assert describe(missing) == "React 19 is not bundled (the app has React 18.3.1)"


def test_module_builders_and_cdn_built_modules_are_reported_as_not_bundled() -> None:
    for url in (
        "https://esm.sh/react@18.3.1",
        "https://cdn.skypack.dev/d3",
        "https://cdn.jsdelivr.net/npm/d3@7/+esm",
    ):
        result = resolve(url)
        assert isinstance(result, NotBundled) and "ES module" in result.reason, url


def test_the_apps_own_pages_get_the_newest_mermaid_and_katex() -> None:
    mermaid = bundled("mermaid")
    assert (mermaid.name, mermaid.version) == ("dist/mermaid.min.js", "11.17.2")
    assert describe(mermaid) == "Mermaid 11.17.2 (bundled with the app)"
    for name in (
        "dist/katex.min.js",
        "dist/katex.min.css",
        "dist/contrib/auto-render.min.js",
    ):
        assert bundled("katex", name).path.is_file()
    with pytest.raises(CatalogueError):
        bundled("katex", "dist/katex.mjs")


@pytest.mark.parametrize(
    "stylesheet",
    [
        "https://cdn.jsdelivr.net/npm/katex@0.16.47/dist/katex.min.css",
        "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.7.2/css/all.min.css",
        "https://cdn.jsdelivr.net/npm/bootstrap-icons@1.13.2/font/bootstrap-icons.min.css",
    ],
)
def test_every_font_a_bundled_stylesheet_loads_first_is_bundled(
    stylesheet: str,
) -> None:
    css = _served(stylesheet).path.read_text(encoding="utf-8")
    # Each @font-face lists its sources best first; the browser takes the
    # first it can use, the WOFF2 one.
    faces = re.findall(r"@font-face\s*\{[^}]*\}", css)
    assert faces
    for face in faces:
        first = re.search(r"url\(\s*['\"]?([^'\")]+)", face)
        assert first is not None and ".woff2" in first[1], face
        served = _served(urljoin(stylesheet, first[1]))
        assert served.mime == "font/woff2"


# -- hostile URLs -----------------------------------------------------------------

CHART = "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.umd.min.js"


@pytest.mark.parametrize(
    "url",
    [
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/../../../manifest.json",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/%2e%2e/%2E%2E/manifest.json",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/%252e%252e/LICENSE.md",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/..%2f..%2fmanifest.json",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist%5c..%5c..%5cmanifest.json",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1\\..\\manifest.json",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/./dist/chart.umd.min.js",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1//dist/chart.umd.min.js",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.umd.min.js%00.css",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/LICENSE.md",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/%2Fetc%2Fpasswd",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.umd.min.js/",
        "https://cdn.jsdelivr.net/npm/..%2F..%2F..%2Fetc/passwd",
        "https://cdn.jsdelivr.net/npm/chart.js@..%2F..%2F/dist/chart.umd.min.js",
        "https://user:pw@cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "https://cdn.jsdelivr.net@evil.example/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "https://cdn.jsdelivr.net:8443/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "https://cdn.jsdelivr.net:80/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "https://cdn.jsdelivr.net:99999/npm/chart.js",
        "https://cdn.jsdelivr.net.evil.example/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "https://evil.example/cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "https://cdn.jsdelivr.net./npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "file:///npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "ftp://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "javascript:alert(1)//cdn.jsdelivr.net/npm/chart.js",
        "//cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "https://[::1/npm/chart.js",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/%ff.js",
        "",
        "   ",
    ],
)
def test_no_trick_resolves_a_url_to_anything_but_a_listed_file(url: str) -> None:
    result = resolve(url)
    assert isinstance(result, NotBundled), (url, result)


@pytest.mark.parametrize(
    "url",
    [
        CHART + "?../../manifest.json",
        CHART + "#/../../manifest.json",
        CHART + "?v=1#x",
        "http://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "HTTPS://CDN.JSDELIVR.NET/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "https://cdn.jsdelivr.net:443/npm/chart.js@4.6.1/dist/chart.umd.min.js",
        "https://cdn.jsdelivr.net/npm/chart.js@4.6.1/dist/chart%2Eumd.min.js",
    ],
)
def test_queries_fragments_scheme_case_and_default_ports_change_nothing(
    url: str,
) -> None:
    assert _served(url).path == _served(CHART).path


def test_the_path_is_case_sensitive_as_the_cdns_are() -> None:
    assert isinstance(resolve(CHART.replace("chart.umd", "Chart.umd")), NotBundled)


# -- the record of the copies ---------------------------------------------------


def test_the_manifest_is_valid_and_every_file_has_its_recorded_hash() -> None:
    catalogue = load_catalogue(web_libraries.libraries_folder())
    assert verify_catalogue(catalogue) == []


def test_every_library_has_its_licence_and_a_licence_that_permits_shipping_it() -> None:
    catalogue = bundled_catalogue()
    for library in catalogue.libraries:
        assert library.licence in PERMITTED_LICENCES, library.package
        for version in library.versions:
            licence = catalogue.root / version.licence_file
            text = licence.read_text(encoding="utf-8")
            assert "permission" in text.lower() or "licen" in text.lower(), licence
            assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", version.integrity)


def test_every_library_is_reachable_from_jsdelivr_and_unpkg() -> None:
    for library in bundled_catalogue().libraries:
        patterns = [route.pattern for route in library.routes]
        assert (
            f"https://cdn.jsdelivr.net/npm/{library.package}{{@version}}{{/path}}"
            in patterns
        )
        assert f"https://unpkg.com/{library.package}{{@version}}{{/path}}" in patterns
        for version in library.versions:
            assert _served(f"https://unpkg.com/{library.package}@{version.text}").exact


def test_each_file_has_the_mime_type_of_its_kind_and_the_whole_stays_small() -> None:
    kinds = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css"}
    kinds |= {".woff2": "font/woff2", ".png": "image/png"}
    total = 0
    for library in bundled_catalogue().libraries:
        for version in library.versions:
            for entry in version.files.values():
                assert entry.mime == kinds[Path(entry.name).suffix], entry.name
                total += entry.size
    assert total < 25_000_000


# -- a copy or manifest that was tampered with ----------------------------------


def _copy(tmp_path: Path) -> Path:
    """A copy of the bundle holding jQuery alone."""
    source = web_libraries.libraries_folder()
    manifest = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    manifest["libraries"] = [
        library for library in manifest["libraries"] if library["package"] == "jquery"
    ]
    root = tmp_path / "libraries"
    shutil.copytree(source / "jquery", root / "jquery")
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def test_verify_finds_a_changed_a_missing_and_an_unlisted_file(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    assert verify_catalogue(load_catalogue(root)) == []
    changed = root / "jquery" / "4.1.0" / "dist" / "jquery.min.js"
    changed.write_bytes(changed.read_bytes() + b"\n")
    (root / "jquery" / "3.8.0" / "LICENSE.txt").unlink()
    (root / "jquery" / "3.8.0" / "dist" / "extra.js").write_text("1")
    problems = verify_catalogue(load_catalogue(root))
    assert len(problems) == 3
    assert any("SHA-256 differs" in p and "4.1.0" in p for p in problems)
    assert any("missing" in p and "LICENSE.txt" in p for p in problems)
    assert any("not in the manifest" in p and "extra.js" in p for p in problems)


def _pack(path: Path, data: bytes | None = None) -> Path:
    """Store ``path`` as the package build does: xz-compressed beside its name."""
    twin = web_libraries.packed_twin(path)
    twin.write_bytes(lzma.compress(path.read_bytes() if data is None else data))
    path.unlink()
    return twin


def test_a_packed_copy_verifies_and_reads_as_the_file_it_replaces(
    tmp_path: Path,
) -> None:
    root = _copy(tmp_path)
    script = root / "jquery" / "4.1.0" / "dist" / "jquery.min.js"
    original = script.read_bytes()
    twin = _pack(script)
    assert twin.stat().st_size < len(original) // 2
    assert verify_catalogue(load_catalogue(root)) == []
    assert web_libraries.read_library_file(script, len(original) + 1) == original
    served = resolve(
        "https://cdn.jsdelivr.net/npm/jquery@4.1.0/dist/jquery.min.js",
        load_catalogue(root),
    )
    assert isinstance(served, BundledFile)
    assert read_copy(served) == original


def test_a_packed_copy_changed_damaged_or_swollen_is_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    dist = root / "jquery" / "4.1.0" / "dist"
    changed = dist / "jquery.min.js"
    damaged = root / "jquery" / "3.8.0" / "dist" / "jquery.min.js"
    _pack(changed, changed.read_bytes() + b"\n")
    twin = _pack(damaged)
    twin.write_bytes(twin.read_bytes()[: twin.stat().st_size // 2])
    problems = verify_catalogue(load_catalogue(root))
    assert len(problems) == 2
    assert any("SHA-256 differs" in p and "jquery.min.js.xz" in p for p in problems)
    assert any("cannot be read" in p and "3.8.0" in p for p in problems)
    with pytest.raises(OSError, match="ends before its data does"):
        web_libraries.read_library_file(damaged, 1 << 30)
    # A bomb: 64 MiB of zeros packed into a few kilobytes is read only as far
    # as the caller asks, and refused as not the shipped copy.
    slim = dist / "jquery.slim.min.js"
    bomb = _pack(slim, bytes(64 << 20))
    assert bomb.stat().st_size < 64 << 10
    assert len(web_libraries.read_library_file(slim, 1000)) == 1000
    served = resolve(
        "https://cdn.jsdelivr.net/npm/jquery@4.1.0/dist/jquery.slim.min.js",
        load_catalogue(root),
    )
    assert isinstance(served, BundledFile)
    with pytest.raises(LibraryRefusedError, match="not the one it shipped with"):
        read_copy(served)


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("file", "../../../outside.js"),
        ("file", "/etc/passwd"),
        ("file", "dist\\..\\..\\outside.js"),
        ("file", "dist/./jquery.min.js"),
        ("alias", "../outside.js"),
        ("package", "../jquery"),
        ("version", "../../4.1.0"),
        ("licence", "../../outside/LICENSE"),
        (
            "pattern",
            "https://cdn.jsdelivr.net@evil.example/npm/jquery{@version}{/path}",
        ),
    ],
)
def test_a_manifest_that_points_outside_its_folder_is_refused(
    tmp_path: Path, where: str, value: str
) -> None:
    root = _copy(tmp_path)
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    library = manifest["libraries"][0]
    version = library["versions"][0]
    if where == "file":
        version["files"][value] = version["files"].pop("dist/jquery.min.js")
        version["default"] = value
        version["aliases"] = {}
    elif where == "alias":
        version["aliases"][value] = "dist/jquery.min.js"
    elif where == "package":
        library["package"] = value
    elif where == "version":
        version["version"] = value
    elif where == "licence":
        version["licence_file"] = value
    else:
        library["urls"][0]["pattern"] = value
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(CatalogueError):
        load_catalogue(root)


def test_a_broken_manifest_makes_every_url_not_bundled_without_raising(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(CatalogueError, match="manifest"):
        load_catalogue(tmp_path)

    def broken() -> None:
        raise CatalogueError("the manifest is not of format 1")

    monkeypatch.setattr("app.core.serve.web_libraries.lookup.bundled_catalogue", broken)
    result = resolve(CHART)
    assert isinstance(result, NotBundled) and "cannot be read" in result.reason
