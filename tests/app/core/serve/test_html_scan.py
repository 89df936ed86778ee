"""Reading a page for what it loads: references, where they are, module scripts."""

from __future__ import annotations

from app.core.serve.html_scan import (
    PageScan,
    css_references,
    css_urls,
    is_web_url,
    srcset_urls,
)


def _scan(markup: str) -> PageScan:
    scan = PageScan()
    scan.scan(markup)
    return scan


def test_srcset_candidates_follow_the_standard_splitting():
    assert srcset_urls("a.png 1x, b.png 2x") == ["a.png", "b.png"]
    assert srcset_urls("a,b.png 100w,c.png") == ["a,b.png", "c.png"]
    assert srcset_urls("x.png (max-width: 1px, 2px) 1x, y.png") == ["x.png", "y.png"]
    assert srcset_urls(" , ,") == []


def test_css_urls_skip_data_urls():
    css = "@import url('a.css'); b{background:url(data:x)} c{src:url( f.woff )}"
    assert css_urls(css) == ["a.css", "f.woff"]
    assert css_references(css) == [("a.css", "stylesheet"), ("f.woff", "file")]


def test_web_urls_are_http_https_and_scheme_relative_ones():
    assert is_web_url("https://cdn.jsdelivr.net/npm/chart.js")
    assert is_web_url(" HTTP://example.com/x.js")
    assert is_web_url("//cdn.example/x.js")
    assert not is_web_url("lib/x.js")
    assert not is_web_url("/x.js")
    assert not is_web_url("data:text/javascript,1")


def test_each_reference_keeps_its_tag_as_written():
    markup = (
        '<html>\n<head>\n  <script\n    src="https://cdn.jsdelivr.net/npm/chart.js"'
        " defer></script>\n<link REL=stylesheet href=a&amp;b.css></head>"
    )
    scan = _scan(markup)
    script, sheet = scan.references
    assert (script.what, script.attribute, script.module) == ("script", "src", False)
    assert script.tag is not None and script.tag.line == 3 and script.tag.column == 2
    assert script.tag.text.startswith("<script\n    src=")
    assert ("defer", None) in script.tag.attributes
    assert sheet.url == "a&b.css"  # character references decoded, as a browser does
    assert sheet.what == "stylesheet" and sheet.attribute == "href"
    assert sheet.tag is not None
    assert sheet.tag.text == "<link REL=stylesheet href=a&amp;b.css>"


def test_import_maps_and_inline_module_scripts_are_kept_with_their_ends():
    markup = (
        '<script type="importmap">{"imports": {"three": "https://x/three.js"}}'
        "</script>\n"
        "<script type=module>import * as THREE from 'three';</script>"
        "<script>classic()</script>"
    )
    scan = _scan(markup)
    (imports,) = scan.import_maps
    assert imports.text == '{"imports": {"three": "https://x/three.js"}}'
    assert (imports.end_line, imports.end_column) == (1, 25 + len(imports.text))
    (module,) = scan.module_scripts
    assert module.text == "import * as THREE from 'three';"
    assert scan.first_module_tag is imports.tag


def test_web_references_in_css_are_named_as_from_the_web():
    scan = _scan(
        "<style>@import url('https://fonts.googleapis.com/css2?family=Inter');"
        " .x { background: url(local.png) }</style>"
    )
    found = {note.reference: (note.reason, note.what) for note in scan.notes}
    assert found == {
        "https://fonts.googleapis.com/css2?family=Inter": ("remote", "stylesheet"),
        "local.png": ("css", ""),
    }


def test_inline_scripts_are_not_listed_any_more():
    scan = _scan("<script>alert(1)</script><button onclick='go()'>go</button>")
    assert scan.notes == [] and scan.references == []


def test_a_babel_script_file_is_listed_with_why():
    scan = _scan('<script type="text/babel" src="app.jsx"></script>')
    (note,) = scan.notes
    assert note.reference == "app.jsx"
    assert "network" in note.detail
