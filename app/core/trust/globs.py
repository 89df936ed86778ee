"""Path globs matched without backtracking, so no rule can make a check slow.

A policy rule may come from a file the agent wrote (a workspace's policy file),
so its globs are hostile input. A glob translated naively to a backtracking
regex (``*a*a*a*b``) takes exponential time on a long name. Here a glob is
split at its slashes into elements matched one path component at a time:

* ``**`` as a whole component matches any number of components;
* any other component is a name glob (``*``, ``?``, ``[...]``) compiled so that
  each ``*`` scans forward once and never backtracks (the scan for the text
  after a star stops at its first occurrence, which is always a right choice
  within one name);
* the components are matched by the classic two-pointer wildcard walk, which
  backtracks only to the last ``**`` and costs at most components times elements.

A ``**`` inside a name (``a**b``) also crosses folders; it is expanded into the
variants it stands for, at most ``MAX_INNER_GLOBSTARS`` per glob.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

MAX_INNER_GLOBSTARS = 4
_WILDCARDS = frozenset("*?[")


class GlobError(ValueError):
    """A glob that cannot be used; the message says why."""


def has_wildcards(text: str) -> bool:
    return any(char in _WILDCARDS for char in text)


def _class_body(glob: str, start: int) -> tuple[str, int] | None:
    """The regex class for ``[...]`` at ``start`` and the index after it."""
    end = start + 1
    if end < len(glob) and glob[end] == "!":
        end += 1
    if end < len(glob) and glob[end] == "]":
        end += 1
    end = glob.find("]", end)
    if end == -1:
        return None
    body = glob[start + 1 : end]
    negate = body.startswith("!")
    if negate:
        body = body[1:]
    items: list[str] = []
    index = 0
    while index < len(body):
        if index + 2 < len(body) and body[index + 1] == "-":
            low, high = body[index], body[index + 2]
            # A reversed range ("z-a") matches nothing rather than failing.
            if low <= high:
                items.append(f"{re.escape(low)}-{re.escape(high)}")
            index += 3
        else:
            items.append(re.escape(body[index]))
            index += 1
    if not items:
        return ("[^/]" if negate else "(?!)"), end + 1
    return f"[{'^' if negate else ''}{''.join(items)}]", end + 1


def name_regex(glob: str, group: itertools.count[int]) -> str:
    """A regex (no anchors) for one name glob whose stars never backtrack.

    ``group`` numbers the named groups, so several translations can be joined
    in one alternation.
    """
    pieces: list[list[str]] = [[]]
    index = 0
    while index < len(glob):
        char = glob[index]
        if char == "*":
            while index < len(glob) and glob[index] == "*":
                index += 1
            pieces.append([])
            continue
        if char == "?":
            pieces[-1].append(".")
        elif char == "[" and (found := _class_body(glob, index)) is not None:
            pieces[-1].append(found[0])
            index = found[1]
            continue
        else:
            pieces[-1].append(re.escape(char))
        index += 1
    texts = ["".join(piece) for piece in pieces]
    if len(texts) == 1:
        return texts[0]
    out = [texts[0]]
    for middle in texts[1:-1]:
        # Emulates an atomic group: find the first "*middle", then commit.
        name = f"g{next(group)}"
        out.append(f"(?=(?P<{name}>.*?{middle}))(?P={name})")
    out.append(f".*{texts[-1]}")
    return "".join(out)


def compile_name(glob: str) -> re.Pattern[str]:
    """One name glob as a full-match pattern."""
    return re.compile(f"(?s:{name_regex(glob, itertools.count())})\\Z")


class _AnyComponents:
    """``**``: zero or more whole path components."""

    def __repr__(self) -> str:
        return "**"


ANY = _AnyComponents()
Element = str | re.Pattern[str] | _AnyComponents


def _element(component: str) -> Element:
    if component == "**":
        return ANY
    if not has_wildcards(component):
        return component
    return compile_name(component)


def _matches(element: Element, part: str) -> bool:
    if isinstance(element, str):
        return element == part
    assert isinstance(element, re.Pattern)
    return element.match(part) is not None


def match_components(elements: Sequence[Element], parts: Sequence[str]) -> bool:
    """Whether ``parts`` match ``elements``, where ``ANY`` spans components."""
    element_index = part_index = 0
    star_element, star_part = -1, 0
    while part_index < len(parts):
        if element_index < len(elements):
            element = elements[element_index]
            if element is ANY:
                star_element, star_part = element_index, part_index
                element_index += 1
                continue
            if _matches(element, parts[part_index]):
                element_index += 1
                part_index += 1
                continue
        if star_element < 0:
            return False
        # Let the last ** take one more component and try again from there.
        star_part += 1
        element_index, part_index = star_element + 1, star_part
    while element_index < len(elements) and elements[element_index] is ANY:
        element_index += 1
    return element_index == len(elements)


def _expand_inner_globstars(component: str) -> list[list[str]]:
    """The component sequences a name with ``**`` inside stands for."""
    if "**" not in component or component == "**":
        return [[component]]
    pieces = re.split(r"\*{2,}", component)
    variants: list[list[str]] = []
    for crossings in itertools.product((False, True), repeat=len(pieces) - 1):
        sequence: list[str] = []
        current = pieces[0]
        for crosses, piece in zip(crossings, pieces[1:], strict=True):
            if crosses:
                sequence += [current + "*", "**"]
                current = "*" + piece
            else:
                current = current + "*" + piece
        sequence.append(current)
        variants.append(sequence)
    return variants


@dataclass(frozen=True)
class PathGlob:
    """A glob over whole paths, as element sequences (one per ``a**b`` variant)."""

    variants: tuple[tuple[Element, ...], ...]

    def matches(self, parts: Sequence[str]) -> bool:
        return any(match_components(v, parts) for v in self.variants)

    def in_folder(self, folder: Sequence[str]) -> Callable[[str], bool] | None:
        """This glob for names directly inside ``folder``; ``None`` if none can match.

        A variant without ``**`` matches only paths of its own length, so for
        one folder it is decided by its last element alone (or never).
        """
        last: list[Element] = []
        spanning: list[tuple[Element, ...]] = []
        for variant in self.variants:
            if any(element is ANY for element in variant):
                spanning.append(variant)
            elif len(variant) == len(folder) + 1 and all(
                _matches(element, part)
                for element, part in zip(variant, folder, strict=False)
            ):
                last.append(variant[-1])
        if not last and not spanning:
            return None
        parts = list(folder)

        def matches(name: str) -> bool:
            return any(_matches(element, name) for element in last) or any(
                match_components(variant, [*parts, name]) for variant in spanning
            )

        return matches


def compile_path(components: Sequence[str]) -> PathGlob:
    """A path glob from its components (``**`` may appear as one)."""
    inner = sum(
        len(re.findall(r"\*{2,}", component))
        for component in components
        if component != "**"
    )
    if inner > MAX_INNER_GLOBSTARS:
        raise GlobError(f"more than {MAX_INNER_GLOBSTARS} '**' inside names")
    expanded = [_expand_inner_globstars(component) for component in components]
    variants = tuple(
        tuple(_element(c) for sequence in combination for c in sequence)
        for combination in itertools.product(*expanded)
    )
    return PathGlob(variants)
