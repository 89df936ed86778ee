"""Figures for the first paint of an HTML preview, cold and warm.

Cold is the first page preview of a fresh process: the web engine starts,
the capability server starts and the first profile is made. Warm is the next
previews in the same process. Both run in a child process so "cold" is cold
whatever the test run did before. Baseline: a plain text preview of the same
file in the same process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [
    pytest.mark.benchmark,
    pytest.mark.webengine,
    pytest.mark.skipif(
        hasattr(os, "geteuid") and os.geteuid() == 0,
        reason="QtWebEngine cannot sandbox as root",
    ),
]

WARM_ROUNDS = 5

_CHILD = """
import json, statistics, sys, time
from pathlib import Path
from PySide6.QtCore import QEvent, QEventLoop
from PySide6.QtWidgets import QApplication
application = QApplication([])
from app.demo.workspace import build_demo_workspace
from app.core.trust.safeio import open_verified
from previewers import web as html
from previewers.context import PreviewContext
from previewers.web import pages as web_pages
from previewers.source import PreviewSource
from previewers.text import CodePreviewer

root = Path(sys.argv[1])
build_demo_workspace(root)
context = PreviewContext(root=str(root))
page = root / "report" / "index.html"

def spin(condition):
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the preview did not settle")
        application.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)

def flush():
    # Outside exec() deferred deletes wait for an explicit flush; the page
    # goes first, then its profile.
    modules = sys.modules
    while True:
        application.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        sandbox = modules.get("previewers.web.sandbox")
        if sandbox is None or sandbox.retiring_count() == 0:
            return
        application.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)

def evaluate(widget, script):
    box = []
    widget.page.runJavaScript(script, 0, box.append)
    spin(lambda: bool(box))
    return box[0]

def first_paint(previewer):
    start = time.perf_counter()
    file = open_verified(str(page))
    source = PreviewSource.from_file(str(page), file)
    widget = previewer.create(source, file, None, context=context)
    widget.resize(900, 700)
    widget.show()
    spin(widget.is_settled)
    assert widget.is_loaded(), widget.message_text()
    loaded = time.perf_counter()
    if getattr(widget, "page", None) is not None:
        # Two animation frames: the second runs once the first was produced.
        evaluate(widget, "requestAnimationFrame(() => requestAnimationFrame("
                 "() => { window.painted = 1; })); 0")
        spin(lambda: evaluate(widget, "window.painted || 0") == 1)
    painted = time.perf_counter()
    widget.release()
    widget.deleteLater()
    flush()
    return (loaded - start) * 1000, (painted - start) * 1000

cold = first_paint(html.HTML_PREVIEWER)
warm = [first_paint(html.HTML_PREVIEWER) for _ in range(int(sys.argv[2]))]
text = [first_paint(CodePreviewer()) for _ in range(int(sys.argv[2]))]
web_pages.close_shared_server()
print(json.dumps({
    "cold": cold,
    "warm_loaded": statistics.median(w[0] for w in warm),
    "warm_painted": statistics.median(w[1] for w in warm),
    "text": statistics.median(t[1] for t in text),
}))
"""


def test_first_paint_of_an_html_preview_cold_and_warm(
    tmp_path: Path, report: list[str]
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tmp_path), str(WARM_ROUNDS)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    cold_loaded, cold_painted = figures["cold"]
    warm_painted, text = figures["warm_painted"], figures["text"]
    report.append(
        "HTML preview (demo report), create() to loadFinished / first frame: "
        f"cold {cold_loaded:.0f} / {cold_painted:.0f} ms (engine start, server, "
        f"first profile); warm {figures['warm_loaded']:.0f} / {warm_painted:.0f} ms "
        f"(median of {WARM_ROUNDS})"
    )
    report.append(
        f"  baseline plain-text preview of the same file: {text:.1f} ms; "
        f"warm HTML / text = {warm_painted / max(text, 0.001):.0f}x, "
        f"cold / warm = {cold_painted / max(warm_painted, 0.001):.1f}x"
    )


def test_gui_thread_stalls_opening_pathological_pages(
    qtbot: Any, tmp_path: Path, report: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.core.trust.safeio import open_verified
    from previewers.context import PreviewContext
    from previewers.source import PreviewSource
    from previewers.web import HTML_PREVIEWER
    from previewers.web import preview as web_preview
    from tests.previewers.conftest import StallMeter

    monkeypatch.setattr(web_preview, "LOAD_BUDGET_S", 3.0)
    (tmp_path / "loop.js").write_text("for (;;) {}\n")
    ordinary = "<p>Revenue grew in every region <b>again</b>.</p>\n" * 1200
    pages = {
        "engine start": ordinary,
        "ordinary": ordinary,
        "'<a ' x 10,000": "<a " * 10_000,
        "60 KB of '<a x=\"'": '<a x="' * 10_000,
        "a script that never ends": '<script src="loop.js"></script><p>never',
        "charset=hex": '<meta charset="hex"><p>café',
    }
    context = PreviewContext(root=str(tmp_path))
    stalls = {}
    for number, (name, text) in enumerate(pages.items()):
        path = tmp_path / f"page{number}.html"
        path.write_text(text)
        file = open_verified(str(path))
        with StallMeter() as meter:
            source = PreviewSource.from_file(str(path), file)
            widget = HTML_PREVIEWER.create(source, file, None, context=context)
            widget.resize(800, 600)
            widget.show()
            qtbot.waitUntil(widget.is_settled, timeout=60000)
        stalls[name] = meter.longest * 1000
        widget.release()
        widget.deleteLater()
    from previewers.web import sandbox as web_sandbox

    qtbot.waitUntil(lambda: web_sandbox.retiring_count() == 0)
    start, anchor = stalls.pop("engine start"), stalls.pop("ordinary")
    figures = ", ".join(f"{name} {ms:.0f} ms" for name, ms in stalls.items())
    report.append(
        f"HTML preview, longest GUI-thread stall until settled: {figures}; an "
        f"ordinary 58 KiB page {anchor:.0f} ms ({start:.0f} ms when it starts "
        "the engine)"
    )
