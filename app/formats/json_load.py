"""Parse JSON and JSON Lines on a worker: problems reported, never raised.

The first parse is ``orjson``'s, which is strict: it refuses ``NaN``, numbers
that overflow a double, byte order marks and lone surrogates, and it rounds
integers beyond 64 bits. Whatever it refuses is parsed again by ``json`` with
hooks, so every trap of untrusted input becomes a ``JsonProblem`` or a warning:
deep nesting (``RecursionError``), integers over 4,300 digits (kept as their
digits), ``NaN``/``Infinity`` and numbers such as ``1e400`` (shown as Infinity,
with a notice). Duplicate keys are found by ``check_json``, a second pass a
view runs in the background once the tree is shown.

A document over ``RAW_LIMIT`` that orjson would accept is first read by
msgspec with its top container's children left as raw JSON
(``load_json_raw``): the whole text is validated in one pass that builds
nothing below the top, about a sixth of a full parse, and a child is parsed
when the tree shows it. Big children are read the same way in turn.

Documents over ``LAZY_LIMIT`` are never built whole (a 60 MB array of small
objects is about 900 MB of Python objects): ``load_json_lazy`` indexes where
each child of the top container starts and ends, and children are parsed when
a view asks for them. Its memory is the text and 16 bytes a child. JSON Lines
files are indexed the same way, a line parsed when it is shown.
"""

from __future__ import annotations

import array
import itertools
import json
import math
import re
import sys
from _json import scanstring as _scanstring
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec
import orjson

from app.core.filetype import find_bom
from app.core.filetype.sizes import counted
from app.formats import byte_find
from app.formats.collection import collector_paused

JSON_SIZE_LIMIT = 64 * 1024 * 1024
"""Above this many bytes a JSON file is shown as paged text instead."""
RAW_LIMIT = 1024 * 1024
"""Above this many bytes a document's top container is read with raw children."""
_RAW_NESTED = 256 * 1024
"""A raw child over this many bytes that is a container is read the same way."""
LAZY_LIMIT = 16 * 1024 * 1024
"""Above this many bytes a document (or a line, or a child) is indexed, not built."""
_BIG_LINE = 1024 * 1024
"""A JSON Lines line over this many bytes is indexed when the file is loaded."""
_MAX_WARNINGS = 20
_NESTED_LAZY_DEPTH = 8
_CHECK_WHOLE = 512 * 1024
"""Documents up to this size are checked for duplicate keys in one call."""
_CHECK_DEPTH = 32
_CANCEL_EVERY = 1024
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_INTEGER = b"0" * 19
_LONG_EXPONENTS = (b"e000", b"E000", b"e+000", b"E+000")


def _long_numbers(data: bytes | str, exponents: bool = False) -> bool:
    """Whether ``data`` may hold an integer past 64 bits (or a 3-digit exponent).

    orjson rounds such integers, so files that may hold one go to the hooked
    parser (it refuses doubles that overflow by itself). A translate and a
    find run at memory speed, where a regular expression took seconds on a
    24 MB file. Digits in strings can send a file to the slower parser; they
    never change what it shows.
    """
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    zeroed = byte_find.translated(data, _DIGITS_AS_ZERO)
    if byte_find.find(zeroed, _LONG_INTEGER) != -1:
        return True
    return exponents and any(
        byte_find.find(zeroed, run) != -1 for run in _LONG_EXPONENTS
    )


_SPACE = re.compile(r"[ \t\n\r]*")
_SPACE_CHARS = frozenset(" \t\n\r")
Cancelled = Callable[[], bool]
_Scan = Callable[[str, int], tuple[Any, int]]


class JsonStoppedError(Exception):
    """The parse stopped because its preview closed."""


@dataclass(frozen=True)
class JsonProblem:
    """Why a document could not be parsed, and where (1-based; 0 if unknown)."""

    message: str
    line: int = 0
    column: int = 0


@dataclass(frozen=True)
class JsonDocument:
    """A parsed value and the warnings parsing raised.

    ``checked`` is False when the duplicate-key pass (``check_json``) is
    still to run; the value is complete either way.
    """

    value: Any
    warnings: tuple[str, ...] = ()
    checked: bool = field(default=True, compare=False)


