"""Figures for a Markdown report drawn in a page: time to drawn, and the GUI's gaps.

The report is ``tests/data/markdown/report.md`` (three diagrams, eight
formulas). Anchor: the same file in the rich-text view alone, in the same
process. The page's first preview is "cold" (the engine starts); the next
ones are warm. The longest gap between two ticks of a 10 ms timer while a
preview loads says whether the GUI thread waited on the drawing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.benchmark,
    pytest.mark.webengine,
    pytest.mark.skipif(
        hasattr(os, "geteuid") and os.geteuid() == 0,
        reason="QtWebEngine cannot sandbox as root",
    ),
]

ROUNDS = 5
REPO = Path(__file__).resolve().parents[2]

_CHILD = """
import json, statistics, sys, time
from pathlib import Path
from PySide6.QtCore import QEvent, QEventLoop, QTimer
from PySide6.QtWidgets import QApplication
application = QApplication([])
from app.core.trust.policy import Policy
from app.core.trust.safeio import open_verified
from previewers.context import PreviewContext
from previewers.markdown import MarkdownPreviewer
from previewers.source import PreviewSource
from previewers.web.embedded import bound_page_widget
from previewers.web import pages as web_pages

report = Path(sys.argv[1])
context = PreviewContext(root=str(report.parent), policy_provider=lambda: Policy([]))

def spin(condition):
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the preview did not settle")
        application.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)

def flush():
    while True:
        application.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        sandbox = sys.modules.get("previewers.web.sandbox")
        if sandbox is None or sandbox.retiring_count() == 0:
            return
        application.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)

def load(previewer):
    ticks = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    start = time.perf_counter()
    ticks.append(start)
    timer.start()
    file = open_verified(str(report))
    source = PreviewSource.from_file(str(report), file)
    widget = previewer.create(source, file, None, context=context)
    widget.resize(900, 700)
    widget.show()
    spin(widget.is_settled)
    done = time.perf_counter()
    timer.stop()
    assert widget.is_loaded(), widget.message_text()
    drawn = widget.page_view is not None
    widget.release()
    widget.deleteLater()
    flush()
    gaps = [later - earlier for earlier, later in zip(ticks, ticks[1:] + [done])]
    return (done - start) * 1000, max(gaps) * 1000, drawn

rounds = int(sys.argv[2])
page = MarkdownPreviewer(bound_page_widget)
text = MarkdownPreviewer()
cold = load(page)
warm = [load(page) for _ in range(rounds)]
plain = [load(text) for _ in range(rounds)]
web_pages.close_shared_server()
assert cold[2] and all(w[2] for w in warm) and not any(p[2] for p in plain)
print(json.dumps({
    "cold": cold[0],
    "warm": statistics.median(w[0] for w in warm),
    "text": statistics.median(p[0] for p in plain),
    "page_gap": max(w[1] for w in warm),
    "text_gap": max(p[1] for p in plain),
}))
"""


def test_a_report_drawn_in_a_page_against_the_rich_text_view(
    tmp_path: Path, report: list[str]
) -> None:
    source = REPO / "tests" / "data" / "markdown" / "report.md"
    copy = tmp_path / "report.md"
    copy.write_bytes(source.read_bytes())
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(copy), str(ROUNDS)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    report.append(
        f"markdown page (report.md, 3 diagrams, 8 formulas): cold "
        f"{figures['cold']:.0f} ms, warm {figures['warm']:.0f} ms to drawn; "
        f"rich-text view alone {figures['text']:.0f} ms; ratio warm/text "
        f"{figures['warm'] / figures['text']:.1f}x"
    )
    report.append(
        f"markdown page: longest GUI gap while loading {figures['page_gap']:.0f} ms "
        f"(rich-text view alone {figures['text_gap']:.0f} ms)"
    )
    assert figures["warm"] > 0 and figures["text"] > 0
