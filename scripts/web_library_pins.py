"""The browser libraries the app bundles: which versions, files and CDN URLs.

Read by ``fetch_web_libraries.py`` beside it. To update a library, change its
version here and run that script; to add one, add a ``Library`` (its licence
must be one the script permits).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
