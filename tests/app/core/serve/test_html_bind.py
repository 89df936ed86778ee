"""Binding collects a page's direct local dependencies and snapshots them."""

from __future__ import annotations

import hashlib
import os
import random
import threading
from pathlib import Path

import pytest

from app.core.serve.html_bind import (
    MAX_LISTED,
    BindCancelledError,
    BindError,
    bind_html,
    bind_image_page,
    bind_single,
    decode_html,
    resolve_reference,
    unknown_charset,
    wrap_image_page,
)
from app.core.serve.html_scan import SCAN_CHUNK
from app.core.serve.manifest import Bundle, LeftOut, content_type_for, is_canonical_key
from app.core.trust.policy import Policy, Rule, builtin_rules
from app.core.trust.safeio import open_verified
from app.demo.workspace import source_text

POLICY = Policy(builtin_rules(), home="/nonexistent-home")


def _bind(root: Path, page: str = "index.html", policy: Policy = POLICY) -> Bundle:
    path = root / page
    with open_verified(str(path)) as opened:
        return bind_html(opened, str(path), str(root), policy)


def _page(root: Path, body: str, name: str = "index.html") -> None:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(f"<!DOCTYPE html><html><body>{body}</body></html>")


def _reasons(bundle: Bundle) -> dict[str, str]:
    return {item.reference: item.reason for item in bundle.left_out}


def test_the_demo_report_binds_its_stylesheet_script_and_image(tmp_path):
    report = tmp_path / "report"
    report.mkdir()
    (report / "index.html").write_bytes(source_text("report_html"))
    (report / "style.css").write_bytes(source_text("report_css"))
    (report / "chart.js").write_bytes(source_text("report_js"))
    (report / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))

    bundle = _bind(tmp_path, "report/index.html")

    assert bundle.entry_key == "report/index.html"
    assert set(bundle.resources) == {
        "report/index.html",
        "report/style.css",
        "report/chart.js",
        "report/chart.png",
    }
    script = bundle.resources["report/chart.js"]
    assert script.content_type == "text/javascript"
    assert script.data == source_text("report_js")
    assert script.sha256 == hashlib.sha256(script.data).hexdigest()
    assert bundle.resources["report/style.css"].content_type == "text/css"
    assert bundle.resources["report/chart.png"].content_type == "image/png"
    assert bundle.entry.content_type == "text/html; charset=utf-8"
    # The JSON data block is not a script that runs, so nothing is reported.
    assert bundle.left_out == ()
    assert bundle.total_bytes == sum(len(r.data) for r in bundle.resources.values())


def test_every_listed_element_kind_is_bound(tmp_path):
    names = [
        "a.css",
        "b.js",
        "c.png",
        "d1.png",
        "d2.png",
        "e.mp3",
        "f.mp4",
        "g.jpg",
        "h.webm",
        "i.vtt",
        "j.webp",
        "k.avif",
    ]
    for name in names:
        (tmp_path / name).write_bytes(name.encode())
    _page(
        tmp_path,
        '<link rel="alternate StyleSheet" href="a.css">'
        '<script type="text/javascript; charset=utf-8" src="b.js"></script>'
        '<img src="c.png" srcset="d1.png 1x, d2.png 2x">'
        '<audio src="e.mp3"></audio>'
        '<video src="f.mp4" poster="g.jpg"><source src="h.webm">'
        '<track src="i.vtt"></video>'
        '<picture><source srcset="j.webp"><source srcset="k.avif 2x"></picture>',
    )
    bundle = _bind(tmp_path)
    assert set(bundle.resources) == {"index.html", *names}
    assert bundle.left_out == ()


