"""What to do about a failed agent run, in words: install, pull, reach the provider.

Free of LangChain and Qt, so the window can explain a failure without loading
either; the same install command is printed in the README.
"""

from __future__ import annotations

import re

EXTRAS = ("ollama", "openai", "anthropic")
"""Providers with an install extra in ``pyproject.toml``."""


def install_command(provider: str) -> str:
    """The command that installs a provider, as the README gives it."""
    if provider in EXTRAS:
        return f".venv/bin/pip install -e '.[{provider}]'"
    return f".venv/bin/pip install langchain-{provider.replace('_', '-')}"


_UNREACHABLE = (
    "connection refused",
    "failed to connect",
    "connecterror",
    "connection error",
    "timed out",
    "timeout",
    "name or service not known",
    "temporary failure in name resolution",
    "network is unreachable",
    "no route to host",
)
_MISSING_MODEL = re.compile(r"model ['\"]?([\w.:/-]+)['\"]? not found", re.IGNORECASE)


def failure_hint(error: str, model_spec: str = "") -> str:
    """A sentence on how to fix ``error``, or "" when there is nothing to add."""
    provider = model_spec.partition(":")[0].strip().lower()
    lowered = error.lower()
    missing = _MISSING_MODEL.search(error)
    if missing is not None:
        if provider == "ollama" or "ollama" in lowered:
            return (
                f"Download it with “ollama pull {missing.group(1)}”, or choose "
                "another model in Settings, then send again."
            )
        return "Choose another model in Settings, then send again."
    if any(word in lowered for word in _UNREACHABLE):
        if provider == "ollama" or "ollama" in lowered:
            return (
                "Start Ollama (“ollama serve”) and check that it answers, then "
                "send again."
            )
        return "Check your network connection, then send again."
    if "api key" in lowered or "401" in lowered or "unauthorized" in lowered:
        return "Check the provider's API key in the environment, then start again."
    return ""
