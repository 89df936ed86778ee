"""Parse JSON and JSON Lines on a worker: problems reported, never raised.

``json.loads`` has traps for untrusted input: deep nesting raises
``RecursionError`` (not ``JSONDecodeError``), integers over 4,300 digits raise a
plain ``ValueError``, ``NaN``/``Infinity`` pass silently and so do duplicate
keys. Each becomes a ``JsonProblem`` or a warning here. Oversized integers are kept
as their digit strings, so the rest of the document still shows. A lazy
``JsonNode`` tree lets a view build children only when a node is expanded.
"""

from __future__ import annotations

import gc
import itertools
import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

JSON_SIZE_LIMIT = 64 * 1024 * 1024
"""Above this many bytes a JSON file is shown as paged text instead."""
_MAX_WARNINGS = 20


@dataclass(frozen=True)
class JsonProblem:
    """Why a document could not be parsed, and where (1-based; 0 if unknown)."""

    message: str
    line: int = 0
    column: int = 0


@dataclass(frozen=True)
class JsonDocument:
    """A parsed value and the warnings parsing raised."""

    value: Any
    warnings: tuple[str, ...] = ()


class _Hooks:
    """Parser callbacks that note NaN/Infinity, long integers and duplicate keys."""

    def __init__(self) -> None:
        self.constants: set[str] = set()
        self.long_integers = 0
        # Objects with duplicate keys, by id; the objects stay alive in the tree.
        self.duplicates: dict[int, list[str]] = {}

    def constant(self, name: str) -> float:
        self.constants.add(name)
        return float(name)

    def integer(self, digits: str) -> int | str:
        if len(digits.lstrip("-")) > sys.get_int_max_str_digits() > 0:
            self.long_integers += 1
            return digits
        return int(digits)

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            seen: set[str] = set()
            repeated: list[str] = []
            for key, _ in pairs:
                if key in seen:
                    repeated.append(key)
                seen.add(key)
            self.duplicates[id(result)] = repeated
        return result


