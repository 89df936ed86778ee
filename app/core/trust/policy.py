"""The read-deny policy: built-in secret rules, the user's file, the workspace's."""

from __future__ import annotations

import functools
import itertools
import os
import re
import sys
import tomllib
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from app.core.trust.app_files import config_dir, protected_globs
from app.core.trust.globs import (
    GlobError,
    PathGlob,
    compile_path,
    has_wildcards,
    name_regex,
)

USER_POLICY_NAME = "policy.toml"
WORKSPACE_POLICY_NAME = ".deliverables-policy.toml"
APP_FILES_ORIGIN = "the app's own files"
# Policy files may be written by an agent (the workspace's): bound what they
# can make the app do.
MAX_POLICY_FILE = 256 * 1024
MAX_RULES_PER_FILE = 256
MAX_RULE_LENGTH = 256
MAX_RULE_TEXT_PER_FILE = 16 * 1024
MAX_WILDCARDS_PER_FILE = 256


class PermissionMode(StrEnum):
    """Which declared files the session may hand over.

    Modes change what passes the checks, never the tool schema or prompt text.
    """

    WORKSPACE_ONLY = "workspace-only"
    ALLOW_EXTERNAL = "allow-external"


MODE_HELP = (
    "which files may be handed over: workspace-only (the default) takes files "
    "inside the workspace only; allow-external also takes files outside it that "
    "the read-deny policy does not refuse"
)
"""What ``--mode`` means, for every command that takes it."""


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
    # Shell and console histories hold what was typed: tokens and passwords
    # given on a command line among them.
    ".bash_history",
    ".zsh_history",
    ".sh_history",
    ".histfile",
    "~/.local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    # The system's password hashes and host keys (readable by root).
    "/etc/shadow*",
    "/etc/gshadow*",
    "/etc/ssh/ssh_host_*_key",
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
    # Pseudo file systems: their "files" are live views of processes and the
    # kernel (/proc/self/environ holds the app's environment). Safe opens also
    # refuse them by file system type, wherever they are mounted.
    "/proc/",
    "/sys/",
    "/dev/",
)


def filesystem_is_case_insensitive() -> bool:
    """Whether paths compare without case on this platform's default file system."""
    return sys.platform in ("darwin", "win32")


def _normalise(text: str, *, fold_case: bool) -> str:
    text = unicodedata.normalize("NFC", text)
    return text.casefold() if fold_case else text


@dataclass(frozen=True)
class Rule:
    """One deny rule, with where it came from so a refusal can name it."""

    pattern: str
    origin: str  # "built-in", the user's policy file, or the workspace's

    def describe(self) -> str:
        return f"{self.pattern} ({self.origin})"


@dataclass(frozen=True)
class _CompiledRules:
    """A rule set ready to match: names in one pattern, paths one by one."""

    rules: tuple[Rule, ...]
    name_rules: tuple[tuple[int, re.Pattern[str]], ...]
    any_name: re.Pattern[str] | None
    literal_paths: dict[str, int]  # literal folder or file -> first rule index
    literal_folders: frozenset[str]
    path_rules: tuple[tuple[int, PathGlob], ...]


def _is_anchored(pattern: str) -> bool:
    return pattern.startswith("/") or re.match(r"[A-Za-z]:/", pattern) is not None


def _expand_home(pattern: str, homes: tuple[str, ...]) -> list[str]:
    if pattern == "~" or pattern.startswith("~/"):
        return [home.rstrip("/") + pattern[1:] for home in homes]
    return [pattern]


