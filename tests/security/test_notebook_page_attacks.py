"""A notebook whose Markdown cells attack the page that draws them: nothing gets out.

The cells hold what ``test_markdown_page_attacks`` tries in a Markdown
document, one block a cell: a directive asking Mermaid for the loose security
level, HTML with event handlers in labels, ``click`` to a ``javascript:`` URL
or a function, a frame, and KaTeX's ``\\href``, ``\\url``,
``\\includegraphics`` and ``\\htmlData``. The notebook is written by nbformat,
opened through the real notebook preview and then clicked; nothing may run or
link out, and nothing may be fetched from outside the page, here or at a
listener on another loopback port.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.trust.policy import Policy
from app.core.trust.safeio import open_verified
from previewers import registry
from previewers.context import PreviewContext
from previewers.notebook.widget import NotebookPreviewWidget
from previewers.source import PreviewSource
from tests.data.notebooks import with_drawings
from tests.security.test_markdown_page_attacks import STATE, _document
from tests.security.test_web_sandbox import Listener

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

pytestmark = [
    pytest.mark.webengine,
    pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root"),
]


@pytest.fixture
def listener() -> Iterator[Listener]:
    running = Listener()
    yield running
    running.close()


@pytest.fixture
def drawn(qtbot: Any, tmp_path: Path, listener: Listener) -> Iterator[Any]:
    cells = _document(listener.url).split("\n\n")
    assert len(cells) == 4  # the heading, two diagrams and the math
    path = with_drawings(tmp_path, cells, name="attack.ipynb")
    file = open_verified(str(path))
    source = PreviewSource.from_file(str(path), file)
    context = PreviewContext(root=str(tmp_path), policy_provider=lambda: Policy([]))
    preview = registry.choose(source).create(source, file, None, context=context)
    assert isinstance(preview, NotebookPreviewWidget)
    preview.resize(900, 700)
    preview.show()
    qtbot.waitUntil(preview.is_settled, timeout=40000)
    yield preview
    preview.release()
    preview.deleteLater()
    retiring = sys.modules["previewers.web.sandbox"].retiring_count
    qtbot.waitUntil(lambda: retiring() == 0, timeout=10000)


def _in_page(qtbot: Any, preview: Any, script: str) -> Any:
    box: list[Any] = []
    preview.web.page.runJavaScript(script, 0, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=10000)
    return json.loads(box[0])


def test_hostile_markdown_cells_run_nothing_and_ask_for_nothing(
    qtbot: Any, drawn: Any, listener: Listener
) -> None:
    assert drawn.is_loaded() and not drawn.showing_json(), drawn.message_text()
    before = _in_page(qtbot, drawn, STATE)
    assert before["svgs"] == 2  # both diagrams were drawn, as text
    typeset = "JSON.stringify(document.querySelectorAll('.katex').length)"
    assert _in_page(qtbot, drawn, typeset) == 4  # and every formula
    _in_page(
        qtbot,
        drawn,
        """(() => {
          for (const node of document.querySelectorAll('.node, .katex, a')) {
            node.dispatchEvent(new MouseEvent('click', {bubbles: true}));
          }
          return '0';
        })()""",
    )
    qtbot.wait(300)  # whatever a click started has run by now
    after = _in_page(qtbot, drawn, STATE)
    for state in (before, after):
        assert state["title"] == "attack.ipynb"
        assert state["handlers"] == []
        assert state["scriptLinks"] == []
        assert state["frames"] == 0
        # Mermaid keeps an <img> in a label; the sandbox never lets it load.
        assert state["loaded"] == []
        assert state["scripts"] == [
            "_drawing/lib/katex.min.js",
            "_drawing/lib/mermaid.min.js",
            "_drawing/draw.js",
        ]
    assert drawn.web.blocked_urls() == []
    assert listener.hits == []
