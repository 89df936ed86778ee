"""Stored-message dicts for imported turns, in the shape the chat and runner read."""

from __future__ import annotations

from typing import Any, Final

from app.core.chat.blocks import ENDED_WITHOUT_RESULT

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
    return {
        "type": "human",
        "data": {
            "content": clip(text, MAX_TEXT),
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "human",
            "name": None,
            "id": None,
        },
    }


def ai(text: str, calls: list[tuple[str, str, Any]]) -> dict[str, Any]:
    """An assistant message; ``calls`` are (id, name, arguments)."""
    tool_calls = [
        {
            "name": name,
            "args": args if isinstance(args, dict) else {"input": args},
            "id": call_id,
            "type": "tool_call",
        }
        for call_id, name, args in calls
    ]
    return {
        "type": "ai",
        "data": {
            "content": clip(text, MAX_TEXT),
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "ai",
            "name": None,
            "id": None,
            "tool_calls": tool_calls,
            "invalid_tool_calls": [],
            "usage_metadata": None,
        },
    }


def tool(call_id: str, name: str, text: str, *, error: bool) -> dict[str, Any]:
    return {
        "type": "tool",
        "data": {
            "content": clip(text, MAX_TOOL_TEXT),
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "tool",
            "name": name or None,
            "id": None,
            "tool_call_id": call_id,
            "status": "error" if error else "success",
        },
    }


def unanswered(call_id: str, name: str) -> dict[str, Any]:
    """The result of a call the session ended without answering.

    Without one the chat would show the call as still running, for ever; the
    text says what happened to a model the conversation is continued with.
    """
    message = tool(call_id, name, NO_RESULT_TEXT, error=True)
    message["data"]["response_metadata"] = {ENDED_WITHOUT_RESULT: True}
    return message


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
