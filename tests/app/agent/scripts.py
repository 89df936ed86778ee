"""Helpers to write scripted model replies in tests."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, ToolCall


def tool_calls(*calls: tuple[str, str, dict[str, Any]]) -> AIMessage:
    """A reply calling ``(id, name, args)`` tools."""
    return AIMessage(
        content="",
        tool_calls=[
            ToolCall(id=call_id, name=name, args=args, type="tool_call")
            for call_id, name, args in calls
        ],
    )


def answer(text: str) -> AIMessage:
    return AIMessage(content=text)


def present(call_id: str, *paths: str) -> AIMessage:
    files = [{"path": path, "description": f"About {path}"} for path in paths]
    return tool_calls((call_id, "present", {"files": files}))
