"""Libraries a page loads from CDNs are bound from the app's copies, and pointed at."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest

from app.core.serve.html_bind import bind_html
from app.core.serve.html_libraries import (
    LIBRARIES_FOLDER,
    key_url,
    map_specifier,
    mirror_key,
    module_specifiers,
    web_url,
)
from app.core.serve.manifest import MAX_BUNDLE_BYTES, Bundle
from app.core.serve.web_libraries import BundledFile, resolve
from app.core.trust.policy import Policy, builtin_rules
from app.core.trust.safeio import open_verified

POLICY = Policy(builtin_rules(), home="/nonexistent-home")
CHART = "https://cdn.jsdelivr.net/npm/chart.js"
KATEX_CSS = "https://cdn.jsdelivr.net/npm/katex@0.16.9/dist/katex.min.css"
THREE = "https://cdn.jsdelivr.net/npm/three@0.160.0/build/three.module.js"
ORIGIN = "http://127.0.0.1:1/cap/token/"


def _bind(root: Path, body: str, page: str = "index.html") -> Bundle:
    path = root / page
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<!DOCTYPE html><html><head></head><body>{body}</body></html>")
    with open_verified(str(path)) as opened:
        return bind_html(opened, str(path), str(root), POLICY)


def _served(bundle: Bundle) -> str:
    return bundle.entry.data.decode("utf-8")


def _browser_key(bundle: Bundle, url: str) -> str:
    """The key a browser asks for when the served page names ``url``."""
    page = urljoin(ORIGIN, bundle.entry_key)
    return unquote(urljoin(page, url)[len(ORIGIN) :].split("?", 1)[0])


def _copy(url: str) -> BundledFile:
    found = resolve(url)
    assert isinstance(found, BundledFile), found
    return found


def test_web_urls_are_absolute_and_scheme_relative_ones_are_https():
    assert web_url(CHART) == CHART
    assert web_url(" //cdn.jsdelivr.net/npm/chart.js") == CHART
    assert web_url("HTTP://d3js.org/d3.v7.min.js") == "HTTP://d3js.org/d3.v7.min.js"
    assert web_url("chart.js") is None
    assert web_url("/npm/chart.js") is None
    assert web_url("javascript:alert(1)") is None


def test_a_copy_is_served_at_a_key_mirroring_the_url_it_answers():
    assert mirror_key(CHART) == f"{LIBRARIES_FOLDER}/cdn.jsdelivr.net/npm/chart.js"
    assert mirror_key("https://cdn.tailwindcss.com?plugins=forms") == (
        f"{LIBRARIES_FOLDER}/cdn.tailwindcss.com/index"
    )
    assert mirror_key("https://CDN.jsdelivr.net/npm/a%40b/x.js") == (
        f"{LIBRARIES_FOLDER}/cdn.jsdelivr.net/npm/a@b/x.js"
    )
    assert mirror_key("https://cdn.jsdelivr.net/npm/../etc/passwd") is None
    assert mirror_key("https://user@cdn.jsdelivr.net/npm/chart.js") is None
    assert key_url("_libraries/h/a@1/x.js", "index.html") == "./_libraries/h/a@1/x.js"
    assert key_url("_libraries/h/x y.js", "a/b/page.html") == (
        "../../_libraries/h/x%20y.js"
    )


def test_module_specifiers_are_found_in_written_and_minified_code():
    code = (
        "import * as THREE from 'three';\n"
        'import { OrbitControls } from "three/addons/controls/OrbitControls.js";\n'
        "import './side-effect.js'; export * from \"./re-export.js\";\n"
        'const lazy = await import("https://cdn.example/lazy.js");\n'
        'import{a as b,c}from"./three.core.js";export{d}from"./d.js";\n'
    )
    assert module_specifiers(code) == [
        "three",
        "three/addons/controls/OrbitControls.js",
        "./side-effect.js",
        "./re-export.js",
        "https://cdn.example/lazy.js",
        "./three.core.js",
        "./d.js",
    ]


def test_an_import_map_maps_exact_names_and_the_longest_folder():
    imports = {"three": "T", "three/": "F/", "three/addons/": "A/"}
    assert map_specifier("three", imports) == "T"
    assert map_specifier("three/addons/x.js", imports) == "A/x.js"
    assert map_specifier("three/src/y.js", imports) == "F/src/y.js"
    assert map_specifier("react", imports) is None


def test_a_cdn_script_is_served_from_the_apps_checked_copy(tmp_path):
    original = f'<script src="{CHART}" defer></script><p id="x">hi</p>'
    bundle = _bind(tmp_path, original)
    key = mirror_key(CHART)
    assert key is not None
    copy = _copy(CHART)
    resource = bundle.resources[key]
    assert resource.data == copy.path.read_bytes()
    assert resource.sha256 == copy.sha256
    assert resource.content_type == "text/javascript"
    assert resource.public
    assert not bundle.entry.public
    assert f'<script src="./{key}" defer></script>' in _served(bundle)
    assert _browser_key(bundle, f"./{key}") == key
    # "Source" shows the page as its file has it.
    assert CHART in bundle.source.decode()
    assert bundle.left_out == ()
    (library,) = bundle.libraries
    assert (library.library, library.version, library.host) == (
        copy.library,
        copy.version,
        "cdn.jsdelivr.net",
    )
    assert library.reference == CHART and library.in_place_of == ""


def test_a_page_without_web_references_is_served_byte_for_byte(tmp_path):
    bundle = _bind(tmp_path, "<script>let x = 1;</script>")
    assert bundle.page_source is None
    assert bundle.source == bundle.entry.data == (tmp_path / "index.html").read_bytes()


def test_a_nearby_version_and_a_scheme_relative_url_are_served_and_said(tmp_path):
    bundle = _bind(
        tmp_path,
        '<script src="//cdn.plot.ly/plotly-2.27.0.min.js"></script>',
        "reports/q3/index.html",
    )
    key = f"{LIBRARIES_FOLDER}/cdn.plot.ly/plotly-2.27.0.min.js"
    assert bundle.resources[key].public
    assert f'src="../../{key}"' in _served(bundle)
    assert _browser_key(bundle, f"../../{key}") == key
    (library,) = bundle.libraries
    assert library.library == "Plotly" and library.in_place_of == "2.27.0"


def test_the_integrity_hash_of_the_cdns_bytes_is_dropped_other_attributes_kept(
    tmp_path,
):
    bundle = _bind(
        tmp_path,
        '<link rel="stylesheet"\n  href="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3'
        '/dist/css/bootstrap.min.css" integrity="sha384-QWTKZyjpPEjISv5WaRU9OFeRpok6'
        'YctnYmDr5pNlyT2bRjXh0JMhjY6hW+ALEwIH" crossorigin="anonymous" media=all>',
    )
    served = _served(bundle)
    assert "integrity" not in served
    assert re.search(
        r'<link rel="stylesheet" href="\./_libraries/cdn\.jsdelivr\.net/npm/'
        r'bootstrap@5\.3\.3/dist/css/bootstrap\.min\.css" crossorigin="anonymous"'
        r' media="all">',
        served,
    ), served


def test_the_fonts_a_stylesheet_names_are_bound_where_the_browser_looks(tmp_path):
    bundle = _bind(tmp_path, f'<link rel="stylesheet" href="{KATEX_CSS}">')
    css_key = mirror_key(KATEX_CSS)
    assert css_key is not None
    css = bundle.resources[css_key].data.decode()
    fonts = re.findall(r"url\((fonts/[^)]+\.woff2)\)", css)
    assert len(fonts) >= 10
    for font in fonts:
        # The browser resolves the stylesheet's url() against the key it was
        # served at; that key must hold the font, from the app's copy.
        key = _browser_key(bundle, urljoin(f"./{css_key}", font))
        assert bundle.resources[key].content_type == "font/woff2"
        assert bundle.resources[key].public
        expected = _copy(urljoin(KATEX_CSS, font))
        assert bundle.resources[key].sha256 == expected.sha256
    # woff and ttf are named after woff2 and not shipped: nothing is listed.
    assert bundle.left_out == ()
    assert [copy.library for copy in bundle.libraries] == ["KaTeX"]


def test_a_stylesheet_naming_a_parent_folder_gets_its_fonts_too(tmp_path):
    url = "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css"
    bundle = _bind(tmp_path, f'<link rel="stylesheet" href="{url}">')
    css_key = mirror_key(url)
    assert css_key is not None
    solid = _browser_key(
        bundle, urljoin(f"./{css_key}", "../webfonts/fa-solid-900.woff2")
    )
    assert solid.endswith("font-awesome/6.4.0/webfonts/fa-solid-900.woff2")
    assert bundle.resources[solid].content_type == "font/woff2"


THREE_PAGE = f"""
<script type="importmap">
  {{ "imports": {{ "three": "{THREE}",
    "three/addons/": "https://cdn.jsdelivr.net/npm/three@0.160.0/examples/jsm/" }} }}
