"""A failed run says how to fix it: the install command, a pull, the network."""

from __future__ import annotations

from app.agent.failures import failure_hint, install_command


def test_install_commands_are_the_readme_ones() -> None:
    assert install_command("ollama") == ".venv/bin/pip install -e '.[ollama]'"
    assert install_command("mistralai") == ".venv/bin/pip install langchain-mistralai"


def test_a_missing_ollama_model_says_to_pull_it() -> None:
    hint = failure_hint(
        "ResponseError: model 'llama9' not found (status code: 404)", "ollama:llama9"
    )
    assert "ollama pull llama9" in hint


def test_an_unreachable_provider_says_to_start_it_or_check_the_network() -> None:
    assert "ollama serve" in failure_hint(
        "ConnectionError: Failed to connect to Ollama.", "ollama:llama3.2"
    )
    assert "network" in failure_hint(
        "APIConnectionError: Connection error.", "openai:gpt-4o"
    )


def test_an_unknown_failure_adds_nothing() -> None:
    assert failure_hint("ValueError: something else", "openai:gpt-4o") == ""
