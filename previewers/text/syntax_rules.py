"""Rules of pygments' lexers that no tree-sitter query can say, run per line.

Each takes a line's spans (from ``previewers.text.syntax_tree``) and gives
them back with what pygments' regular expressions read differently: the
words around a colon, a vendor's prefix. They look at the line's text and
at the tokens already found, never at the tree.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable

from pygments.token import Token, _TokenType  # type: ignore[import-untyped]

from previewers.highlight import Span

_WORD_CHARS = frozenset(string.ascii_letters + string.digits + "_?.$")
_TYPED_COLON = re.compile(r"([\w?.$]+)(\s*):(\s*)([\w?.$]+)")
# Words pygments' TypeScript rules take before that one: the rule never
# starts on them.
_TYPED_COLON_BEFORE = re.compile(
    r"(abstract|implements|private|protected|public|readonly|enum|interface"
    r"|override|declare|type|string|boolean|number)\b"
)


def typed_colons(spans: list[Span], line: str) -> list[Span]:
    """pygments' TypeScript rule "word: word" over a highlighted line.

    Where a colon the query marked as an operator stands between two words
    (``[\\w?.$]+``), the first word is a plain name and the second a type,
    whatever the grammar made of them.
    """
    if not spans or ":" not in line:
        return spans
    tokens = _tokens_of(spans, line)
    operator, other, kind = Token.Operator, Token.Name.Other, Token.Keyword.Type
    changed = False
    for match in _TYPED_COLON.finditer(line):
        colon = match.end(2)
        if tokens[colon] is not operator:
            continue
        start = match.start(1)
        while start > 0 and line[start - 1] in _WORD_CHARS:
            start -= 1
        if _TYPED_COLON_BEFORE.match(line, start):
            continue
        tokens[start : match.end(1)] = [other] * (match.end(1) - start)
        first, last = match.span(4)
        tokens[first:last] = [kind] * (last - first)
        changed = True
    return _respanned(tokens, line) if changed else spans


def _tokens_of(spans: list[Span], line: str) -> list[_TokenType | None]:
    tokens: list[_TokenType | None] = [None] * len(line)
    for span in spans:
        tokens[span.start : span.start + span.length] = [span.token] * span.length
    return tokens


def _respanned(tokens: list[_TokenType | None], line: str) -> list[Span]:
    out: list[Span] = []
    begin = 0
    for index in range(1, len(line) + 1):
        if index == len(line) or tokens[index] is not tokens[begin]:
            token = tokens[begin]
            if token is not None:
                out.append(Span(begin, index - begin, token))
            begin = index
    return out


# pygments' RustLexer: after ":" or "->" it reads a type, skipping "&" and
# lifetimes, taking the prelude's names and the primitive types, and makes
# the first other word a class name.
_RUST_TRIGGER = re.compile(r"::(?=\w)|:|->")
_RUST_WORD = re.compile(r"[a-zA-Z_]\w*")
_RUST_BUILTINS = frozenset(
    [
        "Copy",
        "Send",
        "Sized",
        "Sync",
        "Unpin",
        "Drop",
        "Fn",
        "FnMut",
        "FnOnce",
        "drop",
        "Box",
        "ToOwned",
        "Clone",
        "PartialEq",
        "PartialOrd",
        "Eq",
        "Ord",
        "AsRef",
        "AsMut",
        "Into",
        "From",
        "Default",
        "Iterator",
        "Extend",
        "IntoIterator",
        "DoubleEndedIterator",
        "ExactSizeIterator",
        "Option",
        "Some",
        "None",
        "Result",
        "Ok",
        "Err",
        "String",
        "ToString",
        "Vec",
    ]
)
_RUST_TYPES = frozenset(
    [
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "usize",
        "isize",
        "f32",
        "f64",
        "char",
        "str",
        "bool",
    ]
)


def rust_types(spans: list[Span], line: str) -> list[Span]:
    """pygments' Rust rule: the type after ":" or "->" in code."""
    if not spans or (":" not in line and "->" not in line):
        return spans
    tokens = _tokens_of(spans, line)
    punctuation = Token.Punctuation
    changed = False
    for match in _RUST_TRIGGER.finditer(line):
        if match.group() == "::" or tokens[match.start()] is not punctuation:
            continue
        changed = _read_rust_type(tokens, line, match.end()) or changed
    return _respanned(tokens, line) if changed else spans


