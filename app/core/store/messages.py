"""The stored-message format: what each row of the store's ``messages`` holds.

A message is stored as ``{"type": kind, "data": {...}}``, the shape LangChain's
``messages_to_dict`` gives, so the app's agent replays a conversation with
``messages_from_dict`` whoever wrote it. The app's agent, the MCP server and
the importers build their messages here and ``write`` them; the chat ``read``\\ s
them back. The store keeps no version per row: every row written so far has
the shape of ``FORMAT_VERSION`` 1, and a change of shape raises the version and
adds a migration that rewrites the rows (``app.core.store.migrations``).

Reading never fails: a row from an older writer (the MCP server once left out
the empty fields) or a damaged one reads with the missing fields at their
defaults, and a kind this format does not model is kept whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, Literal, NamedTuple

FORMAT_VERSION: Final = 1

# Set in a tool result's ``response_metadata`` by an import, for a call its
# transcript holds no result of (LangChain keeps the field as it is).
ENDED_WITHOUT_RESULT: Final = "ended_without_result"

# A string, or a list of parts (``{"type": "text", "text": ...}`` and others).
Content = str | list[Any]
Status = Literal["success", "error"]
# The empty default of a message's mappings, shared and read-only.
NOTHING: Final[Mapping[str, Any]] = MappingProxyType({})


# Messages are named tuples rather than frozen dataclasses: the chat reads every
# message of a long conversation, and tuples are several times cheaper to make.
class ToolCall(NamedTuple):
    """One call a model asks for; ``id`` pairs it with its ``ToolResult``."""

    id: str | None
    name: str
    args: Mapping[str, Any]


class HumanMessage(NamedTuple):
    """What the person (or, for an MCP turn, the app on the agent's behalf) said."""

    content: Content
    id: str | None = None
    name: str | None = None
    additional_kwargs: Mapping[str, Any] = NOTHING
    response_metadata: Mapping[str, Any] = NOTHING


class AIMessage(NamedTuple):
    """A model's reply: text, and the tool calls it asks for."""

    content: Content
    tool_calls: tuple[ToolCall, ...] = ()
    invalid_tool_calls: tuple[Mapping[str, Any], ...] = ()
    usage_metadata: Mapping[str, Any] | None = None
    id: str | None = None
    name: str | None = None
    additional_kwargs: Mapping[str, Any] = NOTHING
    response_metadata: Mapping[str, Any] = NOTHING


class ToolResult(NamedTuple):
    """The result of one tool call, as the model received it.

    A tool's artifact is never part of it: a ``present`` record is stored
    beside the message (``Store.append_message``'s ``record``, keyed by
    ``tool_call_id``), and reaches no model.
    """

    tool_call_id: str
    content: Content
    name: str | None = None
    status: Status = "success"
    id: str | None = None
    additional_kwargs: Mapping[str, Any] = NOTHING
    response_metadata: Mapping[str, Any] = NOTHING

    @property
    def ended_without_result(self) -> bool:
        """Whether the session ended before the call had a result (an import)."""
        return bool(self.response_metadata.get(ENDED_WITHOUT_RESULT))


class OtherMessage(NamedTuple):
    """A message of a kind this format does not model (a system prompt), kept whole."""

    raw: dict[str, Any]

    @property
    def kind(self) -> str:
        kind = self.raw.get("type")
        return kind if isinstance(kind, str) else ""


Message = HumanMessage | AIMessage | ToolResult | OtherMessage


def ended_without_result(call_id: str, name: str, text: str) -> ToolResult:
    """The result of a call its session ended without answering."""
    return ToolResult(
        call_id,
        text,
        name=name or None,
        status="error",
        response_metadata={ENDED_WITHOUT_RESULT: True},
    )


def write(message: Message) -> dict[str, Any]:
    """The dict to store for ``message``: LangChain's shape, every field present."""
    if isinstance(message, OtherMessage):
        return message.raw
    if isinstance(message, HumanMessage):
        return {"type": "human", "data": _common(message, "human")}
    if isinstance(message, AIMessage):
        data = _common(message, "ai")
        data["tool_calls"] = [
            {
                "name": call.name,
                "args": dict(call.args),
                "id": call.id,
                "type": "tool_call",
            }
            for call in message.tool_calls
        ]
        data["invalid_tool_calls"] = [dict(call) for call in message.invalid_tool_calls]
        usage = message.usage_metadata
        data["usage_metadata"] = None if usage is None else dict(usage)
        return {"type": "ai", "data": data}
    data = _common(message, "tool")
    data["tool_call_id"] = message.tool_call_id
    data["status"] = message.status
    return {"type": "tool", "data": data}


def _common(
    message: HumanMessage | AIMessage | ToolResult, kind: str
) -> dict[str, Any]:
    return {
        "content": message.content,
        "additional_kwargs": dict(message.additional_kwargs),
        "response_metadata": dict(message.response_metadata),
        "type": kind,
        "name": message.name,
        "id": message.id,
    }


def read(stored: Mapping[str, Any]) -> Message:
    """The message a stored dict holds; missing or malformed fields read as defaults."""
    kind = stored.get("type")
    data = stored.get("data")
    if kind not in ("human", "ai", "tool") or not isinstance(data, dict):
        return OtherMessage(dict(stored))
    content = _content(data.get("content"))
    id_ = _text_or_none(data.get("id"))
    name = _text_or_none(data.get("name"))
    extra = _mapping(data.get("additional_kwargs"))
    metadata = _mapping(data.get("response_metadata"))
    if kind == "human":
        return HumanMessage(content, id_, name, extra, metadata)
    if kind == "ai":
        usage = data.get("usage_metadata")
        return AIMessage(
            content,
            _tool_calls(data.get("tool_calls")),
            _dicts(data.get("invalid_tool_calls")),
            usage if isinstance(usage, dict) else None,
            id_,
            name,
            extra,
            metadata,
        )
    status: Status = "error" if data.get("status") == "error" else "success"
    call_id = data.get("tool_call_id")
    return ToolResult(
        call_id if isinstance(call_id, str) else "",
        content,
        name,
        status,
        id_,
        extra,
        metadata,
    )


def kind_of(stored: Mapping[str, Any]) -> str:
    """``"human"``, ``"ai"``, ``"tool"`` or another kind, without reading the rest."""
    kind = stored.get("type")
    return kind if isinstance(kind, str) else ""


def tool_call_id(stored: Mapping[str, Any]) -> str | None:
    """The call a stored tool result answers; None for any other message."""
    data = stored.get("data") if stored.get("type") == "tool" else None
    call = data.get("tool_call_id") if isinstance(data, dict) else None
    return call if isinstance(call, str) else None


def content_text(content: object) -> str:
    """The text of a message's content: a string or a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") == "text":
                text = part.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "".join(parts)
    return ""


def _content(value: object) -> Content:
    if isinstance(value, str | list):
        return value
    return ""


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else NOTHING


def _dicts(value: object) -> tuple[dict[str, Any], ...]:
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value if isinstance(item, dict))


def _tool_calls(value: object) -> tuple[ToolCall, ...]:
    if not isinstance(value, list):
        return ()
    calls: list[ToolCall] = []
    for call in value:
        if not isinstance(call, dict):
            continue
        id_, name, args = call.get("id"), call.get("name"), call.get("args")
        calls.append(
            ToolCall(
                id_ if isinstance(id_, str) else None,
                name if isinstance(name, str) else "",
                _arguments(args),
            )
        )
    return tuple(calls)


def _arguments(value: object) -> Mapping[str, Any]:
    # A call's arguments are an object; anything else is kept, not dropped.
    if isinstance(value, dict):
        return value
    return {} if value is None else {"input": value}
