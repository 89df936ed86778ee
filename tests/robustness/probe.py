"""Open one file as the workspace does and report how it went, as one JSON line.

Run as ``python -m tests.robustness.probe FILE SETTLE_S [WATCH_S]`` by the corpus
test (``WATCH_S``: how long to go on measuring once the preview settled), in a
process of its own: a file that hangs a library cannot hang the test run (the
test kills the process at its budget), and the peak memory of a fresh process is
that file's alone. What is measured:

- the longest gap between ticks of a 10 ms timer on the GUI thread (a stall);
- the resident memory's growth over the process's size once every previewer
  family is imported (the peak, from samples at each tick and the kernel's
  high-water mark);
- whether the preview settled, loaded, and every text it shows;
- for a page or an SVG, how long starting the web engine took beforehand.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_TICK_MS = 10
_AFTER_SETTLE_S = 1.5
"""How long to keep watching after the preview settles (background passes)."""


def _status_kib(field: str) -> int:
    status = Path("/proc/self/status").read_text()
    return int(status.split(f"{field}:")[1].split()[0])


def _import_families() -> None:
    """Load what the app has loaded when a person opens a file.

    Each family's widget modules, and the encoding detector the window loads
    on a worker after it starts: growth and stalls are then the file's own.
    """
    import importlib

    from app.core.filetype.text import prepare_legacy_detection

    prepare_legacy_detection()

    for module in (
        "previewers.text.widget",
        "previewers.markdown.widget",
        "previewers.json.widget",
        "previewers.csv.widget",
        "previewers.image.widget",
        "previewers.media.player",
        "previewers.pdf.widget",
        "previewers.notebook.widget",
        "previewers.fallback.card",
        "pymupdf",
    ):
        with contextlib.suppress(ImportError):
            importlib.import_module(module)


def _shown_texts(widget: object) -> list[str]:
    from PySide6.QtWidgets import QLabel, QPlainTextEdit, QWidget

    assert isinstance(widget, QWidget)
    texts: list[str] = []
    for child in widget.findChildren(QWidget):
        if not child.isVisibleTo(widget):
            continue
        if isinstance(child, QLabel) and child.text():
            texts.append(child.text())
        elif isinstance(child, QPlainTextEdit) and child.objectName() != "":
            texts.append(child.toPlainText()[:2000])
    for name in ("message_text", "notice_text", "error_text", "status_text"):
        method = getattr(widget, name, None)
        if callable(method):
            text = method()
            if isinstance(text, str) and text:
                texts.append(text[:2000])
    return texts


def main(
    path: str, settle_s: float, watch_s: float = _AFTER_SETTLE_S
) -> dict[str, object]:
    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    application = QApplication.instance() or QApplication([])
    _import_families()
    from app.core.trust.safeio import open_verified
    from previewers.context import PreviewContext
    from previewers.registry import choose
    from previewers.source import PreviewSource

    # A page, an SVG or a notebook: the app starts the web engine at an idle moment once
    # a conversation holds such a card; its cost is reported on its own.
    engine_ms: float | None = None
    with open_verified(path) as ahead:
        shown_by = choose(PreviewSource.from_file(path, ahead)).name
        web = shown_by in ("html", "svg", "notebook")
    if web:
        from previewers.web import prepare_web_engine

        began_engine = time.perf_counter()
        if prepare_web_engine():
            engine_ms = round((time.perf_counter() - began_engine) * 1000, 1)
    application.processEvents()
    base_kib = _status_kib("VmRSS")
    peak = {"rss": base_kib, "gap": 0.0}
    clock = QElapsedTimer()
    clock.start()
    last = [clock.nsecsElapsed()]

    def tick() -> None:
        now = clock.nsecsElapsed()
        peak["gap"] = max(peak["gap"], (now - last[0]) / 1e6)
        last[0] = now
        peak["rss"] = max(peak["rss"], _status_kib("VmRSS"))

    timer = QTimer()
    timer.setInterval(_TICK_MS)
    timer.timeout.connect(tick)
    timer.start()
    began = time.monotonic()
    file = open_verified(path)
    source = PreviewSource.from_file(path, file)
    previewer = choose(source)
    # The file's folder is the workspace, as when a card is opened.
    context = PreviewContext(root=str(Path(path).parent))
    preview = previewer.create(source, file, None, context=context)
    preview.resize(900, 700)
    preview.show()
    settled_at: float | None = None
    shown_text = False
    while time.monotonic() - began < settle_s + watch_s:
        application.processEvents()
        time.sleep(0.002)
        if settled_at is None and preview.is_settled():
            settled_at = time.monotonic()
            show_text = getattr(preview, "show_text", None)
            if callable(show_text) and preview.is_loaded():
                show_text()  # the JSON Text tab: built off the GUI thread too
                shown_text = True
        if settled_at is not None and time.monotonic() - settled_at > watch_s:
            break
    tick()
    timer.stop()
    result: dict[str, object] = {
        "previewer": previewer.name,
        "settled": preview.is_settled(),
        "loaded": preview.is_loaded(),
        "settle_s": None if settled_at is None else round(settled_at - began, 3),
        "texts": _shown_texts(preview),
        "text_tab": shown_text,
        "stall_ms": round(peak["gap"], 1),
        "engine_ms": engine_ms,
        "growth_mb": round(
            (max(peak["rss"], _status_kib("VmHWM")) - base_kib) / 1024, 1
        ),
    }
    preview.release()
    return result


if __name__ == "__main__":
    watch = float(sys.argv[3]) if len(sys.argv) > 3 else _AFTER_SETTLE_S
    found = main(sys.argv[1], float(sys.argv[2]), watch)
    print(json.dumps(found), flush=True)
    # A library thread may still be busy with the file; the result is out.
    os._exit(0)
