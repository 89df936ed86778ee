"""Model configuration errors and the scripted model's behaviour."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from app.agent.models import (
    ModelConfigError,
    ScriptedChatModel,
    ScriptExhaustedError,
    load_chat_model,
)

from .scripts import answer


def test_a_provider_that_is_not_installed_names_the_extra_to_install() -> None:
    if importlib.util.find_spec("langchain_ollama") is not None:
        pytest.skip("langchain-ollama is installed here")

    command = ".venv/bin/pip install -e '.[ollama]'"
    with pytest.raises(ModelConfigError, match=re.escape(command)):
        load_chat_model("ollama:llama3.1")
    # The same command the README gives a new user.
    readme = Path(__file__).resolve().parents[3] / "README.md"
    assert command in readme.read_text(encoding="utf-8")


def test_an_unknown_provider_says_which_ones_exist() -> None:
    with pytest.raises(ModelConfigError, match="ollama, openai, anthropic"):
        load_chat_model("no-such-provider:some-model")


def test_a_spec_without_a_provider_is_refused_with_an_example() -> None:
    with pytest.raises(ModelConfigError, match="provider:model"):
        load_chat_model("llama3.1")


def test_missing_credentials_name_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(ModelConfigError, match="OPENAI_API_KEY"):
        load_chat_model("openai:gpt-4o-mini")


def test_scripted_model_plays_replies_in_order_with_stable_ids() -> None:
    model = ScriptedChatModel(replies=[answer("one"), answer("two")])

    first = model.invoke([HumanMessage("hi")])
    second = model.invoke([HumanMessage("again")])

    assert (first.content, first.id) == ("one", "scripted-0")
    assert (second.content, second.id) == ("two", "scripted-1")
    with pytest.raises(ScriptExhaustedError):
        model.invoke([HumanMessage("more")])
