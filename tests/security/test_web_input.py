"""A real click in a previewed page must not open the app's file dialog.

The page is hostile; the person using it is not. Each test clicks or types
into a real QtWebEngine page with ``QTest`` (the engine's own widget, the
view's focus proxy, receives the events as it would from the window system)
and checks that no file dialog opened and the page read no file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog

from previewers import html as html_previewer
from tests.security.test_web_sandbox import SECRET, Listener, Probe

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def needs_engine(test: Any) -> Any:
    """Mark a test that runs pages in QtWebEngine (never as root)."""
    skip = pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
    return pytest.mark.webengine(skip(test))


@pytest.fixture
def probe(qtbot: Any, tmp_path: Path) -> Iterator[Probe]:
    root = tmp_path / "ws"
    root.mkdir()
    html_previewer.set_workspace_root_provider(lambda _path: str(root))
    listener = Listener()
    harness = Probe(qtbot, root, listener)
    yield harness
    harness.close()
    listener.close()
    html_previewer.set_workspace_root_provider(None)


def _ready(probe: Probe, body: str) -> Any:
    """Open a page running ``body``, shown and waiting for input."""
    widget = probe.open(body)
    probe.results(widget)
    widget.window().activateWindow()
    probe.qtbot.waitExposed(widget)
    return widget


def _click(widget: Any, x: int, y: int) -> None:
    target = widget.view.focusProxy()
    QTest.mouseClick(
        target, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(x, y)
    )


def _results(probe: Probe, widget: Any) -> dict[str, str]:
    import json

    return json.loads(probe.evaluate(widget, "JSON.stringify(window.results)"))


def _wait_title(probe: Probe, widget: Any, title: str) -> None:
    probe.qtbot.waitUntil(lambda: widget.page.title() == title, timeout=10000)


class DialogWatcher:
    """Notes every dialog that appears and picks ``path`` in a file dialog.

    Picking the file (as a person would) shows what the page could read.
    """

    def __init__(self, path: Path) -> None:
        self.seen: list[str] = []
        self._path = path
        self._timer = QTimer()
        self._timer.setInterval(20)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._timer.start()

    def _on_timer_timeout(self) -> None:
        for window in QApplication.topLevelWidgets():
            if isinstance(window, QFileDialog) and window.isVisible():
                self.seen.append(window.windowTitle() or "file dialog")
                window.selectFile(str(self._path))
                window.accept()

    def stop(self) -> None:
        self._timer.stop()


# -- 10: files -----------------------------------------------------------------------

CHOOSERS = """
const input = document.createElement("input");
input.type = "file";
input.style = "position: fixed; left: 0; top: 0; width: 50vw; height: 100vh;";
input.addEventListener("click", () => note("input_clicked", "yes"));
input.addEventListener("cancel", () => {
  note("input", "blocked cancelled");
  document.title = "chosen";
});
input.addEventListener("change", async () => {
  const file = input.files[0];
  note("input", "READ " + (file ? await file.text() : "nothing"));
  document.title = "chosen";
});
document.body.append(input);
document.addEventListener("click", (event) => {
  if (event.target === input) return;
  note("picker_clicked", "yes");
  let picked;
  try { picked = window.showOpenFilePicker(); }
  catch (error) { picked = Promise.reject(error); }
  picked.then(async ([handle]) => note("picker", "READ " + await (
                await handle.getFile()).text()),
              (error) => note("picker", "blocked " + error))
        .then(() => { document.title = "picked"; });
});
"""


@needs_engine
def test_a_click_on_a_file_input_opens_no_dialog_and_reads_nothing(probe):
    widget = _ready(probe, CHOOSERS)
    watcher = DialogWatcher(probe.root / "secret.txt")
    try:
        _click(widget, 40, 100)
        _wait_title(probe, widget, "chosen")
        width = widget.view.focusProxy().width()
        _click(widget, width - 40, 100)
        _wait_title(probe, widget, "picked")
    finally:
        watcher.stop()
    results = _results(probe, widget)
    assert results["input_clicked"] == "yes"
    assert results["picker_clicked"] == "yes"
    assert watcher.seen == []
    assert results["input"] == "blocked cancelled"
    assert results["picker"].startswith("blocked"), results
    assert not any(SECRET in value for value in results.values()), results