@functools.lru_cache(maxsize=32)
def _compile_all(
    rules: tuple[Rule, ...], homes: tuple[str, ...], fold_case: bool
) -> _CompiledRules:
    """Compile a rule set once; the policy is reloaded before every action."""
    group = itertools.count()
    name_rules: list[tuple[int, re.Pattern[str]]] = []
    name_sources: list[str] = []
    literal_paths: dict[str, int] = {}
    literal_folders: set[str] = set()
    path_rules: list[tuple[int, PathGlob]] = []
    for index, rule in enumerate(rules):
        raw = rule.pattern.strip().replace("\\", "/")
        folder = raw.endswith("/")
        raw = raw.rstrip("/")
        if not raw:
            continue
        for pattern in _expand_home(raw, homes):
            if "/" not in pattern:
                # A name rule guards secrets by their names, which mean the
                # same in any case: ".ENV" is as secret as ".env".
                source = name_regex(_normalise(pattern, fold_case=True), group)
                name_rules.append((index, re.compile(f"(?s:{source})\\Z")))
                name_sources.append(f"(?:{source})\\Z")
                continue
            text = _normalise(pattern, fold_case=fold_case)
            components = [part for part in text.split("/") if part]
            if _is_anchored(text) and not any(map(has_wildcards, components)):
                literal = "/" + "/".join(components)
                literal_paths.setdefault(literal, index)
                if folder:
                    literal_folders.add(literal)
                continue
            if not _is_anchored(text):
                components = ["**", *components]
            glob = compile_path([*components, "**"] if folder else components)
            path_rules.append((index, glob))
    any_name = (
        re.compile("(?s:" + "|".join(name_sources) + ")") if name_sources else None
    )
    return _CompiledRules(
        rules,
        tuple(name_rules),
        any_name,
        literal_paths,
        frozenset(literal_folders),
        tuple(path_rules),
    )


