"""A conversation's answers rendered from Markdown while the chat view is idle."""

from __future__ import annotations

import time
from typing import Final

from app.core.chat.blocks import AssistantTextBlock
from app.ui.chat.markdown import prepare_markdown_html
from app.ui.chat.model import ChatModel

LONGEST: Final = 20_000
"""Answers longer than this (characters) are left to their first paint: one
would hold the idle loop past its budget in a single render."""


class AnswerWarmer:
    """Walks a conversation's rows once, newest first, rendering each answer.

    Parsing an answer's Markdown is most of what a row first scrolled into
    view costs; done here a slice at a time while the view is idle, a jump
    anywhere later only lays out HTML the cache already holds. The walk counts
    rows from the end, so older turns inserted at the top do not move it.
    """

    def __init__(self) -> None:
        self._from_end = 0
        self._rows = 0
        self._full = False

    def restart(self) -> None:
        """Walk again from the newest row (another conversation is shown)."""
        self._from_end = self._rows = 0
        self._full = False

    def finished(self) -> bool:
        """Whether every answer seen so far is rendered (or the cache is full)."""
        return self._full or self._from_end >= self._rows

    def step(self, model: ChatModel, deadline: float) -> bool:
        """Render answers until ``deadline`` (``time.perf_counter()``); True
        once the walk is over, until older turns arrive at the top."""
        rows = self._rows = model.rowCount()
        while not self._full and self._from_end < rows:
            block = model.block(rows - 1 - self._from_end)
            self._from_end += 1
            if isinstance(block, AssistantTextBlock) and 0 < len(block.text) <= LONGEST:
                # A full cache is left as it is: what it holds is nearer the screen.
                self._full = not prepare_markdown_html(block.text)
            if time.perf_counter() > deadline:
                return self.finished()
        return True
