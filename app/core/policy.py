"""The read-deny policy: built-in secret rules, the user's file, the workspace's."""

from __future__ import annotations

import functools
import os
import re
import sys
import tomllib
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import platformdirs

USER_POLICY_NAME = "policy.toml"
WORKSPACE_POLICY_NAME = ".deliverables-policy.toml"


class PermissionMode(StrEnum):
    """Which declared files the session may hand over.

    Modes change what passes the checks, never the tool schema or prompt text.
    """

    WORKSPACE_ONLY = "workspace-only"
    ALLOW_EXTERNAL = "allow-external"


class PolicyError(ValueError):
    """A policy file that cannot be read or parsed; the message says why."""


# Patterns are gitignore-like. No slash: matches any one path component's name.
# Trailing slash: a folder, and everything under it. A leading "~/" or "/": a glob
# over the whole resolved path, where "**" crosses folders and "*" does not.
BUILTIN_RULES: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.env",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.keystore",
    "*.jks",
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".htpasswd",
    "credentials.json",
    "~/.ssh/",
    "~/.aws/",
    "~/.gnupg/",
    "~/.config/gcloud/",
    "~/.azure/",
    "~/.kube/",
    "~/.docker/config.json",
    "~/.config/gh/",
    "~/.password-store/",
    "~/.local/share/keyrings/",
    "~/Library/Keychains/",
    "~/.mozilla/",
    "~/.thunderbird/",
    "~/snap/firefox/",
    "~/.config/google-chrome/",
    "~/.config/chromium/",
    "~/.config/BraveSoftware/",
    "~/.config/microsoft-edge/",
    "~/Library/Application Support/Google/Chrome/",
    "~/Library/Application Support/Firefox/",
    "~/Library/Safari/",
    "~/AppData/Local/Google/Chrome/User Data/",
    "~/AppData/Roaming/Mozilla/Firefox/",
)


def filesystem_is_case_insensitive() -> bool:
    """Whether paths compare without case on this platform's default file system."""
    return sys.platform in ("darwin", "win32")


def _normalise(text: str, *, fold_case: bool) -> str:
    text = unicodedata.normalize("NFC", text)
    return text.casefold() if fold_case else text


