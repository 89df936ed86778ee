"""The page's bar: the library copies used, what the web would have given, in words."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from app.core.serve.manifest import LeftOut, LibraryCopy
from previewers.web.info_bar import PageInfoBarWidget

CHART = LibraryCopy(
    "https://cdn.jsdelivr.net/npm/chart.js", "Chart.js", "4.6.1", "cdn.jsdelivr.net"
)
PLOTLY = LibraryCopy(
    "https://cdn.plot.ly/plotly-2.27.0.min.js",
    "Plotly",
    "2.35.3",
    "cdn.plot.ly",
    "2.27.0",
)
FONTS = LeftOut(
    "https://fonts.googleapis.com/css2?family=Inter",
    "remote",
    "previews are offline; the app has no bundled library at fonts.googleapis.com",
    "stylesheet",
)
API = LeftOut(
    "https://api.example.com/data.js", "remote", "previews are offline", "script"
)


def _bar(qtbot: Any) -> PageInfoBarWidget:
    bar = PageInfoBarWidget()
    qtbot.addWidget(bar)
    return bar


def test_a_library_copy_is_named_with_the_host_the_page_asked(qtbot):
    bar = _bar(qtbot)
    bar.set_libraries([CHART])
    assert bar.summary_text() == (
        "Using the app's copy of Chart.js 4.6.1 (page asks for cdn.jsdelivr.net)."
    )
    assert bar.lines() == [
        "App's copy of Chart.js 4.6.1: for https://cdn.jsdelivr.net/npm/chart.js"
    ]


def test_another_version_is_said_to_stand_in(qtbot):
    bar = _bar(qtbot)
    bar.set_libraries([CHART, PLOTLY])
    assert bar.summary_text() == (
        "Using the app's copies of Chart.js 4.6.1 and Plotly 2.35.3 in place of "
        "2.27.0 (page asks for cdn.jsdelivr.net and cdn.plot.ly)."
    )


def test_what_the_page_loads_from_the_web_is_named_by_host_and_kind(qtbot):
    bar = _bar(qtbot)
    bar.set_left_out([FONTS, API, LeftOut("nope.png", "missing", "no such file")])
    assert bar.summary_text() == (
        "This page loads 2 things from the web; previews are offline: "
        "fonts.googleapis.com (stylesheet), api.example.com (script). "
        "1 resource left out."
    )
    assert bar.lines() == [
        "Left out: https://fonts.googleapis.com/css2?family=Inter — stylesheet from "
        "the web: previews are offline; the app has no bundled library at "
        "fonts.googleapis.com",
        "Left out: https://api.example.com/data.js — script from the web: previews "
        "are offline",
        "Left out: nope.png — no such file",
    ]


def test_many_hosts_are_counted_past_the_first_few(qtbot):
    bar = _bar(qtbot)
    hosts = [f"https://h{index}.example/x.js" for index in range(5)]
    bar.set_left_out(
        [LeftOut(url, "remote", "previews are offline", "script") for url in hosts]
    )
    assert bar.summary_text() == (
        "This page loads 5 things from the web; previews are offline: "
        "h0.example (script), h1.example (script), h2.example (script) and 2 more."
    )


def test_page_text_in_the_bar_is_never_read_as_markup(qtbot):
    bar = _bar(qtbot)
    planted = '<img src="/etc/hostname"><b>bold</b>'
    bar.set_left_out(
        [LeftOut(f"https://x.example/{planted}", "remote", planted, "image")]
    )
    bar.set_libraries([LibraryCopy(planted, "Chart.js", "4.6.1", "cdn.jsdelivr.net")])
    assert bar.summary.textFormat() is Qt.TextFormat.PlainText
    assert bar.details.textFormat() is Qt.TextFormat.PlainText
    bar.details_button.click()
    assert planted in bar.details.text()


def test_a_library_that_needs_webgl_is_said_to_stay_empty(qtbot):
    bar = _bar(qtbot)
    three = LibraryCopy(
        "https://unpkg.com/three@0.160.0/build/three.module.js",
        "three.js",
        "0.187.0",
        "unpkg.com",
        "0.160.0",
    )
    bar.set_libraries([three])
    assert bar.summary_text() == (
        "Using the app's copy of three.js 0.187.0 in place of 0.160.0 (page asks "
        "for unpkg.com). three.js draws with WebGL, which previews turn off, so "
        "its 3D view stays empty."
    )