def test_module_and_non_javascript_scripts_are_listed_not_bound(tmp_path):
    (tmp_path / "m.js").write_text("export {}")
    (tmp_path / "t.js").write_text("x")
    _page(
        tmp_path,
        '<script type="module" src="m.js"></script>'
        '<script type="text/template" src="t.js"></script>',
    )
    bundle = _bind(tmp_path)
    assert set(bundle.resources) == {"index.html"}
    assert _reasons(bundle) == {"m.js": "module", "t.js": "not_bound"}


@pytest.mark.parametrize(
    ("reference", "reason"),
    [
        ("https://example.com/x.js", "remote"),
        ("HTTP://example.com/x.js", "remote"),
        ("//example.com/x.js", "remote"),
        ("javascript:alert(1)", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("data:text/javascript,alert(1)", "scheme"),
        ("/etc/passwd.js", "absolute"),
        ("../../outside.js", "outside"),
        ("..\\outside.js", "invalid"),
        ("sub%2Fx.js", "invalid"),
        ("sub%5cx.js", "invalid"),
        ("x.js%00.png", "invalid"),
        ("x%zz.js", "invalid"),
        ("%ff.js", "invalid"),
        ("sub//x.js", "invalid"),
        ("sub/", "invalid"),
        ("sub/..", "invalid"),
        ("nope.js", "missing"),
        ("sub", "type"),
        ("notes.txt", "type"),
    ],
)
def test_references_that_cannot_be_bound_are_listed_with_a_reason(
    tmp_path, reference, reason
):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.js").write_text("x")
    (tmp_path / "x.js").write_text("x")
    (tmp_path / "notes.txt").write_text("x")
    _page(tmp_path, f'<script src="{reference}"></script>')
    bundle = _bind(tmp_path)
    assert set(bundle.resources) == {"index.html"}
    assert bundle.left_out[0].reference == reference
    assert bundle.left_out[0].reason == reason
    assert bundle.left_out[0].detail


def test_image_data_urls_and_empty_references_are_not_listed(tmp_path):
    _page(tmp_path, '<img src="data:image/png;base64,AAAA"><img src=""><img src="#x">')
    bundle = _bind(tmp_path)
    assert bundle.left_out == ()


def test_query_fragment_and_escapes_are_removed_from_the_key(tmp_path):
    (tmp_path / "my file.css").write_text("a")
    (tmp_path / "café.png").write_bytes(b"b")
    _page(
        tmp_path,
        '<link rel=stylesheet href="my%20file.css?v=2#top">'
        '<img src="caf%C3%A9.png"><img src=" ./caf\té.png ">',
    )
    bundle = _bind(tmp_path)
    assert set(bundle.resources) == {"index.html", "my file.css", "café.png"}


def test_a_sibling_folder_inside_the_workspace_is_bound_with_a_root_relative_key(
    tmp_path,
):
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "logo.png").write_bytes(b"logo")
    _page(tmp_path, '<img src="../assets/logo.png">', "report/index.html")
    bundle = _bind(tmp_path, "report/index.html")
    assert "assets/logo.png" in bundle.resources
    assert all(is_canonical_key(key) for key in bundle.resources)