class Policy:
    """An immutable set of deny rules, checked against resolved absolute paths.

    ``problem`` is set when the policy in force could not be loaded: then this
    policy denies everything and ``problem`` says why.
    """

    def __init__(
        self,
        rules: Iterable[Rule],
        *,
        home: str | None = None,
        fold_case: bool | None = None,
        problem: str | None = None,
    ) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.problem = problem
        written = home if home is not None else os.path.expanduser("~")
        # Paths are matched after realpath(), so "~" must mean the real home
        # too: with /home a link to /var/home, "~/.ssh/" as written would
        # never match a resolved path.
        self._homes = tuple(dict.fromkeys((written, os.path.realpath(written))))
        self._fold_case = (
            filesystem_is_case_insensitive() if fold_case is None else fold_case
        )
        try:
            self._compiled = _compile_all(self.rules, self._homes, self._fold_case)
        except (GlobError, re.error, RecursionError) as error:
            raise PolicyError(f"a read-deny rule cannot be used: {error}") from error

    @classmethod
    def deny_all(cls, reason: str) -> Policy:
        """A policy that denies every path, for when the real one cannot load."""
        return cls([Rule("/**", f"policy not loaded: {reason}")], problem=reason)

    def denying_rule(self, path: str) -> Rule | None:
        """The first rule that forbids reading ``path``, or ``None`` if it is allowed.

        ``path`` should be absolute and already resolved; this function does not
        touch the file system.
        """
        compiled = self._compiled
        slashed = path.replace(os.sep, "/")
        normal = _normalise(slashed, fold_case=self._fold_case)
        parts = [part for part in normal.split("/") if part]
        hits: list[int] = []
        if compiled.any_name is not None:
            folded = _normalise(slashed, fold_case=True)
            names = [part for part in folded.split("/") if part]
            if any(compiled.any_name.match(name) for name in names):
                hits += [
                    index
                    for index, regex in compiled.name_rules
                    if any(regex.match(name) for name in names)
                ][:1]
        prefix = ""
        for depth, part in enumerate(parts):
            prefix = f"{prefix}/{part}"
            found = compiled.literal_paths.get(prefix)
            if found is not None and (
                depth == len(parts) - 1 or prefix in compiled.literal_folders
            ):
                hits.append(found)
        for index, glob in compiled.path_rules:
            if hits and index > min(hits):
                break
            if glob.matches(parts):
                hits.append(index)
                break
        return self.rules[min(hits)] if hits else None

    def in_folder(self, folder: str) -> Callable[[str], Rule | None]:
        """``denying_rule`` for names directly inside ``folder``, many at a time.

        What depends only on the folder (its components, the name rules its
        own names hit, literal folder rules above it) is worked out once, so
        a listing of 10,000 entries does not redo it 10,000 times. The answer
        for each name is exactly ``denying_rule(folder/name)``: a name this
        shortcut cannot split off cleanly is checked the long way.
        """
        compiled = self._compiled
        base = folder.replace(os.sep, "/").rstrip("/")
        base_normal = _normalise(base, fold_case=self._fold_case)
        base_parts = [part for part in base_normal.split("/") if part]
        base_folded = _normalise(base, fold_case=True)
        # The first name rule (by position) that one of the folder's names hits.
        first_name: int | None = None
        if compiled.any_name is not None:
            names = [part for part in base_folded.split("/") if part]
            if any(compiled.any_name.match(name) for name in names):
                first_name = next(
                    (
                        position
                        for position, (_, regex) in enumerate(compiled.name_rules)
                        if any(regex.match(name) for name in names)
                    ),
                    None,
                )
        folder_hits: list[int] = []
        prefix = ""
        for part in base_parts:
            prefix = f"{prefix}/{part}"
            found = compiled.literal_paths.get(prefix)
            if found is not None and prefix in compiled.literal_folders:
                folder_hits.append(found)
        # Path rules narrowed to this folder; those that can match none dropped.
        path_rules = [
            (index, matches)
            for index, glob in compiled.path_rules
            if (matches := glob.in_folder(base_parts)) is not None
        ]
        normal_head = base_normal + "/"
        folded_head = base_folded + "/"

        def check(name: str) -> Rule | None:
            path = f"{base}/{name}"
            normal = _normalise(path, fold_case=self._fold_case)
            folded = _normalise(path, fold_case=True)
            child = normal[len(normal_head) :]
            child_folded = folded[len(folded_head) :]
            if (
                not name
                or "/" in name
                or os.sep in name
                or not normal.startswith(normal_head)
                or not folded.startswith(folded_head)
                or not child
                or "/" in child
                or "/" in child_folded
            ):
                return self.denying_rule(path)
            hits = list(folder_hits)
            position = first_name
            if compiled.any_name is not None and compiled.any_name.match(child_folded):
                for here, (_, regex) in enumerate(compiled.name_rules):
                    if position is not None and here >= position:
                        break
                    if regex.match(child_folded):
                        position = here
                        break
            if position is not None:
                hits.append(compiled.name_rules[position][0])
            found = compiled.literal_paths.get(
                f"/{'/'.join(base_parts)}/{child}" if base_parts else f"/{child}"
            )
            if found is not None:
                hits.append(found)
            for index, matches in path_rules:
                if hits and index > min(hits):
                    break
                if matches(child):
                    hits.append(index)
                    break
            return self.rules[min(hits)] if hits else None

        return check


def builtin_rules() -> list[Rule]:
    return [Rule(pattern, "built-in") for pattern in BUILTIN_RULES]


def app_rules() -> list[Rule]:
    """Deny rules for the app's own files; no policy file can remove them."""
    return [
        Rule(pattern, APP_FILES_ORIGIN)
        for pattern in (WORKSPACE_POLICY_NAME, *protected_globs())
    ]


def user_policy_path() -> Path:
    """Where the user's policy file lives (the platform config folder)."""
    return config_dir() / USER_POLICY_NAME


def _read_toml(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_POLICY_FILE + 1)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise PolicyError(f"cannot read policy file {path}: {error}") from error
    return _parse_toml(data, path)


def _parse_toml(data: bytes, path: Path | str) -> dict[str, object]:
    if len(data) > MAX_POLICY_FILE:
        raise PolicyError(f"policy file {path} is larger than {MAX_POLICY_FILE} bytes")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as error:
        raise PolicyError(f"cannot read policy file {path}: {error}") from error


