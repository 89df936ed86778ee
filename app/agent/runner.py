"""Run one agent turn: replay history, stream the graph, persist every message."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Generator, Iterable
from contextlib import closing
from typing import Any, Final, cast

from langchain.agents import create_agent
from langchain.agents.middleware import InputAgentState
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)
from langchain_core.runnables import RunnableConfig

from app.agent.events import (
    MessageStored,
    RunEvent,
    RunFailed,
    RunFinished,
    ToolCallFinished,
    ToolCallStarted,
)
from app.agent.middleware import make_middleware
from app.agent.tools import SYSTEM_PROMPT, AgentSession, make_tools
from app.core.changes.change import ChangeArtifact
from app.core.chat.tool_names import PRESENT
from app.core.store import Store
from app.core.store import messages as stored
from app.core.store.change_rows import NewChange

_LOG = logging.getLogger(__name__)

# Each tool round is two graph steps; this bounds a runaway model, not real work.
RECURSION_LIMIT: Final = 60


def stored_form(message: BaseMessage) -> tuple[dict[str, Any], str | None]:
    """The dict to store for ``message`` and the record to store beside it.

    Artifacts never go into the message column. The artifact of a successful
    ``present`` is the record: the only place a record is ever written.
    """
    record: str | None = None
    if (
        isinstance(message, ToolMessage)
        and message.name == PRESENT
        and message.status == "success"
        and isinstance(message.artifact, str)
    ):
        record = message.artifact
    return stored.write(as_stored(message)), record


def as_stored(message: BaseMessage) -> stored.Message:
    """``message`` in the stored-message format, every field LangChain keeps.

    The artifact of a tool message is left out: it is the host's, never the
    model's, and is stored (if at all) beside the message.
    """
    extra = dict(message.additional_kwargs)
    metadata = dict(message.response_metadata)
    if message.type == "human":
        return stored.HumanMessage(
            message.content, message.id, message.name, extra, metadata
        )
    if isinstance(message, AIMessage) and message.type == "ai":
        calls = tuple(
            stored.ToolCall(call["id"], call["name"], dict(call["args"]))
            for call in message.tool_calls
        )
        usage = message.usage_metadata
        return stored.AIMessage(
            message.content,
            calls,
            tuple(dict(call) for call in message.invalid_tool_calls),
            dict(usage) if usage is not None else None,
            message.id,
            message.name,
            extra,
            metadata,
        )
    if isinstance(message, ToolMessage) and message.type == "tool":
        return stored.ToolResult(
            message.tool_call_id,
            message.content,
            message.name,
            message.status,
            message.id,
            extra,
            metadata,
        )
    # A kind the format does not model (a system prompt): kept as LangChain
    # writes it.
    return stored.OtherMessage(messages_to_dict([message])[0])


def stored_changes(message: BaseMessage) -> tuple[NewChange, ...]:
    """The file changes an edit tool's message carries, to store beside it."""
    if (
        isinstance(message, ToolMessage)
        and message.status == "success"
        and isinstance(message.artifact, ChangeArtifact)
    ):
        return tuple(
            NewChange(change.to_json(), change.text_before)
            for change in message.artifact.changes
        )
    return ()


def _complete(messages: list[BaseMessage]) -> bool:
    """Whether ``messages`` hold a model reply and every tool call is answered."""
    replied = any(not isinstance(message, HumanMessage) for message in messages)
    return replied and not _unanswered(messages)


def _unanswered(messages: Iterable[BaseMessage]) -> set[str]:
    calls: set[str] = set()
    answered: set[str] = set()
    for message in messages:
        if isinstance(message, AIMessage):
            calls.update(call["id"] for call in message.tool_calls if call["id"])
        elif isinstance(message, ToolMessage):
            answered.add(message.tool_call_id)
    return calls - answered