def test_an_external_page_binds_only_inside_its_own_folder(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    outside = tmp_path / "elsewhere" / "page"
    outside.mkdir(parents=True)
    (outside / "own.css").write_text("a")
    (outside.parent / "parent.css").write_text("b")
    _page(
        outside,
        '<link rel=stylesheet href="own.css">'
        '<link rel=stylesheet href="../parent.css">',
    )
    path = outside / "index.html"
    with open_verified(str(path)) as opened:
        bundle = bind_html(opened, str(path), str(workspace), POLICY)
    assert bundle.entry_key == "index.html"
    assert set(bundle.resources) == {"index.html", "own.css"}
    assert _reasons(bundle) == {"../parent.css": "outside"}


def test_duplicate_references_bind_once(tmp_path):
    (tmp_path / "a.png").write_bytes(b"a")
    _page(tmp_path, '<img src="a.png"><img src="./a.png?x"><img srcset="a.png 2x">')
    bundle = _bind(tmp_path)
    assert list(bundle.resources) == ["index.html", "a.png"]


def test_frames_objects_embeds_base_and_loading_links_are_listed(tmp_path):
    _page(
        tmp_path,
        '<iframe src="f.html"></iframe><object data="o.pdf"></object>'
        '<embed src="e.swf"><base href="https://evil.example/">'
        '<link rel="icon" href="favicon.ico"><link rel="canonical" href="x.html">',
    )
    reasons = _reasons(_bind(tmp_path))
    assert reasons == {
        "f.html": "not_bound",
        "o.pdf": "not_bound",
        "e.swf": "not_bound",
        "https://evil.example/": "base",
        "favicon.ico": "not_bound",
    }


def test_css_references_are_listed_never_bound(tmp_path):
    (tmp_path / "style.css").write_text(
        "@import 'more.css'; body { background: url(\"bg.png\") }"
        "i { background: url(data:image/png;base64,AA) }"
    )
    (tmp_path / "bg.png").write_bytes(b"x")
    _page(
        tmp_path,
        '<link rel=stylesheet href="style.css"><style>@import url(x.css);</style>'
        "<p style=\"background:url('font.woff2')\">",
    )
    bundle = _bind(tmp_path)
    assert "bg.png" not in bundle.resources
    assert _reasons(bundle) == {
        "x.css": "css",
        "font.woff2": "css",
        "more.css": "css",
        "bg.png": "css",
    }


def test_inline_scripts_run_and_crossorigin_loads_of_own_files_are_reported(
    tmp_path,
):
    (tmp_path / "a.js").write_text("x")
    _page(
        tmp_path,
        "<script>alert(1)</script><script>alert(2)</script>"
        '<script src="a.js" crossorigin></script>',
    )
    bundle = _bind(tmp_path)
    assert set(bundle.resources) == {"index.html"}
    assert _reasons(bundle) == {"a.js": "cors"}


def test_the_listing_is_capped_with_a_summary_entry(tmp_path):
    _page(tmp_path, "".join(f'<img src="https://x/{i}.png">' for i in range(500)))
    left_out = _bind(tmp_path).left_out
    assert len(left_out) == MAX_LISTED + 1
    assert left_out[-1] == LeftOut("300 more", "not_listed", "not listed one by one")


def test_a_denied_page_is_refused(tmp_path):
    _page(tmp_path, "", "page.html")
    policy = Policy([Rule("page.html", "test")], home="/nonexistent-home")
    with pytest.raises(BindError, match=r"page\.html"):
        _bind(tmp_path, "page.html", policy)


def test_a_page_that_changes_while_bound_is_refused(tmp_path):
    _page(tmp_path, "<p>one</p>")
    path = tmp_path / "index.html"
    with open_verified(str(path)) as opened:
        with path.open("a") as handle:
            handle.write("<p>two</p>")
        with pytest.raises(BindError, match="changed"):
            bind_html(opened, str(path), str(tmp_path), POLICY)


MALFORMED = [
    b"<html><body><img src='a.png'",
    b'<img src="a.png',
    b"<<<>>><img src=a.png>",
    b"<![if !IE]><img src=a.png><![endif]>",
    b"<![CDATA[<img src=a.png>",
    b"<![ foo <img src=a.png>",
    b"<![x[ y",
    b"<!DOCTYPE",
    b"<! <? <%  <img src==a.png===>",
    b"<script src=a.png><script",
    b"<style>url(",
    b"<img src=a.png srcset=',,,,((((, a.png 1x,'>",
    b"<img " + b"x" * 200_000 + b"=" + b"y" * 2_000_000 + b">",
    b"<img src='" + b"a" * 3_000_000 + b"'>",
    b"\x00\x01\x02<img\x00src=a.png>\xff\xfe",
    bytes(range(256)) * 64,
    b"<table><tr><td><img src=a.png></table></td></tr>" * 1000,
    b"<svg><image href=a.png/><foreignObject><img src=a.png></foreignObject>",
    b"&#x110000;&#0;&amp<img src='&#97;.png'>",
]


@pytest.mark.parametrize("markup", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_html_never_crashes_binding(tmp_path, markup):
    (tmp_path / "a.png").write_bytes(b"png")
    (tmp_path / "index.html").write_bytes(markup)
    bundle = _bind(tmp_path)
    assert bundle.entry.data == markup
    assert set(bundle.resources) <= {"index.html", "a.png"}


def test_a_broken_marked_section_keeps_what_came_before_it(tmp_path):
    (tmp_path / "a.png").write_bytes(b"png")
    (tmp_path / "b.png").write_bytes(b"png")
    (tmp_path / "index.html").write_text("<img src=a.png><![ x <img src=b.png>")
    bundle = _bind(tmp_path)
    assert set(bundle.resources) == {"index.html", "a.png"}
    assert _reasons(bundle) == {"(rest of the page)": "unparsed"}


def test_random_bytes_never_crash_binding(tmp_path):
    generator = random.Random(6)
    alphabet = b"<>/=\"' !-[]?&#;abcimgsrcptlinkhref\x00\n"
    for _ in range(200):
        size = generator.randrange(1, 400)
        markup = bytes(generator.choice(alphabet) for _ in range(size))
        (tmp_path / "index.html").write_bytes(markup)
        _bind(tmp_path)


def test_tabs_and_newlines_are_dropped_and_dots_resolved_once():
    assert resolve_reference("im\tg/./a\n.png", ("r",)) == ("r", "img", "a.png")
    assert resolve_reference("../x/%2e%2e/y.png", ("r", "s")) == ("r", "y.png")


def test_the_declared_charset_is_used_and_served():
    page = '<meta charset="iso-8859-1"><img src="caf\xe9.png">'.encode("latin-1")
    text, charset = decode_html(page)
    assert "café.png" in text
    assert charset == "iso-8859-1"
    assert decode_html(b"\xef\xbb\xbfok") == ("ok", "utf-8")
    assert decode_html(b"\xe9t\xe9") == ("été", "windows-1252")


def test_content_types_come_from_the_fixed_table():
    assert content_type_for("A.JPG") == "image/jpeg"
    assert content_type_for("x.svg") == "image/svg+xml"
    assert content_type_for("x.mjs") is None
    assert content_type_for("Makefile") is None


def test_the_image_page_escapes_alt_text_and_quotes_the_key():
    page = wrap_image_page('a "b" <c>.svg', '"><script>alert(1)</script>').decode()
    assert "<script>" not in page
    assert 'src="a%20%22b%22%20%3Cc%3E.svg"' in page
    assert 'alt="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in page


def test_an_svg_is_bound_behind_a_generated_image_page(tmp_path):
    svg = tmp_path / "diagram.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>')
    with open_verified(str(svg)) as opened:
        bundle = bind_image_page(opened, str(svg), alt="Diagram")
    assert bundle.entry_key == "index.html"
    assert bundle.resources["diagram.svg"].content_type == "image/svg+xml"
    assert b'<img src="diagram.svg" alt="Diagram">' in bundle.entry.data


def test_single_files_need_a_served_type(tmp_path):
    path = tmp_path / "notes.bin"
    path.write_bytes(b"x")
    with open_verified(str(path)) as opened, pytest.raises(BindError):
        bind_single(opened, str(path))
    with open_verified(str(path)) as opened:
        bundle = bind_single(opened, str(path), "image/png")
    assert bundle.entry.data == b"x"


def test_a_symlinked_parent_folder_is_left_out(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.png").write_bytes(b"a")
    os.symlink(tmp_path / "real", tmp_path / "linked")
    _page(tmp_path, '<img src="linked/a.png">')
    assert _reasons(_bind(tmp_path)) == {"linked/a.png": "symlink"}


@pytest.mark.parametrize(
    "label", ["hex", "base64", "rot13", "zlib", "idna", "utf-7", "unicode_escape"]
)
def test_a_charset_that_is_no_text_encoding_of_the_web_is_unknown(tmp_path, label):
    page = f'<meta charset="{label}"><img src="caf\xe9.png">'.encode()
    assert decode_html(page) == (page.decode(), "utf-8")
    assert unknown_charset(page) == label
    (tmp_path / "café.png").write_bytes(b"png")
    (tmp_path / "index.html").write_bytes(page)
    bundle = _bind(tmp_path)
    assert bundle.entry.content_type == "text/html; charset=utf-8"
    assert "café.png" in bundle.resources
    assert _reasons(bundle) == {f"<meta charset={label}>": "charset"}
    assert unknown_charset(b'<meta charset="shift_jis">') == ""
    assert unknown_charset(b'<meta charset="nonsense">') == "nonsense"


# Markup on which the parser rescanned the rest of the page from every "<":
# 10,000 unclosed "<a " took 17 s, so 100,000 would take half an hour.
PATHOLOGICAL = {
    "unclosed-tags": "<a " * 100_000,
    "unclosed-names": "<a" * 100_000,
    "unclosed-quotes": "<a x='" * 100_000,
    "then-an-image": "<a " * 100_000 + "<img src=a.png>" + "<a " * 100_000,
}


@pytest.mark.parametrize("markup", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_binding_unclosed_markup_takes_one_pass(tmp_path, markup):
    (tmp_path / "a.png").write_bytes(b"png")
    (tmp_path / "index.html").write_text(markup)
    done: list[Bundle] = []
    worker = threading.Thread(target=lambda: done.append(_bind(tmp_path)), daemon=True)
    worker.start()
    worker.join(120)  # a hang guard only: one pass takes a fraction of a second
    assert done, "binding did not finish"
    assert done[0].entry.data == markup.encode()


def test_binding_stops_when_cancelled(tmp_path):
    (tmp_path / "a.png").write_bytes(b"png")
    (tmp_path / "index.html").write_text("<img src=a.png>" * (SCAN_CHUNK // 5))
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 1  # after the first chunk

    path = tmp_path / "index.html"
    with open_verified(str(path)) as opened, pytest.raises(BindCancelledError):
        bind_html(opened, str(path), str(tmp_path), POLICY, cancelled)
    assert len(asked) == 2


def test_a_page_read_elsewhere_binds_its_dependencies_through_the_given_fetch() -> None:
    from app.core.serve.html_bind import Skip, bind_document
    from app.core.trust.safeio import SafeOpenError

    asked: list[tuple[str, int]] = []

    def fetch(path: str, budget: int) -> bytes:
        asked.append((path, budget))
        if path.endswith("link.css"):
            raise SafeOpenError("symlink", "the file is a symbolic link")
        if path.endswith("moved.js"):
            raise Skip("changed", "the file changed while it was being read")
        return b"h1 { color: red }"

    page = (
        b"<link rel=stylesheet href=style.css><link rel=stylesheet href=link.css>"
        b"<script src=moved.js></script><link rel=stylesheet href=.env>"
    )
    bundle = bind_document(page, "/srv/ws", ("site", "index.html"), POLICY, fetch)
    assert bundle.entry_key == "site/index.html"
    assert bundle.resources["site/style.css"].data == b"h1 { color: red }"
    assert _reasons(bundle) == {
        "link.css": "symlink",
        "moved.js": "changed",
        ".env": "denied",  # the policy is asked before the fetch: never fetched
    }
    assert [path for path, _budget in asked] == [
        "/srv/ws/site/style.css",
        "/srv/ws/site/link.css",
        "/srv/ws/site/moved.js",
    ]
    assert asked[0][1] == 32 * 1024 * 1024 - len(page)
