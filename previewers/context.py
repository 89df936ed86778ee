"""What previews may know about where they are shown: the workspace root and policy.

The workspace sets these providers once; previews call them when they need an
answer (the Markdown preview, before it reads an image the text refers to), so
an edited policy applies to the next preview without a restart. With nothing set,
a preview treats its own file's folder as the root and applies the policy files
on disk.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from app.core.paths import is_within
from app.core.policy import Policy, current_policy

PolicyProvider = Callable[[], Policy]
RootProvider = Callable[[], "str | None"]

_policy_provider: PolicyProvider | None = None
_root_provider: RootProvider | None = None


def set_policy_provider(provider: PolicyProvider | None) -> None:
    """Where previews get the read-deny policy in force (None: the files on disk)."""
    global _policy_provider  # one workspace per process sets it
    _policy_provider = provider


def set_root_provider(provider: RootProvider | None) -> None:
    """Where previews get the workspace root (None: each file's own folder)."""
    global _root_provider  # one workspace per process sets it
    _root_provider = provider


@dataclass(frozen=True)
class PreviewContext:
    """The root a preview may read around its file, and the policy for those reads."""

    root: str
    policy: Policy


def root_for(path: str) -> str:
    """The workspace root holding ``path``, or "" when it lies outside it."""
    root = _root_provider() if _root_provider is not None else None
    if root is None:
        return ""
    real_root = os.path.realpath(root)
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    return real_root if is_within(folder, real_root) else ""


def current_context(path: str) -> PreviewContext:
    """The context for a preview of ``path``: its folder if it is outside the root."""
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    root = _root_provider() if _root_provider is not None else None
    if root is None or not is_within(folder, os.path.realpath(root)):
        root = folder
    policy = _policy_provider() if _policy_provider is not None else current_policy()
    return PreviewContext(os.path.realpath(root), policy)
