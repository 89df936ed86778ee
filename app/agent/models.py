"""Chat models: a configured provider model; scripted ones for the demo and tests."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, messages_to_dict
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr, SkipValidation, ValidationError

from app.agent.failures import EXTRAS, install_command

# The key each provider with an install extra needs.
_CREDENTIALS: Final = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


class ModelConfigError(RuntimeError):
    """The chat model cannot be set up; the message says what to install or set."""


def load_chat_model(spec: str) -> BaseChatModel:
    """A provider's chat model from ``"provider:model"`` (``"ollama:llama3.1"``)."""
    from langchain.chat_models import init_chat_model  # heavy: import on first use

    provider, sep, name = spec.partition(":")
    provider = provider.strip().lower().replace("-", "_")
    if not sep or not provider or not name.strip():
        raise ModelConfigError(
            f"Model {spec!r} is not of the form provider:model, for example "
            f"'ollama:llama3.1'. Providers with an install extra: {', '.join(EXTRAS)}."
        )
    variable = _CREDENTIALS.get(provider)
    if variable is not None and not os.environ.get(variable):
        raise ModelConfigError(
            f"The {provider} provider needs credentials: set {variable} in the "
            "environment and start again."
        )
    try:
        return init_chat_model(name.strip(), model_provider=provider)
    except ImportError as error:
        raise ModelConfigError(
            f"The {provider} provider is not installed. Install it with: "
            f"{install_command(provider)}"
        ) from error
    except ValidationError as error:
        raise ModelConfigError(
            f"The {provider} model {name!r} is not configured correctly (missing "
            f"credentials or settings?): {error}"
        ) from error
    except ValueError as error:
        raise ModelConfigError(
            f"Unknown model provider {provider!r}. Use one of {', '.join(EXTRAS)} "
            f"and install it, e.g. {install_command('ollama')}. ({error})"
        ) from error


class ScriptExhaustedError(RuntimeError):
    """The scripted model was called more times than its script has replies."""


class ScriptedChatModel(BaseChatModel):
    """Plays a fixed list of replies, one per call, whatever it is asked.

    A reply that is an exception instance is raised instead, so tests can make
    a model fail at an exact step. Replies without an id get ``scripted-<n>``.
    """

    # Not validated: pydantic would try to coerce an exception into an AIMessage.
    replies: SkipValidation[list[AIMessage | Exception]]
    _next: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def remaining(self) -> int:
        return len(self.replies) - self._next

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        # Serialized the way a provider adapter would, so recordings show exactly
        # what a real request would carry.
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._observe(messages, kwargs)
        if self._next >= len(self.replies):
            raise ScriptExhaustedError(
                f"The script has {len(self.replies)} replies and all were played."
            )
        index = self._next
        self._next += 1
        reply = self.replies[index]
        if isinstance(reply, Exception):
            raise reply
        message = reply.model_copy(update={"id": reply.id or f"scripted-{index}"})
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _observe(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> None:
        """Hook for subclasses that look at requests; the plain script ignores them."""


@dataclass(frozen=True)
class CapturedRequest:
    """One request as a provider would receive it: messages and bound tools."""

    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...]

    @property
    def system_prompt(self) -> str | None:
        for message in self.messages:
            if message.get("type") == "system":
                content = message["data"]["content"]
                return content if isinstance(content, str) else json.dumps(content)
        return None

    @property
    def tool_names(self) -> list[str]:
        return [tool["function"]["name"] for tool in self.tools]

    def tools_text(self) -> str:
        """The tool list exactly as serialized into the request."""
        return json.dumps(list(self.tools), sort_keys=True)

    def as_text(self) -> str:
        """Everything in the request, as one text to search."""
        return json.dumps(
            {"messages": list(self.messages), "tools": list(self.tools)},
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )


class RecordingChatModel(ScriptedChatModel):
    """A scripted model that also keeps every request it receives."""

    _requests: list[CapturedRequest] = PrivateAttr(default_factory=list)

    @property
    def requests(self) -> list[CapturedRequest]:
        return list(self._requests)

    def _observe(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> None:
        tools = kwargs.get("tools") or []
        self._requests.append(
            CapturedRequest(
                messages=tuple(messages_to_dict(messages)),
                tools=tuple(tools),
            )
        )
