"""Events a running turn reports to the UI; plain dataclasses, no LangChain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MessageStored:
    """A message was written to the store at ``position`` (with its record).

    ``changes`` are the file changes stored beside it, as JSON (no old text).
    """

    position: int
    message: dict[str, Any]
    record: str | None
    changes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolCallStarted:
    tool_call_id: str
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ToolCallFinished:
    """A tool answered; ``record`` is the record a successful ``present`` made."""

    tool_call_id: str
    name: str
    status: str  # "success" or "error"
    content: str
    record: str | None = None


@dataclass(frozen=True)
class RunFinished:
    cancelled: bool


@dataclass(frozen=True)
class RunFailed:
    error: str


RunEvent = MessageStored | ToolCallStarted | ToolCallFinished | RunFinished | RunFailed