class AgentRunner:
    """Runs turns of one conversation; ``run`` on a worker, ``cancel`` from anywhere.

    Messages are stored in complete groups: the user's message with the model's
    first reply, a tool-calling reply with all its tool results. A run that fails
    or is cancelled therefore never leaves a tool call without its result, and a
    model that fails at once leaves the conversation unchanged.
    """

    def __init__(
        self,
        store: Store,
        conversation_id: str,
        model: BaseChatModel,
        session: AgentSession,
    ) -> None:
        self._store = store
        self._conversation_id = conversation_id
        self._cancel = threading.Event()
        self._busy = threading.Lock()
        self._graph = create_agent(
            model,
            make_tools(session),
            system_prompt=SYSTEM_PROMPT,
            middleware=make_middleware(session),
        )

    def cancel(self) -> None:
        """Stop the current run after the step in progress."""
        self._cancel.set()

    def run(
        self, user_text: str, on_event: Callable[[RunEvent], None] | None = None
    ) -> None:
        """Run one turn for ``user_text``; report through ``on_event``."""
        emit = on_event or (lambda _event: None)
        if not self._busy.acquire(blocking=False):
            raise RuntimeError("A turn is already running in this conversation.")
        try:
            self._cancel.clear()
            try:
                cancelled = self._run(user_text, emit)
            except Exception as error:  # the UI must survive any model failure
                _LOG.exception("Agent run failed")
                emit(RunFailed(f"{type(error).__name__}: {error}"))
                return
            emit(RunFinished(cancelled=cancelled))
        finally:
            self._busy.release()

    def _history(self) -> list[BaseMessage]:
        stored = self._store.messages(self._conversation_id)
        history = messages_from_dict([item.message for item in stored])
        for item, message in zip(stored, history, strict=True):
            # Ids let a replayed message be recognised if the graph echoes it back.
            if message.id is None:
                message.id = f"stored-{item.conversation_id}-{item.position}"
        return history

    def _run(self, user_text: str, emit: Callable[[RunEvent], None]) -> bool:
        history = self._history()
        human = HumanMessage(content=user_text, id=uuid.uuid4().hex)
        known = {message.id for message in [*history, human]}
        pending: list[BaseMessage] = [human]
        # The state's message list also admits dicts; ours are all messages.
        start: list[Any] = [*history, human]
        stream = self._graph.stream(
            InputAgentState(messages=start),
            config=RunnableConfig(recursion_limit=RECURSION_LIMIT),
            stream_mode="updates",
        )
        # Closing the graph's generator stops it before its next step, both on
        # cancel and on error, so no tool runs after the run has ended.
        with closing(cast("Generator[Any, None, None]", stream)):
            for chunk in stream:
                for message in _new_messages(chunk, known):
                    pending.append(message)
                    _announce(message, emit)
                if _complete(pending):
                    self._persist(pending, emit)
                    pending = []
                if self._cancel.is_set():
                    return True
        if pending:
            raise RuntimeError("The agent stopped before finishing the turn.")
        return False

    def _persist(
        self, messages: list[BaseMessage], emit: Callable[[RunEvent], None]
    ) -> None:
        for message in messages:
            data, record = stored_form(message)
            changes = stored_changes(message)
            tool_call_id = (
                message.tool_call_id
                if isinstance(message, ToolMessage) and record is not None
                else None
            )
            position = self._store.append_message(
                self._conversation_id,
                data,
                record=record,
                tool_call_id=tool_call_id,
                changes=changes,
            )
            raws = tuple(change.raw for change in changes)
            emit(MessageStored(position, data, record, raws))


def _new_messages(chunk: object, known: set[str | None]) -> list[BaseMessage]:
    """The messages a graph update adds, skipping ones already in the history."""
    found: list[BaseMessage] = []
    if not isinstance(chunk, dict):
        return found
    for update in chunk.values():
        if not isinstance(update, dict):
            continue
        for message in update.get("messages") or []:
            if isinstance(message, RemoveMessage):
                continue
            if message.id is not None and message.id in known:
                continue
            if message.id is not None:
                known.add(message.id)
            found.append(message)
    return found


def _announce(message: BaseMessage, emit: Callable[[RunEvent], None]) -> None:
    if isinstance(message, AIMessage):
        for call in message.tool_calls:
            emit(ToolCallStarted(call["id"] or "", call["name"], dict(call["args"])))
    elif isinstance(message, ToolMessage):
        content = message.content
        emit(
            ToolCallFinished(
                message.tool_call_id,
                message.name or "",
                message.status,
                content if isinstance(content, str) else str(content),
                stored_form(message)[1],
            )
        )