def _paths_to(value: Any, targets: dict[int, list[str]]) -> Iterator[str]:
    """The key path of every duplicated key, found without recursion."""
    stack: list[tuple[Any, str]] = [(value, "$")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key in targets.get(id(node), ()):
                yield f"{path}.{key}"
            stack.extend((child, f"{path}.{key}") for key, child in node.items())
        elif isinstance(node, list):
            stack.extend((child, f"{path}[{n}]") for n, child in enumerate(node))


def _problem(error: Exception) -> JsonProblem:
    if isinstance(error, json.JSONDecodeError):
        return JsonProblem(f"Not valid JSON: {error.msg}.", error.lineno, error.colno)
    if isinstance(error, RecursionError):
        limit = sys.getrecursionlimit()
        return JsonProblem(f"The JSON is nested deeper than about {limit} levels.")
    if isinstance(error, UnicodeDecodeError):
        return JsonProblem("The file is not valid UTF-8, UTF-16 or UTF-32 text.")
    return JsonProblem(f"The JSON cannot be read: {error}.")


class _CollectorPause:
    """Hold off the cyclic garbage collector while large documents are built.

    Every container the parser creates counts towards a collection, and a 10 MB
    document set off hundreds of them: most of the parse time. JSON values hold
    no reference cycles, so nothing is lost by waiting; the collector comes
    back on (if it was on) when the last parse in any thread ends.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0
        self._was_enabled = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._active == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if self._active == 0 and self._was_enabled:
                    gc.enable()


_collector_paused = _CollectorPause()


def _parse(data: bytes | str) -> tuple[Any, _Hooks]:
    with _collector_paused():
        return _parse_now(data)


def _parse_now(data: bytes | str) -> tuple[Any, _Hooks]:
    """Parse with the hooks; integers go through Python only if one is too long.

    A Python ``parse_int`` costs a call per number, so the first attempt leaves
    integers to the C parser and only a digit-limit error brings the hook in.
    """
    hooks = _Hooks()
    try:
        value = json.loads(
            data, parse_constant=hooks.constant, object_pairs_hook=hooks.pairs
        )
        return value, hooks
    except json.JSONDecodeError:
        raise
    except ValueError as error:
        if "digits" not in str(error):
            raise
    hooks = _Hooks()  # forget what the first attempt noted
    value = json.loads(
        data,
        parse_constant=hooks.constant,
        parse_int=hooks.integer,
        object_pairs_hook=hooks.pairs,
    )
    return value, hooks


def _warnings(value: Any, hooks: _Hooks, prefix: str = "") -> tuple[str, ...]:
    notes: list[str] = []
    if hooks.constants:
        names = ", ".join(sorted(hooks.constants))
        notes.append(f"{prefix}Non-standard values accepted: {names}.")
    if hooks.long_integers:
        notes.append(
            f"{prefix}{hooks.long_integers} integer(s) have over "
            f"{sys.get_int_max_str_digits()} digits and are kept as text."
        )
    if hooks.duplicates:
        for path in _paths_to(value, hooks.duplicates):
            if len(notes) >= _MAX_WARNINGS:
                break
            notes.append(f"{prefix}Duplicate key {path}: the last value is kept.")
    return tuple(notes)


def load_json(data: bytes | str) -> JsonDocument | JsonProblem:
    """Parse one JSON document (UTF-8/16/32 bytes, BOM allowed, or text)."""
    try:
        value, hooks = _parse(data)
    except (ValueError, RecursionError) as error:
        return _problem(error)
    return JsonDocument(value, _warnings(value, hooks))


@dataclass(frozen=True)
class JsonLine:
    """One line of a JSON Lines file: its 1-based number and value or problem."""

    number: int
    result: JsonDocument | JsonProblem


def load_json_lines(data: bytes) -> tuple[JsonLine, ...]:
    """Parse JSON Lines: one value per line, blank lines skipped."""
    text = data.decode("utf-8-sig", "replace")
    lines: list[JsonLine] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            lines.append(JsonLine(number, load_json(line)))
    return tuple(lines)


def pretty_json(value: Any) -> str:
    """The value indented by two spaces, non-ASCII kept as is."""
    return json.dumps(value, indent=2, ensure_ascii=False)


@dataclass(frozen=True)
class JsonNode:
    """One node of the lazy tree: its key, type, size and (hidden) value.

    ``size`` is the number of children for objects and arrays, the character
    count for strings, and 0 otherwise.
    """

    key: str | int | None
    kind: str
    size: int
    value: Any = field(repr=False, compare=False)

    @property
    def has_children(self) -> bool:
        return self.kind in ("object", "array") and self.size > 0

    def preview(self, limit: int = 80) -> str:
        """A one-line summary of the value to show beside the key."""
        if self.kind == "object":
            return f"{{{self.size} keys}}"
        if self.kind == "array":
            return f"[{self.size} items]"
        text = json.dumps(self.value, ensure_ascii=False)
        return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _kind(value: Any) -> tuple[str, int]:
    if isinstance(value, dict):
        return "object", len(value)
    if isinstance(value, list):
        return "array", len(value)
    if isinstance(value, str):
        return "string", len(value)
    if isinstance(value, bool):
        return "boolean", 0
    if value is None:
        return "null", 0
    return "number", 0


def node(value: Any, key: str | int | None = None) -> JsonNode:
    """The tree node for ``value`` (the root when ``key`` is None)."""
    kind, size = _kind(value)
    return JsonNode(key, kind, size, value)


def children(
    parent: JsonNode, start: int = 0, count: int | None = None
) -> list[JsonNode]:
    """Child nodes of ``parent`` from ``start``; ``count`` limits a huge array."""
    stop = None if count is None else start + count
    if parent.kind == "object":
        items = itertools.islice(parent.value.items(), start, stop)
        return [node(value, key) for key, value in items]
    if parent.kind == "array":
        return [
            node(value, start + n) for n, value in enumerate(parent.value[start:stop])
        ]
    return []