class _Hooks:
    """Parser callbacks that note NaN/Infinity, long numbers and duplicate keys."""

    def __init__(self) -> None:
        self.constants: set[str] = set()
        self.long_integers = 0
        self.infinite = 0
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

    def number(self, digits: str) -> float:
        value = float(digits)
        if math.isinf(value):
            self.infinite += 1
        return value

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            self.duplicates[id(result)] = _repeated(pairs)
        return result


def _repeated(pairs: list[tuple[str, Any]]) -> list[str]:
    seen: set[str] = set()
    repeated: list[str] = []
    for key, _ in pairs:
        if key in seen:
            repeated.append(key)
        seen.add(key)
    return repeated


class _Marked(dict[str, Any]):
    """A skeleton object that had duplicate keys (``repeated``)."""

    repeated: tuple[str, ...] = ()


def _skeleton_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any] | None:
    """Keep only what leads to a duplicate key: the check pass's object hook.

    Objects without duplicates and without containers below them become None,
    so the pass holds far less than the document.
    """
    result = dict(pairs)
    kept = {k: v for k, v in result.items() if isinstance(v, (dict, list))}
    if len(result) != len(pairs):
        marked = _Marked(kept)
        marked.repeated = tuple(_repeated(pairs))
        return marked
    return kept or None


