"""Answers' Markdown rendered while the chat view is idle, within a bounded cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.ui.chat import ChatView
from app.ui.chat import markdown as chat_markdown
from app.ui.chat.markdown import _HtmlCache, markdown_html

CID = "conv-1"


def _view(qtbot: Any, workspace: Path, messages: Any, policy: Any) -> ChatView:
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.set_policy_provider(policy)
    view.set_conversation(CID, str(workspace), messages.items)
    with qtbot.waitSignal(view.loaded, timeout=5000):
        view.show()
    return view


def _counting_parser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the chat's Markdown parser renders from now on."""
    parser = chat_markdown._parser()
    rendered: list[str] = []

    class Counting:
        def render(self, text: str) -> str:
            rendered.append(text)
            return str(parser.render(text))

    counting = Counting()
    monkeypatch.setattr(chat_markdown, "_parser", lambda: counting)
    return rendered


def test_an_idle_view_renders_every_answer_so_a_jump_parses_none(
    qtbot: Any,
    workspace: Path,
    policy: Any,
    new_messages: Callable[[], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    messages = new_messages()
    turns = 80
    for turn in range(turns):
        messages.human(f"Question {turn}")
        messages.answer(f"## Answer {turn} of this view\n\nSome **bold** words. " * 3)
    view = _view(qtbot, workspace, messages, policy)
    qtbot.waitUntil(view.answers_prepared, timeout=10_000)
    rendered = _counting_parser(monkeypatch)
    bar = view.verticalScrollBar()
    for fraction in (0.0, 0.13, 0.5, 0.77, 0.31):
        bar.setValue(round(fraction * bar.maximum()))
        view.viewport().repaint()
    assert rendered == []
    # And what was rendered ahead is what a paint would have rendered.
    first = messages.items[1].message["data"]["content"]
    assert markdown_html(first).startswith("<h2>Answer 0 of this view</h2>")


def test_a_full_cache_keeps_what_it_holds_and_drops_by_size() -> None:
    cache = _HtmlCache(capacity=200)
    assert cache.warm("*one*")
    assert cache.warm("*two*")
    held = cache.get("*one*")
    # Too big to fit beside what is held: not rendered in, nothing dropped.
    assert not cache.warm("x" * 150)
    assert cache.get("*one*") is held and "*two*" in cache._html
    # A paint still gets its HTML; the oldest entries make room for it.
    assert cache.get("y" * 80) == "<p>" + "y" * 80 + "</p>\n"
    assert "*two*" not in cache._html
    assert cache._chars <= 200
    # One text larger than the whole cache is rendered but never kept.
    assert cache.get("z" * 300).startswith("<p>z")
    assert "z" * 300 not in cache._html
