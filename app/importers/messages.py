"""Imported turns as stored messages: clipped to bounds, written by the format."""

from __future__ import annotations

from typing import Any, Final

from app.core.store.messages import (
    AIMessage,
    HumanMessage,
    Status,
    ToolCall,
    ToolResult,
    ended_without_result,
    write,
)

# Imported text is shown, not replayed in full: bounds keep the store and the
# chat of a huge session about the size of one made here.
MAX_TEXT: Final = 1 << 20
MAX_TOOL_TEXT: Final = 256 << 10
MAX_ARG_TEXT: Final = 64 << 10
MAX_ARG_DEPTH: Final = 20
NO_RESULT_TEXT: Final = "The session ended without a result for this call."


def clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} characters not imported]"


def clip_args(value: Any, depth: int = 0) -> Any:
    """Tool arguments with long strings shortened and deep nesting cut."""
    if isinstance(value, str):
        return clip(value, MAX_ARG_TEXT)
    if depth >= MAX_ARG_DEPTH:
        return "[... nested too deeply to import]"
    if isinstance(value, dict):
        return {str(k): clip_args(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [clip_args(item, depth + 1) for item in value]
    return value


def human(text: str) -> dict[str, Any]:
    return write(HumanMessage(clip(text, MAX_TEXT)))


def ai(text: str, calls: list[tuple[str, str, Any]]) -> dict[str, Any]:
    """An assistant message; ``calls`` are (id, name, arguments)."""
    tool_calls = tuple(
        ToolCall(call_id, name, args if isinstance(args, dict) else {"input": args})
        for call_id, name, args in calls
    )
    return write(AIMessage(clip(text, MAX_TEXT), tool_calls))


def tool(call_id: str, name: str, text: str, *, error: bool) -> dict[str, Any]:
    status: Status = "error" if error else "success"
    return write(ToolResult(call_id, clip(text, MAX_TOOL_TEXT), name or None, status))


def unanswered(call_id: str, name: str) -> dict[str, Any]:
    """The result of a call the session ended without answering.

    Without one the chat would show the call as still running, for ever; the
    text says what happened to a model the conversation is continued with.
    """
    return write(ended_without_result(call_id, name, NO_RESULT_TEXT))


def text_parts(content: Any, text_types: tuple[str, ...] = ("text",)) -> str:
    """The text of a content value: a string or a list of typed parts."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict):
            kind = part.get("type")
            if kind in text_types and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif kind in ("image", "input_image"):
                parts.append("[image]")
    return "\n".join(parts)