</script>
<script type="module">
  import * as THREE from 'three';
  import {{ OrbitControls }} from 'three/addons/controls/OrbitControls.js';
</script>
"""


def test_an_import_map_is_pointed_at_the_copies_and_their_imports_bound(tmp_path):
    bundle = _bind(tmp_path, THREE_PAGE)
    served = _served(bundle)
    found = re.search(r'<script type="importmap">(.*?)</script>', served, re.S)
    assert found is not None
    imports = json.loads(found.group(1))["imports"]
    module_key = mirror_key(THREE)
    assert module_key is not None
    assert _browser_key(bundle, imports["three"]) == module_key
    controls = _browser_key(
        bundle, imports["three/addons/"] + "controls/OrbitControls.js"
    )
    assert bundle.resources[controls].public
    # three.module.js imports "./three.core.js": bound beside it.
    core = _browser_key(bundle, urljoin(f"./{module_key}", "./three.core.js"))
    assert (
        bundle.resources[core].data
        == _copy(urljoin(THREE, "three.core.js")).path.read_bytes()
    )
    assert bundle.left_out == ()
    (library,) = bundle.libraries
    assert library.library == "three.js" and library.in_place_of == "0.160.0"


def test_a_module_importing_a_full_url_gets_an_import_map_of_the_apps(tmp_path):
    body = (
        "<p>before</p>\n<script type=module>\n"
        f"import * as THREE from '{THREE}';\n</script>"
    )
    bundle = _bind(tmp_path, body)
    served = _served(bundle)
    added = served.index('<script type="importmap">')
    assert served.index("<p>before</p>") < added < served.index("<script type=module>")
    found = re.search(r'<script type="importmap">(.*?)</script>', served, re.S)
    assert found is not None
    imports = json.loads(found.group(1))["imports"]
    assert _browser_key(bundle, imports[THREE]) == mirror_key(THREE)


def test_what_the_app_has_no_copy_of_is_left_out_with_what_and_why(tmp_path):
    bundle = _bind(
        tmp_path,
        '<link href="https://fonts.googleapis.com/css2?family=Inter" rel="stylesheet">'
        '<script src="https://cdn.jsdelivr.net/npm/mermaid@10/dist/mermaid.min.js">'
        '</script><img src="https://example.com/logo.png">'
        "<script type=module>import confetti from 'https://esm.sh/canvas-confetti';"
        "</script>",
    )
    left = {item.reference: item for item in bundle.left_out}
    fonts = left["https://fonts.googleapis.com/css2?family=Inter"]
    assert (fonts.reason, fonts.what) == ("remote", "stylesheet")
    assert fonts.detail.startswith("previews are offline")
    mermaid = left["https://cdn.jsdelivr.net/npm/mermaid@10/dist/mermaid.min.js"]
    assert mermaid.what == "script"
    assert "Mermaid 10 is not bundled" in mermaid.detail
    assert left["https://example.com/logo.png"].what == "image"
    assert left["https://esm.sh/canvas-confetti"].what == "module"
    assert set(bundle.resources) == {"index.html"}
    assert bundle.page_source is None  # nothing pointed anywhere else


def test_a_copy_that_differs_from_its_record_is_refused(tmp_path, monkeypatch):
    from app.core.serve import html_libraries

    real = _copy(CHART)
    changed = tmp_path / "chart.umd.min.js"
    changed.write_bytes(real.path.read_bytes()[:-1] + b";")

    def tampered(url: str) -> BundledFile:
        found = _copy(url)
        return BundledFile(**{**found.__dict__, "path": changed})

    monkeypatch.setattr(html_libraries, "resolve", tampered)
    bundle = _bind(tmp_path / "ws", f'<script src="{CHART}"></script>')
    (item,) = bundle.left_out
    assert item.reason == "library"
    assert "is not the one it shipped with" in item.detail
    assert set(bundle.resources) == {"index.html"}
    assert hashlib.sha256(changed.read_bytes()).hexdigest() != real.sha256


def test_a_full_bundle_leaves_the_library_out(tmp_path):
    # Nine images of 3.2 MiB leave less room than Plotly's 4.3 MiB.
    each = MAX_BUNDLE_BYTES // 10
    images = "".join(f'<img src="b{i}.png">' for i in range(9))
    for index in range(9):
        (tmp_path / f"b{index}.png").write_bytes(b"\x89PNG" + bytes(each - 4))
    bundle = _bind(
        tmp_path,
        images + '<script src="https://cdn.plot.ly/plotly-2.35.3.min.js"></script>',
    )
    reasons = {item.reference: item.reason for item in bundle.left_out}
    assert reasons == {"https://cdn.plot.ly/plotly-2.35.3.min.js": "bundle_full"}
    assert bundle.total_bytes <= MAX_BUNDLE_BYTES


def test_a_page_in_a_legacy_charset_is_served_as_the_same_text_in_utf_8(tmp_path):
    page = tmp_path / "index.html"
    page.write_bytes(
        b'<meta charset="windows-1252"><p>caf\xe9 \x80</p>'
        b'<script src="https://d3js.org/d3.v7.min.js"></script>'
    )
    with open_verified(str(page)) as opened:
        bundle = bind_html(opened, str(page), str(tmp_path), POLICY)
    assert bundle.entry.content_type == "text/html; charset=utf-8"
    assert "<p>café €</p>" in _served(bundle)
    assert bundle.source == page.read_bytes()


@pytest.mark.parametrize(
    "markup",
    [
        '<script src="https://cdn.jsdelivr.net/npm/chart.js"',
        '<script type="importmap">{"imports": {"a": 1}}</script>',
        '<script type="importmap">[1, 2]</script><script type=module></script>',
        '<script type="importmap">{"imports": {"x": "https://cdn.jsdelivr.net/npm/'
        'chart.js"}}',
        "<script type=module>import x from '//';</script>",
        '<script type="importmap">{"scopes": {"/": {"three": "https://cdn.jsdelivr.net'
        '/npm/three@0.160.0/build/three.module.js"}}}</script>'
        "<script type=module>import * as T from 'https://unpkg.com/three@0.160.0/build"
        "/three.module.js';</script>",
        '<script type="importmap">' + "[" * 5000 + "</script>",
    ],
)
def test_broken_maps_and_tags_never_crash_binding(tmp_path, markup):
    _bind(tmp_path, markup)