def _string_list(table: dict[str, object], key: str, path: Path | str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PolicyError(f"{path}: [deny] {key} must be a list of strings")
    if len(value) > MAX_RULES_PER_FILE:
        raise PolicyError(
            f"{path}: [deny] {key} has {len(value)} rules; at most "
            f"{MAX_RULES_PER_FILE} are allowed"
        )
    for pattern in value:
        if len(pattern) > MAX_RULE_LENGTH:
            raise PolicyError(
                f"{path}: a rule is longer than {MAX_RULE_LENGTH} characters"
            )
    # Compiling is linear in the rules' text and wildcards; bound both so a
    # file cannot make each reload slow either.
    if sum(map(len, value)) > MAX_RULE_TEXT_PER_FILE:
        raise PolicyError(
            f"{path}: [deny] {key} holds more than {MAX_RULE_TEXT_PER_FILE} "
            "characters of rules"
        )
    wildcards = sum(len(re.findall(r"\*+|\?|\[", pattern)) for pattern in value)
    if wildcards > MAX_WILDCARDS_PER_FILE:
        raise PolicyError(
            f"{path}: [deny] {key} uses more than {MAX_WILDCARDS_PER_FILE} wildcards"
        )
    return list(value)


def _deny_table(data: dict[str, object], path: Path | str) -> dict[str, object]:
    table = data.get("deny", {})
    if not isinstance(table, dict):
        raise PolicyError(f"{path}: [deny] must be a table")
    return table


def load_policy(
    *,
    workspace: Path | None = None,
    user_file: Path | None = None,
    home: str | None = None,
    workspace_policy: tuple[str, bytes | None] | None = None,
) -> Policy:
    """Build the policy in force now: built-ins, the user's file, the workspace's.

    The user's file (``[deny] add = [...]``, ``remove = [...]``) may add rules and
    remove built-in ones. The workspace's file may only add: the agent can write
    into the workspace, so anything it could put there must not widen access.
    The app's own files are denied whatever either file says. A workspace on
    another host passes its policy file as ``workspace_policy``: where it
    lives and its bytes (``None`` when it has none), read over SFTP. Raises
    ``PolicyError``; callers that act on files use ``current_policy``.
    """
    rules = builtin_rules()
    user_path = user_file if user_file is not None else user_policy_path()
    user_table = _deny_table(_read_toml(user_path), user_path)
    removed = set(_string_list(user_table, "remove", user_path))
    rules = [rule for rule in rules if rule.pattern not in removed]
    rules += app_rules()
    rules += [
        Rule(p, f"user policy {user_path}")
        for p in _string_list(user_table, "add", user_path)
    ]
    if workspace is not None:
        ws_path = Path(workspace) / WORKSPACE_POLICY_NAME
        ws_table = _deny_table(_read_toml(ws_path), ws_path)
        rules += [
            Rule(p, f"workspace policy {ws_path}")
            for p in _string_list(ws_table, "add", ws_path)
        ]
    label, data = workspace_policy or ("", None)
    if data is not None:
        remote_table = _deny_table(_parse_toml(data, label), label)
        rules += [
            Rule(p, f"workspace policy {label}")
            for p in _string_list(remote_table, "add", label)
        ]
    return Policy(rules, home=home)


def current_policy(
    workspace: Path | str | None = None,
    *,
    user_file: Path | None = None,
    home: str | None = None,
    workspace_policy: tuple[str, bytes | None] | None = None,
) -> Policy:
    """The policy in force now, or one that denies everything and says why.

    The one door every check goes through: whatever goes wrong while loading
    or compiling (a broken file, an unusable glob, anything unforeseen) must
    close access, never open it.
    """
    try:
        return load_policy(
            workspace=Path(workspace) if workspace else None,
            user_file=user_file,
            home=home,
            workspace_policy=workspace_policy,
        )
    except Exception as error:  # fail closed on every failure, named or not
        return Policy.deny_all(str(error) or type(error).__name__)


def policy_file_state(path: Path | None = None) -> tuple[int, int, int, int] | None:
    """The identity of the user's policy file now (None when there is none).

    Compared before and after an agent turn: a change the user did not make
    while the agent worked is worth telling them about.
    """
    try:
        status = os.stat(path if path is not None else user_policy_path())
    except OSError:
        return None
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
