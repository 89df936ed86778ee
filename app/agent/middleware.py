"""Agent middleware: keep host records out of model requests, gate ``show_image``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
)
from langchain_core.messages import AnyMessage, ToolMessage
from langchain_core.tools import BaseTool

from app.agent.tools import AgentSession
from app.tools.specs import SHOW_IMAGE

_Handler = Callable[[ModelRequest[None]], ModelResponse[Any]]


def strip_artifacts(messages: Sequence[AnyMessage]) -> list[AnyMessage]:
    """Copies of ``messages`` where no tool message carries an artifact.

    Artifacts hold host-only data (a ``present`` record, a resolved image path);
    provider adapters ignore them today, but nothing guarantees that tomorrow, so
    they are removed before any request is built.
    """
    return [
        message.model_copy(update={"artifact": None})
        if isinstance(message, ToolMessage) and message.artifact is not None
        else message
        for message in messages
    ]


class HostOnlyArtifactsMiddleware(AgentMiddleware[AgentState[Any], None]):
    """Removes every tool message artifact from the request sent to the model."""

    def wrap_model_call(
        self, request: ModelRequest[None], handler: _Handler
    ) -> ModelResponse[Any]:
        return handler(request.override(messages=strip_artifacts(request.messages)))


class PublicImageToolMiddleware(AgentMiddleware[AgentState[Any], None]):
    """Offers ``show_image`` only while the workspace has at least one public file.

    The tool stays registered (so a call made earlier still executes); only the
    list sent to the model changes, and the other tools keep their fixed order.
    """

    def __init__(self, session: AgentSession) -> None:
        super().__init__()
        self._session = session

    def wrap_model_call(
        self, request: ModelRequest[None], handler: _Handler
    ) -> ModelResponse[Any]:
        if self._session.has_public_files():
            return handler(request)
        tools: list[BaseTool | dict[str, Any]] = [
            tool for tool in request.tools if _tool_name(tool) != SHOW_IMAGE
        ]
        return handler(request.override(tools=tools))


def _tool_name(tool: BaseTool | dict[str, Any]) -> object:
    return tool.get("name") if isinstance(tool, dict) else tool.name


def make_middleware(
    session: AgentSession,
) -> list[AgentMiddleware[AgentState[Any], None]]:
    """The runner's middleware, outermost first."""
    return [HostOnlyArtifactsMiddleware(), PublicImageToolMiddleware(session)]