def _read_rust_type(tokens: list[_TokenType | None], line: str, at: int) -> bool:
    """pygments' "typename" state from ``at``; whether a token changed."""
    changed = False

    def put(start: int, end: int, token: _TokenType) -> None:
        nonlocal changed
        if any(tokens[index] is not token for index in range(start, end)):
            tokens[start:end] = [token] * (end - start)
            changed = True

    while at < len(line):
        if line[at].isspace():
            at += 1
        elif line[at] == "&":
            put(at, at + 1, Token.Keyword.Pseudo)
            at += 1
        elif line[at] == "'":
            put(at, at + 1, Token.Operator)
            at += 1
            if line.startswith(("static", "_"), at):
                size = 6 if line.startswith("static", at) else 1
                put(at, at + size, Token.Name.Builtin)
                at += size
            elif word := _RUST_WORD.match(line, at):
                put(at, word.end(), Token.Name.Attribute)
                at = word.end()
        elif word := _RUST_WORD.match(line, at):
            if word.group() in _RUST_BUILTINS:
                put(at, word.end(), Token.Name.Builtin)
            elif word.group() in _RUST_TYPES:
                put(at, word.end(), Token.Keyword.Type)
            else:
                put(at, word.end(), Token.Name.Class)
                break
            at = word.end()
        else:
            break
    return changed


Item = tuple[int, int, int, _TokenType]


def without_inside(row: list[Item], opaque: Iterable[_TokenType]) -> list[Item]:
    """A row's captures less those inside a capture of an ``opaque`` token,
    strings apart (pygments reads a Rust attribute as one token, its strings
    as strings)."""
    kinds = frozenset(opaque)
    outer = [(begin, end) for begin, end, _pattern, token in row if token in kinds]
    if not outer:
        return row
    string_token = Token.Literal.String
    return [
        item
        for item in row
        if item[3] in kinds
        or item[3] in string_token
        or not any(begin <= item[0] and item[1] <= end for begin, end in outer)
    ]


@functools.cache
def _css_words() -> tuple[re.Pattern[str], frozenset[str], frozenset[str]]:
    """pygments' vendor prefixes, property names and keyword values."""
    from pygments.lexers import css  # type: ignore[import-untyped]

    prefixes = re.compile("|".join(re.escape(word) for word in css._vendor_prefixes))
    values = css._keyword_values + css._other_keyword_values + css._color_keywords
    return prefixes, frozenset(css._css_properties), frozenset(values)


def css_vendors(spans: list[Span], line: str) -> list[Span]:
    """pygments' CSS rule: a vendor's prefix ("-webkit-") is a token of its own,
    and the rest of the word is read as a word without it."""
    pseudo, builtin_pseudo = Token.Keyword.Pseudo, Token.Name.Builtin.Pseudo
    if not any(span.token in (pseudo, builtin_pseudo) for span in spans):
        return spans
    prefixes, properties, values = _css_words()
    out: list[Span] = []
    for span in spans:
        prefix = prefixes.match(line, span.start, span.start + span.length)
        if span.token not in (pseudo, builtin_pseudo) or prefix is None:
            out.append(span)
            continue
        size = prefix.end() - span.start
        out.append(Span(span.start, size, span.token))
        rest = line[prefix.end() : span.start + span.length]
        if span.token is pseudo:  # a property's name
            token = Token.Keyword if rest in properties else Token.Name
        elif rest in values:
            token = Token.Keyword.Constant
        else:
            token = Token.Keyword if rest in properties else Token.Name
        if rest:
            out.append(Span(prefix.end(), len(rest), token))
    return out


# pygments' Markdown mention or topic ("@bob", "#123"), which starts a word.
_MENTION = re.compile(r"(?<!\S)[@#][\w/:-]+")


def markdown_mentions(spans: list[Span], line: str) -> list[Span]:
    """pygments' Markdown rule for "@name" and "#topic" in plain text."""
    if "@" not in line and "#" not in line:
        return spans
    tokens = _tokens_of(spans, line)
    entity = Token.Name.Entity
    for found in _MENTION.finditer(line):
        start, end = found.span()
        if all(token is None for token in tokens[start:end]):
            tokens[start:end] = [entity] * (end - start)
    return _respanned(tokens, line)