def _glob_to_regex(pattern: str) -> str:
    """Translate a path glob: ``**`` crosses folders, ``*`` and ``?`` do not."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end + 1
                continue
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Rule:
    """One deny rule, with where it came from so a refusal can name it."""

    pattern: str
    origin: str  # "built-in", the user's policy file, or the workspace's

    def describe(self) -> str:
        return f"{self.pattern} ({self.origin})"


@dataclass(frozen=True)
class _CompiledRule:
    rule: Rule
    regex: re.Pattern[str]
    whole_path: bool


def _compile(rule: Rule, home: str, fold_case: bool) -> _CompiledRule:
    pattern = rule.pattern.strip()
    folder = pattern.endswith("/")
    pattern = pattern.rstrip("/")
    if pattern.startswith("~/") or pattern == "~":
        pattern = home.rstrip("/") + pattern[1:]
    whole_path = "/" in pattern
    body = _glob_to_regex(_normalise(pattern, fold_case=fold_case))
    if whole_path:
        if not pattern.startswith("/"):
            # A relative pattern with a slash matches at any depth.
            body = "(?:.*/)?" + body
        suffix = "(?:/.*)?" if folder else ""
        regex = re.compile(f"^{body}{suffix}$", re.DOTALL)
    else:
        regex = re.compile(f"^{body}$", re.DOTALL)
    return _CompiledRule(rule, regex, whole_path)


def _union(rules: Iterable[_CompiledRule]) -> re.Pattern[str] | None:
    patterns = [f"(?:{compiled.regex.pattern})" for compiled in rules]
    return re.compile("|".join(patterns), re.DOTALL) if patterns else None


@functools.lru_cache(maxsize=32)
def _compile_all(
    rules: tuple[Rule, ...], home: str, fold_case: bool
) -> tuple[tuple[_CompiledRule, ...], re.Pattern[str] | None, re.Pattern[str] | None]:
    """Compile a rule set once; the policy is reloaded before every action."""
    compiled = tuple(
        _compile(rule, home, fold_case) for rule in rules if rule.pattern.strip()
    )
    # One alternation per rule family answers "is anything denied?" in a single
    # match; the individual rules are consulted only to name the one that hit.
    any_name = _union(c for c in compiled if not c.whole_path)
    any_path = _union(c for c in compiled if c.whole_path)
    return compiled, any_name, any_path


class Policy:
    """An immutable set of deny rules, checked against resolved absolute paths."""

    def __init__(
        self,
        rules: Iterable[Rule],
        *,
        home: str | None = None,
        fold_case: bool | None = None,
    ) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        self._home = home if home is not None else os.path.expanduser("~")
        self._fold_case = (
            filesystem_is_case_insensitive() if fold_case is None else fold_case
        )
        self._compiled, self._any_name, self._any_path = _compile_all(
            self.rules, self._home, self._fold_case
        )

    def denying_rule(self, path: str) -> Rule | None:
        """The first rule that forbids reading ``path``, or ``None`` if it is allowed.

        ``path`` should be absolute and already resolved; this function does not
        touch the file system.
        """
        normal = _normalise(path.replace(os.sep, "/"), fold_case=self._fold_case)
        parts = [part for part in normal.split("/") if part]
        path_hit = self._any_path is not None and self._any_path.match(normal)
        name_hit = self._any_name is not None and any(
            self._any_name.match(part) for part in parts
        )
        if not (path_hit or name_hit):
            return None
        for compiled in self._compiled:
            if compiled.whole_path:
                if compiled.regex.match(normal):
                    return compiled.rule
            elif any(compiled.regex.match(part) for part in parts):
                return compiled.rule
        return None


def builtin_rules() -> list[Rule]:
    return [Rule(pattern, "built-in") for pattern in BUILTIN_RULES]


def user_policy_path() -> Path:
    """Where the user's policy file lives (the platform config folder)."""
    return Path(platformdirs.user_config_dir("deliverables")) / USER_POLICY_NAME


def _read_toml(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise PolicyError(f"cannot read policy file {path}: {error}") from error


def _string_list(table: dict[str, object], key: str, path: Path) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PolicyError(f"{path}: [deny] {key} must be a list of strings")
    return list(value)


def _deny_table(data: dict[str, object], path: Path) -> dict[str, object]:
    table = data.get("deny", {})
    if not isinstance(table, dict):
        raise PolicyError(f"{path}: [deny] must be a table")
    return table


def load_policy(
    *,
    workspace: Path | None = None,
    user_file: Path | None = None,
    home: str | None = None,
) -> Policy:
    """Build the policy in force now: built-ins, the user's file, the workspace's.

    The user's file (``[deny] add = [...]``, ``remove = [...]``) may add rules and
    remove built-in ones. The workspace's file may only add: the agent can write
    into the workspace, so anything it could put there must not widen access.
    Called before every action, so an edited file applies without a restart.
    """
    rules = builtin_rules()
    user_path = user_file if user_file is not None else user_policy_path()
    user_table = _deny_table(_read_toml(user_path), user_path)
    removed = set(_string_list(user_table, "remove", user_path))
    rules = [rule for rule in rules if rule.pattern not in removed]
    rules += [
        Rule(p, f"user policy {user_path}")
        for p in _string_list(user_table, "add", user_path)
    ]
    if workspace is not None:
        ws_path = workspace / WORKSPACE_POLICY_NAME
        ws_table = _deny_table(_read_toml(ws_path), ws_path)
        rules += [
            Rule(p, f"workspace policy {ws_path}")
            for p in _string_list(ws_table, "add", ws_path)
        ]
    return Policy(rules, home=home)
