"""A hostile Markdown document drawn in the page: no script, no link out, no request.

Mermaid and KaTeX read text the document's author wrote. The document below
tries what that text can try: a directive asking Mermaid for the loose
security level, HTML with event handlers in labels, ``click`` to a
``javascript:`` URL or a function, a frame, and KaTeX's ``\\href``, ``\\url``,
``\\includegraphics`` and ``\\htmlData``. The page is opened through the real
Markdown preview and then clicked; nothing may run or link out, and nothing
may be fetched from outside the page, here or at a listener on another
loopback port.
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
from previewers.markdown.widget import MarkdownPreviewWidget
from previewers.source import PreviewSource
from tests.security.test_web_sandbox import Listener

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

pytestmark = [
    pytest.mark.webengine,
    pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root"),
]


def _document(out: str) -> str:
    return f"""# Attack

```mermaid
%%{{init: {{"securityLevel": "loose", "maxTextSize": 99999999}}}}%%
flowchart LR
  A["<img src='{out}/label' onerror='document.title=&quot;pwned&quot;'>"] --> B
  click A "javascript:document.title='pwned'" "tip"
  click B call pwned()
```

```mermaid
flowchart LR
  C["<script>document.title='pwned'</script>"] --> D["<iframe src='{out}/f'></iframe>"]
```

A link $\\href{{javascript:document.title='pwned'}}{{here}}$, an address
$\\url{{{out}/url}}$, a picture $\\includegraphics{{{out}/img.png}}$ and a
handler \\(\\htmlData{{onclick=document.title='pwned'}}{{z}}\\).
"""


@pytest.fixture
def listener() -> Iterator[Listener]:
    running = Listener()
    yield running
    running.close()


@pytest.fixture
def drawn(qtbot: Any, tmp_path: Path, listener: Listener) -> Iterator[Any]:
    path = tmp_path / "attack.md"
    path.write_text(_document(listener.url))
    file = open_verified(str(path))
    source = PreviewSource.from_file(str(path), file)
    context = PreviewContext(root=str(tmp_path), policy_provider=lambda: Policy([]))
    preview = registry.choose(source).create(source, file, None, context=context)
    assert isinstance(preview, MarkdownPreviewWidget)
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
    preview.page_view.page.runJavaScript(script, 0, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=10000)
    return json.loads(box[0])


STATE = """JSON.stringify({
  title: document.title,
  handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]
    .filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name)),
  scriptLinks: [...document.querySelectorAll('a')].map(a => a.getAttribute('href'))
    .filter(h => h && !h.startsWith('#')),
  frames: document.querySelectorAll('iframe, object, embed').length,
  loaded: [...document.images].filter(i => i.naturalWidth > 0).map(i => i.src),
  scripts: [...document.scripts].map(s => s.getAttribute('src')),
  svgs: document.querySelectorAll('.diagram-drawing svg').length,
})"""


def test_a_hostile_document_runs_nothing_and_asks_for_nothing(
    qtbot: Any, drawn: Any, listener: Listener
) -> None:
    assert drawn.is_loaded() and drawn.showing_page()
    before = _in_page(qtbot, drawn, STATE)
    assert before["svgs"] == 2  # both diagrams were drawn, as text
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
        assert state["title"] == "attack.md"
        assert state["handlers"] == []
        assert state["scriptLinks"] == []
        assert state["frames"] == 0
        # Mermaid keeps an <img> in a label; the sandbox never lets it load.
        assert state["loaded"] == []
        assert state["scripts"] == [
            "lib/katex.min.js",
            "lib/mermaid.min.js",
            "draw.js",
        ]
    assert drawn.page_view.blocked_urls() == []
    assert listener.hits == []