def _paths_to(value: Any, prefix: str = "$") -> Iterator[str]:
    """The key path of every duplicated key, found without recursion."""
    stack: list[tuple[Any, str]] = [(value, prefix)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key in getattr(node, "repeated", ()):
                yield f"{path}.{key}"
            stack.extend(
                (child, f"{path}.{key}") for key, child in reversed(node.items())
            )
        elif isinstance(node, list):
            stack.extend(
                (child, f"{path}[{n}]")
                for n, child in reversed(list(enumerate(node)))
                if isinstance(child, (dict, list))
            )


def _problem(error: Exception) -> JsonProblem:
    if isinstance(error, json.JSONDecodeError):
        return JsonProblem(f"Not valid JSON: {error.msg}.", error.lineno, error.colno)
    if isinstance(error, RecursionError):
        limit = sys.getrecursionlimit()
        return JsonProblem(f"The JSON is nested deeper than about {limit} levels.")
    if isinstance(error, UnicodeDecodeError):
        return JsonProblem("The file is not valid UTF-8, UTF-16 or UTF-32 text.")
    return JsonProblem(f"The JSON cannot be read: {error}.")


def _parse(data: bytes | str) -> tuple[Any, _Hooks]:
    if isinstance(data, bytes):
        # json.loads would let encoded surrogates through ("surrogatepass").
        data = _decode(data)
    with collector_paused():
        return _parse_now(data)


def _parse_now(data: bytes | str) -> tuple[Any, _Hooks]:
    """Parse with the hooks; integers go through Python only if one is too long.

    A Python ``parse_int`` costs a call per number, so the first attempt leaves
    integers to the C parser and only a digit-limit error brings the hook in.
    """
    hooks = _Hooks()
    try:
        value = json.loads(
            data,
            parse_constant=hooks.constant,
            parse_float=hooks.number,
            object_pairs_hook=hooks.pairs,
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
        parse_float=hooks.number,
        object_pairs_hook=hooks.pairs,
    )
    return value, hooks


def _number_notes(hooks: _Hooks, prefix: str = "") -> list[str]:
    notes: list[str] = []
    if hooks.constants:
        names = ", ".join(sorted(hooks.constants))
        notes.append(f"{prefix}Non-standard values accepted: {names}.")
    if hooks.long_integers:
        notes.append(
            f"{prefix}{hooks.long_integers} integer(s) have over "
            f"{sys.get_int_max_str_digits()} digits and are kept as text."
        )
    if hooks.infinite:
        notes.append(
            f"{prefix}{hooks.infinite} number(s) are too large for a double "
            "(such as 1e400) and are shown as Infinity."
        )
    return notes


def _warnings(value: Any, hooks: _Hooks, prefix: str = "") -> tuple[str, ...]:
    notes = _number_notes(hooks, prefix)
    if hooks.duplicates:
        for path in _duplicate_paths(value, hooks.duplicates):
            if len(notes) >= _MAX_WARNINGS:
                break
            notes.append(f"{prefix}Duplicate key {path}: the last value is kept.")
    return tuple(notes)


def _duplicate_paths(
    value: Any, targets: dict[int, list[str]], prefix: str = "$"
) -> Iterator[str]:
    stack: list[tuple[Any, str]] = [(value, prefix)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key in targets.get(id(node), ()):
                yield f"{path}.{key}"
            stack.extend(
                (child, f"{path}.{key}") for key, child in reversed(node.items())
            )
        elif isinstance(node, list):
            stack.extend(
                (child, f"{path}[{n}]") for n, child in reversed(list(enumerate(node)))
            )


def _fast_bytes(data: bytes) -> bytes | None:
    """The bytes orjson may parse (UTF-8, BOM removed), or None for the slow path."""
    bom = find_bom(data)
    if bom is not None and bom.codec != "utf-8":
        return None  # UTF-16/32: json decodes them
    if bom is not None:
        data = data[len(bom.mark) :]
    if b"\x00" in data[:4] or _long_numbers(data):
        return None  # UTF-16/32, or numbers orjson would round or refuse
    return data


_PART_BYTES = 256 * 1024
"""A big top-level array is parsed about this much at a time (``_orjson_loads``)."""
_PART_MISSES = 4
# Where one element of an array likely ends and the next begins, by what the
# first element starts with: most commas inside elements do not match.
_ANY_COMMA = re.compile(rb"(,)")
_BETWEEN = {
    b"{": re.compile(rb"[}\]]\s*(,)\s*[{\[]"),
    b"[": re.compile(rb"[}\]]\s*(,)\s*[{\[]"),
    b'"': re.compile(rb'(?<!\\)"\s*(,)\s*"'),
}


_FIRST_KEY = re.compile(rb'\s*\{\s*("(?:[^"\\]|\\.){0,64}")\s*:')


def _element_boundary(raw: bytes, start: int) -> re.Pattern[bytes]:
    """Where an element of the array starting at ``start`` likely ends.

    Objects that begin with the first element's first key mark a boundary
    that nested objects rarely share.
    """
    element = raw[start : start + 64].lstrip()[:1]
    if element == b"{":
        key = _FIRST_KEY.match(raw, start)
        if key is not None:
            signature = re.escape(key.group(1))
            return re.compile(rb"\}\s*(,)\s*\{\s*" + signature + rb"\s*:")
    return _BETWEEN.get(element, _ANY_COMMA)


def _orjson_loads(data: bytes | str) -> Any:
    """``orjson.loads``, with a big top-level array parsed ``_PART_BYTES`` at a time.

    orjson holds the interpreter lock for the whole of one call (10 MB: over
    0.1 s, while the GUI thread waits). An array is cut after a comma and the
    part before it parsed as an array of its own: a comma inside a string or
    a nested value leaves that part unbalanced, so it fails and the next comma
    is tried. The parts joined are what one call returns. After a few misses,
    or anything else amiss, the rest is parsed in one call, as before.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    head = raw[:4096]
    start = len(head) - len(head.lstrip())
    if len(raw) <= 2 * _PART_BYTES or raw[start : start + 1] != b"[":
        return orjson.loads(data)
    values: list[Any] = []
    first = start = start + 1  # just after the array's "["
    between = _element_boundary(raw, start)
    misses = wasted = 0

    def comma_after(position: int) -> int:
        found = between.search(raw, position)
        return -1 if found is None else found.start(1)

    comma = comma_after(start + _PART_BYTES)
    # The rest is always over a part long: never "]" alone after a last comma.
    # Parts that failed may cost as much as what was parsed, then one call
    # takes the rest: a shape whose commas mislead costs at most twice.
    while (
        comma >= 0
        and len(raw) - comma > _PART_BYTES
        and misses < _PART_MISSES
        and wasted <= (start - first) + 2 * _PART_BYTES
    ):
        try:
            part = orjson.loads(b"[" + raw[start:comma] + b"]")
        except orjson.JSONDecodeError:
            misses += 1  # inside a string or a nested value: the next comma
            wasted += comma - start
            comma = comma_after(comma + 1)
            continue
        values.extend(part)
        start, misses = comma + 1, 0
        comma = comma_after(start + _PART_BYTES)
    if start == first:
        return orjson.loads(data)  # nothing was cut off: one call, as before
    values.extend(orjson.loads(b"[" + raw[start:]))
    return values


def load_json_fast(data: bytes | str) -> JsonDocument | JsonProblem:
    """Parse one document as fast as it can be; duplicate keys not yet checked.

    Valid documents go through orjson and come back with ``checked`` False:
    run ``check_json`` (in the background) for their duplicate keys.
    Anything orjson refuses is parsed by ``json`` with hooks, fully checked.
    """
    if isinstance(data, str):
        fast: bytes | str | None = (
            None if _long_numbers(data) else data.removeprefix("\ufeff")
        )
    else:
        fast = _fast_bytes(data)
    if fast is not None:
        try:
            with collector_paused():
                return JsonDocument(_orjson_loads(fast), (), checked=False)
        except orjson.JSONDecodeError:
            pass  # the hooked parser says what is wrong, or accepts it with a note
    try:
        value, hooks = _parse(data)
    except (ValueError, RecursionError) as error:
        return _problem(error)
    return JsonDocument(value, _warnings(value, hooks))


def check_json(
    data: bytes | str, cancelled: Cancelled | None = None
) -> tuple[str, ...]:
    """The duplicate-key warnings of a document ``load_json_fast`` parsed.

    Holds only a skeleton of the document (the objects that lead to a
    duplicate), not a second copy of it.
    """
    has_object = b"{" in data if isinstance(data, bytes) else "{" in data
    if not has_object:
        return ()  # no object, no key to repeat (a search at memchr speed)
    if len(data) > _CHECK_WHOLE:
        return _check_in_parts(data, cancelled or (lambda: False))
    try:
        with collector_paused():
            skeleton = json.loads(data, object_pairs_hook=_skeleton_pairs)
    except (ValueError, RecursionError):
        return ()
    notes: list[str] = []
    for path in _paths_to(skeleton):
        if len(notes) >= _MAX_WARNINGS or (cancelled is not None and cancelled()):
            break
        notes.append(f"Duplicate key {path}: the last value is kept.")
    return tuple(notes)


def _check_in_parts(data: bytes | str, cancelled: Cancelled) -> tuple[str, ...]:
    """``check_json`` for a big document: child by child, objects walked in turn.

    Each step is a short call into the C scanner, so the GUI thread gets the
    interpreter lock between them (one ``json.loads`` of 2 MB held it 0.4 s).
    """
    try:
        text = _decode(data) if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        return ()
    text = text.removeprefix("\ufeff")
    indexer = _Indexer(text, cancelled, numbers=False, open_depth=_CHECK_DEPTH)
    start = indexer.skip_space(0)
    if text[start : start + 1] not in ("[", "{"):
        return ()
    try:
        with collector_paused():
            indexer.container(start, "$", 0)
    except (ValueError, RecursionError, JsonStoppedError):
        return ()
    return tuple(
        f"Duplicate key {path}: the last value is kept."
        for path in indexer.duplicate_paths[:_MAX_WARNINGS]
    )


def load_json(data: bytes | str) -> JsonDocument | JsonProblem:
    """Parse one JSON document (UTF-8/16/32 bytes, BOM allowed, or text), checked."""
    result = load_json_fast(data)
    if isinstance(result, JsonDocument) and not result.checked:
        return JsonDocument(result.value, check_json(data))
    return result


# -- big documents: an index of the top container, children parsed on demand -----


def _decode(data: bytes) -> str:
    """The document's text: a BOM picks UTF-8/16/32, as ``json.loads`` does."""
    encoding = json.detect_encoding(data)
    return data.decode(encoding, "strict")


class LazyContainer:
    """A big array or object: where each child is in the text, parsed when asked.

    ``nested`` holds the children that are big themselves, indexed in turn.
    """

    __slots__ = ("_ends", "_keys", "_starts", "_text", "kind", "nested")

    def __init__(self, kind: str, text: str) -> None:
        self.kind = kind
        self._text = text
        self._starts = array.array("q")
        self._ends = array.array("q")
        self._keys: list[str] | None = [] if kind == "object" else None
        self.nested: dict[int, LazyContainer] = {}

    @property
    def size(self) -> int:
        return len(self._starts)

    def span(self, n: int) -> tuple[int, int]:
        return self._starts[n], self._ends[n]

    def key(self, n: int) -> str | int:
        return self._keys[n] if self._keys is not None else n

    def value(self, n: int) -> Any:
        """The child ``n``: parsed now, or the nested index when it is big."""
        found = self.nested.get(n)
        if found is not None:
            return found
        start, end = self.span(n)
        result = load_json_fast(self._text[start:end])
        return result.value if isinstance(result, JsonDocument) else None


class RawContainer(LazyContainer):
    """A container whose children msgspec kept as raw JSON: parsed when asked.

    The text was validated whole when it was read, and it holds no number
    orjson would refuse or round (``load_json_raw`` checks), so a child parses.
    """

    __slots__ = ("_raw",)

    def __init__(self, kind: str, keys: list[str] | None, raw: list[msgspec.Raw]):
        super().__init__(kind, "")
        self._keys = keys
        self._raw = raw

    @property
    def size(self) -> int:
        return len(self._raw)

    def span(self, n: int) -> tuple[int, int]:
        raise TypeError("a raw child has no span in a text")

    def value(self, n: int) -> Any:
        found = self.nested.get(n)
        if found is not None:
            return found
        return orjson.loads(memoryview(self._raw[n]))


def _raw_container(data: bytes | msgspec.Raw, depth: int) -> RawContainer | None:
    """``data``'s top container with raw children, or None if it is no container.

    Children over ``_RAW_NESTED`` bytes that are containers are read the same
    way, down to ``_NESTED_LAZY_DEPTH``: a 10 MB array under the top object is
    never built whole either. Raises ``msgspec.DecodeError`` on invalid JSON.
    """
    opener = bytes(memoryview(data)[:64]).lstrip()[:1]
    container: RawContainer
    if opener == b"{":
        pairs = msgspec.json.decode(data, type=dict[str, msgspec.Raw])
        container = RawContainer("object", list(pairs), list(pairs.values()))
    elif opener == b"[":
        items = msgspec.json.decode(data, type=list[msgspec.Raw])
        container = RawContainer("array", None, items)
    else:
        return None
    children = container._raw
    # max over the sizes is one C loop; the Python loop runs only if it finds one.
    if depth < _NESTED_LAZY_DEPTH and max(map(len, children), default=0) > _RAW_NESTED:
        for n, raw in enumerate(children):
            if len(raw) > _RAW_NESTED:
                nested = _raw_container(raw, depth + 1)
                if nested is not None:
                    container.nested[n] = nested
    return container


def load_json_raw(data: bytes) -> JsonDocument | None:
    """The document with raw children (``RawContainer``), or None for another path.

    Only for what orjson would parse the same way: UTF-8 without numbers it
    would round or refuse (long integers, three-digit exponents). Anything
    msgspec refuses goes to ``load_json_fast``, which says why. Duplicate
    keys keep their last value, as orjson keeps it; ``check_json`` notes them.
    """
    bom = find_bom(data)
    if bom is not None and bom.codec != "utf-8":
        return None
    fast = data[len(bom.mark) :] if bom is not None else data
    if b"\x00" in fast[:4] or _long_numbers(fast, exponents=True):
        return None
    try:
        with collector_paused():
            top = _raw_container(fast, 0)
    except msgspec.DecodeError:
        return None
    return None if top is None else JsonDocument(top, (), checked=False)


@dataclass(frozen=True)
class LazyDocument:
    """A document over ``LAZY_LIMIT``: its top container indexed, and warnings."""

    value: LazyContainer | Any
    warnings: tuple[str, ...] = ()


class _Indexer:
    """Walks a container's children with the C scanner, keeping only their spans.

    Each child is parsed once and dropped; the object hook notes duplicate
    keys, whose paths are worked out only for a child that has some.
    """

    def __init__(
        self, text: str, cancelled: Cancelled, numbers: bool, open_depth: int = 2
    ) -> None:
        self.text = text
        self.cancelled = cancelled
        # Up to this depth an object's container values are walked in turn
        # rather than scanned whole: one scan is one C call that holds the
        # interpreter lock, so {"data": [20 MB]} would hold it for a second.
        self.open_depth = open_depth
        self.hooks = _Hooks()
        self.duplicate_paths: list[str] = []
        decoder = json.JSONDecoder(
            object_pairs_hook=self.hooks.pairs,
            parse_constant=self.hooks.constant,
            parse_float=self.hooks.number if numbers else None,
        )
        long_decoder = json.JSONDecoder(
            object_pairs_hook=self.hooks.pairs,
            parse_constant=self.hooks.constant,
            parse_float=self.hooks.number,
            parse_int=self.hooks.integer,
        )
        # The C scanner raw_decode calls, without its per-call checks.
        self.scan: _Scan = vars(decoder)["scan_once"]
        self.long_scan: _Scan = vars(long_decoder)["scan_once"]

    def skip_space(self, position: int) -> int:
        if self.text[position : position + 1] not in _SPACE_CHARS:
            return position
        found = _SPACE.match(self.text, position)
        return found.end() if found is not None else position

    def value_end(self, position: int, path: Callable[[], str]) -> int:
        try:
            value, end = self.scan(self.text, position)
        except StopIteration as stop:
            raise json.JSONDecodeError(
                "Expecting value", self.text, stop.value
            ) from None
        except json.JSONDecodeError:
            raise
        except ValueError as error:
            if "digits" not in str(error):
                raise
            value, end = self.long_scan(self.text, position)
        end = int(end)
        if self.hooks.duplicates:
            if len(self.duplicate_paths) < _MAX_WARNINGS:
                found = _duplicate_paths(value, self.hooks.duplicates, path())
                self.duplicate_paths.extend(itertools.islice(found, _MAX_WARNINGS))
            self.hooks.duplicates.clear()
        return end

    def expect(self, position: int, wanted: str, message: str) -> None:
        if self.text[position : position + 1] != wanted:
            raise json.JSONDecodeError(message, self.text, position)

    def container(self, start: int, path: str, depth: int) -> tuple[LazyContainer, int]:
        """Index the container at ``start`` (its opening bracket); and its end."""
        text = self.text
        opener = text[start]
        kind = "object" if opener == "{" else "array"
        closer = "}" if opener == "{" else "]"
        found = LazyContainer(kind, text)
        starts, ends = found._starts, found._ends
        keys = found._keys
        position = self.skip_space(start + 1)
        if text[position : position + 1] == closer:
            return found, position + 1
        seen: set[str] = set()
        count = 0
        while True:
            if count % _CANCEL_EVERY == 0 and self.cancelled():
                raise JsonStoppedError("the preview was closed")
            key: str | None = None
            if keys is not None:
                self.expect(
                    position, '"', "Expecting property name enclosed in double quotes"
                )
                key, position = _scanstring(text, position + 1)
                position = self.skip_space(position)
                self.expect(position, ":", "Expecting ':' delimiter")
                position = self.skip_space(position + 1)

            def child_path(key: str | None = key, n: int = count) -> str:
                return f"{path}.{key}" if key is not None else f"{path}[{n}]"

            value_start = position
            if (
                keys is not None
                and depth < self.open_depth
                and text[position : position + 1] in ("[", "{")
            ):
                nested, position = self.container(position, child_path(), depth + 1)
                found.nested[count] = nested
            else:
                position = self.value_end(position, child_path)
            if keys is not None and key is not None:
                if key in seen and len(self.duplicate_paths) < _MAX_WARNINGS:
                    self.duplicate_paths.append(child_path())
                seen.add(key)
                keys.append(key)
            starts.append(value_start)
            ends.append(position)
            count += 1
            if (
                position - value_start > LAZY_LIMIT
                and depth < _NESTED_LAZY_DEPTH
                and text[value_start] in "[{"
                and count - 1 not in found.nested
            ):
                found.nested[count - 1] = self.container(
                    value_start, child_path(), depth + 1
                )[0]
            position = self.skip_space(position)
            following = text[position : position + 1]
            if following == ",":
                position = self.skip_space(position + 1)
                continue
            self.expect(position, closer, "Expecting ',' delimiter")
            return found, position + 1

    def notes(self) -> tuple[str, ...]:
        notes = _number_notes(self.hooks)
        notes.extend(
            f"Duplicate key {path}: the last value is kept."
            for path in self.duplicate_paths
        )
        return tuple(notes[:_MAX_WARNINGS])


def load_json_lazy(
    data: bytes, cancelled: Cancelled = lambda: False
) -> LazyDocument | JsonProblem:
    """Index a big document's top container; raises ``JsonStoppedError`` if cancelled.

    Children are parsed by ``LazyContainer.value`` when a view shows them; a
    duplicate key of the top object keeps its last value, as ``json`` does,
    but both entries stay listed.
    """
    try:
        text = _decode(data)
    except UnicodeDecodeError as error:
        return _problem(error)
    text = text.removeprefix("\ufeff")
    indexer = _Indexer(text, cancelled, _long_numbers(data, exponents=True))
    try:
        with collector_paused():
            start = indexer.skip_space(0)
            if text[start : start + 1] not in ("[", "{"):
                result = load_json_fast(text)
                if isinstance(result, JsonProblem):
                    return result
                return LazyDocument(result.value, result.warnings)
            top, end = indexer.container(start, "$", 0)
            end = indexer.skip_space(end)
            if end != len(text):
                raise json.JSONDecodeError("Extra data", text, end)
    except (ValueError, RecursionError) as error:
        return _problem(error)
    return LazyDocument(top, indexer.notes())


# -- JSON Lines --------------------------------------------------------------------


class JsonLines:
    """A JSON Lines file, indexed: one value per non-blank line, parsed when shown.

    ``bad`` maps the number of each line that is not valid JSON to its problem;
    ``warnings`` are the other lines' notes, prefixed with their numbers.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self.numbers = array.array("q")
        self._starts = array.array("q")
        self._ends = array.array("q")
        self.bad: dict[int, JsonProblem] = {}
        self.warnings: list[str] = []
        self.nested: dict[int, LazyContainer] = {}

    @property
    def size(self) -> int:
        return len(self.numbers)

    def line(self, n: int) -> JsonDocument | JsonProblem:
        """The ``n``th non-blank line's value (0-based), parsed now."""
        number = self.numbers[n]
        problem = self.bad.get(number)
        if problem is not None:
            return problem
        nested = self.nested.get(n)
        if nested is not None:
            return JsonDocument(nested)
        return load_json_fast(self._text[self._starts[n] : self._ends[n]])

    def __len__(self) -> int:
        return self.size


def load_json_lines(data: bytes, cancelled: Cancelled = lambda: False) -> JsonLines:
    """Index JSON Lines: one value per line, blank lines skipped, each one checked.

    Every line is parsed once here, to find the bad ones and the warnings, and
    its value dropped; raises ``JsonStoppedError`` if ``cancelled``.
    """
    text = data.decode("utf-8-sig", "replace")
    lines = JsonLines(text)
    position, number, length = 0, 0, len(text)
    with collector_paused():
        while position < length:
            number += 1
            end = text.find("\n", position)
            if end == -1:
                end = length
            if number % _CANCEL_EVERY == 0 and cancelled():
                raise JsonStoppedError("the preview was closed")
            stop = end - 1 if end > position and text[end - 1] == "\r" else end
            line = text[position:stop]
            if line.strip():
                _index_line(lines, line, number, position, stop, cancelled)
            position = end + 1
    return lines


def _index_line(
    lines: JsonLines,
    line: str,
    number: int,
    start: int,
    stop: int,
    cancelled: Cancelled,
) -> None:
    n = lines.size
    lines.numbers.append(number)
    lines._starts.append(start)
    lines._ends.append(stop)
    if len(line) > _BIG_LINE and line.lstrip()[:1] in ("[", "{"):
        found = load_json_lazy(line.encode("utf-8", "surrogatepass"), cancelled)
        if isinstance(found, JsonProblem):
            lines.bad[number] = found
        else:
            if isinstance(found.value, LazyContainer):
                lines.nested[n] = found.value
            lines.warnings.extend(f"Line {number}: {note}" for note in found.warnings)
        return
    try:
        orjson.loads(line)
        return
    except orjson.JSONDecodeError:
        pass
    result = load_json(line)
    if isinstance(result, JsonProblem):
        lines.bad[number] = result
    elif len(lines.warnings) < _MAX_WARNINGS:
        lines.warnings.extend(f"Line {number}: {note}" for note in result.warnings)


_PRETTY_PART = 1000
"""A long array is indented this many elements at a time (``pretty_json``)."""


def _indented(value: Any) -> str:
    """orjson's two-space indenting; a long array a part at a time, the same text.

    One call holds the interpreter lock until it returns (a 10 MB array: about
    50 ms); each part's text without its brackets is what the whole would
    hold between them.
    """
    if not isinstance(value, list) or len(value) <= _PRETTY_PART:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    parts = [b"["]
    for start in range(0, len(value), _PRETTY_PART):
        text = orjson.dumps(
            value[start : start + _PRETTY_PART], option=orjson.OPT_INDENT_2
        )
        parts.append(text[1:-2])  # "\n  …" without its brackets' last line end
        parts.append(b",")
    parts[-1] = b"\n]"
    return b"".join(parts).decode()


def pretty_json(value: Any) -> str:
    """The value indented by two spaces, non-ASCII kept as is."""
    if isinstance(value, LazyContainer):
        return "".join(pretty_parts(value))
    try:
        return _indented(value)
    except (TypeError, orjson.JSONEncodeError):
        # NaN, Infinity, surrogates or integers past 64 bits: json keeps them.
        return json.dumps(value, indent=2, ensure_ascii=False)


def pretty_parts(container: LazyContainer, limit: int | None = None) -> Iterator[str]:
    """A big container pretty-printed child by child (at most ``limit`` chars)."""
    opener, closer = ("{", "}") if container.kind == "object" else ("[", "]")
    yield opener + ("\n" if container.size else "")
    written = 1
    for n in range(container.size):
        child = container.value(n)
        text = pretty_json(child).replace("\n", "\n  ")
        if container.kind == "object":
            text = json.dumps(container.key(n), ensure_ascii=False) + ": " + text
        part = "  " + text + (",\n" if n + 1 < container.size else "\n")
        written += len(part)
        yield part
        if limit is not None and written > limit:
            return
    yield closer


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
            return f"{{{counted(self.size, 'key')}}}"
        if self.kind == "array":
            return f"[{counted(self.size, 'item')}]"
        text = json.dumps(self.value, ensure_ascii=False)
        return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _kind(value: Any) -> tuple[str, int]:
    if isinstance(value, LazyContainer):
        return value.kind, value.size
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
    if isinstance(parent.value, LazyContainer):
        lazy = parent.value
        last = lazy.size if stop is None else min(stop, lazy.size)
        return [node(lazy.value(n), lazy.key(n)) for n in range(start, last)]
    if parent.kind == "object":
        items = itertools.islice(parent.value.items(), start, stop)
        return [node(value, key) for key, value in items]
    if parent.kind == "array":
        return [
            node(value, start + n) for n, value in enumerate(parent.value[start:stop])
        ]
    return []
