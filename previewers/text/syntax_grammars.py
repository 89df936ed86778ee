"""The languages tree-sitter highlights: each one's grammar wheel and query.

Which file names each grammar reads, and what of pygments' lexer the query
alone cannot say (``GrammarSpec``); ``previewers.text.syntax_tree`` loads and
runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from previewers.highlight import Span
from previewers.text.syntax_rules import (
    css_vendors,
    markdown_mentions,
    rust_types,
    typed_colons,
)


@dataclass(frozen=True)
class GrammarSpec:
    """Where a language's grammar is and which of our queries reads it.

    ``rest`` is the token of text no capture covers ("" for none).
    """

    name: str
    module: str
    function: str
    query: str
    rest: str = "Name"
    refine: tuple[tuple[str, str, str], ...] = ()
    """(token, pattern, token): within spans of the first token, what the
    pattern matches takes the second (pygments reads inside some strings)."""
    line_rule: Callable[[list[Span], str], list[Span]] | None = None
    """A rule of pygments' lexer no query can say, run over each line's spans
    (``previewers.text.syntax_rules``)."""
    opaque: tuple[str, ...] = ()
    words_from: str = ""
    """A pygments lexer module whose word lists the query names: ``WORDS:x``
    in the query stands for the quoted words of its list ``x``."""
    """Tokens pygments reads as one, strings apart: captures inside theirs
    are dropped (a Rust attribute)."""
    inject: tuple[tuple[str, GrammarSpec], ...] = ()
    """(a query capturing ``@content``, a grammar): the captured text is read
    by that grammar, as pygments hands it to another lexer (HTML's script)."""


# What pygments' PythonLexer marks as formatting inside a plain string.
_PYTHON_FORMATS = (
    r"%(\(\w+\))?[-#0 +]*([0-9]+|[*])?(\.([0-9]+|[*]))?[hlL]?[E-GXc-giorsaux%]"
    r"|\{((\w+)((\.\w+)|(\[[^\]]+\]))*)?(\![sra])?"
    r"(\:(.?[<>=\^])?[-+ ]?#?0?(\d+)?,?(\.\d+)?[E-GXb-gnosx%]?)?\}"
)
# A docstring's prefix ('r"""'), an affix for pygments, not a docstring.
_DOC_PREFIX = r"\b[rRuUbB]{1,2}(?=\"\"\"|''')"
_PYTHON = GrammarSpec(
    "Python",
    "tree_sitter_python",
    "language",
    "python.scm",
    refine=(
        ("Literal.String.Double", _PYTHON_FORMATS, "Literal.String.Interpol"),
        ("Literal.String.Single", _PYTHON_FORMATS, "Literal.String.Interpol"),
        ("Literal.String.Single", r"\\\\|\\[\"']", "Literal.String.Escape"),
        ("Literal.String", r"\{\{|\}\}", "Literal.String.Escape"),
        ("Literal.String.Doc", _DOC_PREFIX, "Literal.String.Affix"),
    ),
)
# Optional chaining "?." is one token in the grammar, an operator and a
# punctuation mark for pygments.
_OPTIONAL_DOT = (("Operator", r"(?<=\?)\.", "Punctuation"),)
_JAVASCRIPT = GrammarSpec(
    "JavaScript",
    "tree_sitter_javascript",
    "language",
    "javascript.scm",
    refine=_OPTIONAL_DOT,
)
_TYPESCRIPT = GrammarSpec(
    "TypeScript",
    "tree_sitter_typescript",
    "language_typescript",
    "typescript.scm",
    refine=_OPTIONAL_DOT,
    line_rule=typed_colons,
)
_TSX = GrammarSpec(
    "TSX",
    "tree_sitter_typescript",
    "language_tsx",
    "typescript.scm",
    refine=_OPTIONAL_DOT,
    line_rule=typed_colons,
)
_JSON = GrammarSpec("JSON", "tree_sitter_json", "language", "json.scm")
# A block scalar's header ("run: |", "- >-"): the grammar keeps it in the
# scalar, pygments marks it as an indicator.
_BLOCK_HEADER = r"(?<=:\s)[|>][-+0-9]*(?=\s*$)|(?<=-\s)[|>][-+0-9]*(?=\s*$)"
_YAML = GrammarSpec(
    "YAML",
    "tree_sitter_yaml",
    "language",
    "yaml.scm",
    refine=(("Name.Constant", _BLOCK_HEADER, "Punctuation.Indicator"),),
)

# pygments reads shell by words: a word that is not a keyword or a builtin
# is plain text.
_BASH = GrammarSpec("Bash", "tree_sitter_bash", "language", "bash.scm", rest="")

_GO = GrammarSpec("Go", "tree_sitter_go", "language", "go.scm", rest="Name.Other")

_RUST = GrammarSpec(
    "Rust",
    "tree_sitter_rust",
    "language",
    "rust.scm",
    # A number's type suffix ("1u8") is a keyword for pygments.
    refine=(
        (
            "Literal.Number.Integer",
            r"(?<=[0-9_])([ui](8|16|32|64|size)|f(32|64))",
            "Keyword",
        ),
        (
            "Literal.Number.Float",
            r"(?<=[0-9_.])([ui](8|16|32|64|size)|f(32|64))",
            "Keyword",
        ),
    ),
    line_rule=rust_types,
    opaque=("Comment.Preproc",),
)

_CSS = GrammarSpec(
    "CSS",
    "tree_sitter_css",
    "language",
    "css.scm",
    # "@media" is "@" and a keyword for pygments.
    refine=(("Keyword", r"@(?=[\w-])", "Punctuation"),),
    line_rule=css_vendors,
    words_from="pygments.lexers.css",
)

# pygments reads a script's and a style sheet's text with its JavaScript and
# CSS lexers, whatever their "type" says; so do we.
_HTML = GrammarSpec(
    "HTML",
    "tree_sitter_html",
    "language",
    "html.scm",
    rest="",
    inject=(
        ("(script_element (raw_text) @content)", _JAVASCRIPT),
        ("(style_element (raw_text) @content)", _CSS),
    ),
)

# A fenced block's language, as pygments looks it up, and our grammar for it.
_FENCES: dict[str, GrammarSpec] = {
    **dict.fromkeys(("python", "py", "python3", "py3"), _PYTHON),
    **dict.fromkeys(("javascript", "js"), _JAVASCRIPT),
    **dict.fromkeys(("typescript", "ts"), _TYPESCRIPT),
    "json": _JSON,
    **dict.fromkeys(("yaml", "yml"), _YAML),
    **dict.fromkeys(("bash", "sh", "ksh", "zsh", "shell"), _BASH),
    **dict.fromkeys(("go", "golang"), _GO),
    **dict.fromkeys(("rust", "rs"), _RUST),
    "css": _CSS,
    **dict.fromkeys(("html", "htm", "xhtml"), _HTML),
}
FENCE_NAMES = tuple(_FENCES)
"""The fences' languages, named in markdown.scm (``WORDS:FENCE_NAMES``)."""


def _fence(spec: GrammarSpec) -> tuple[str, GrammarSpec]:
    names = " ".join(f'"{name}"' for name, inner in _FENCES.items() if inner is spec)
    return (
        "(fenced_code_block (info_string (language) @_lang)"
        f" (code_fence_content) @content (#any-of? @_lang {names}))",
        spec,
    )


# pygments reads a paragraph's (a list item's, a table cell's) text with its
# inline rules, and fenced code with the lexer its language names; so do we,
# with the inline grammar and the fence's language's grammar.
_MARKDOWN_INLINE = GrammarSpec(
    "Markdown",
    "tree_sitter_markdown",
    "inline_language",
    "markdown_inline.scm",
    rest="",
    line_rule=markdown_mentions,
)
_MARKDOWN = GrammarSpec(
    "Markdown",
    "tree_sitter_markdown",
    "language",
    "markdown.scm",
    rest="",
    words_from=__name__,
    inject=(
        (
            # Not in a quote, whose whole line pygments emphasises.
            "[(section (paragraph (inline) @content))"
            " (list_item (paragraph (inline) @content))"
            " (pipe_table_cell) @content]",
            _MARKDOWN_INLINE,
        ),
        *(_fence(spec) for spec in dict.fromkeys(_FENCES.values())),
    ),
)

# SQL stays with pygments: the one SQL grammar wheel (tree-sitter-sql 0.3.13)
# installs 13.6 MB, more than the package's size budget has left.
_BY_SUFFIX: dict[str, GrammarSpec] = {
    **dict.fromkeys((".py", ".pyi", ".pyw"), _PYTHON),
    **dict.fromkeys((".js", ".mjs", ".cjs"), _JAVASCRIPT),
    ".ts": _TYPESCRIPT,
    ".tsx": _TSX,
    **dict.fromkeys((".json", ".geojson"), _JSON),
    **dict.fromkeys((".yaml", ".yml"), _YAML),
    **dict.fromkeys((".sh", ".bash"), _BASH),
    ".go": _GO,
    ".rs": _RUST,
    ".css": _CSS,
    **dict.fromkeys((".html", ".htm", ".xhtml"), _HTML),
    **dict.fromkeys((".md", ".markdown"), _MARKDOWN),
}


def grammar_for_name(name: str) -> GrammarSpec | None:
    """The tree-sitter grammar for a file name, or ``None`` (pygments, or plain)."""
    return _BY_SUFFIX.get(PurePath(name).suffix.lower())


def grammar_modules() -> list[str]:
    """The grammar wheels' modules: imported by name, so the frozen bundle is
    told of them (``packaging/deliverables.spec``)."""
    return sorted({spec.module for spec in _BY_SUFFIX.values()})
