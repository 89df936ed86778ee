"""Guess a file's kind (html, markdown, code, ...) from its name alone."""

from __future__ import annotations

from enum import StrEnum
from pathlib import PurePath


class Kind(StrEnum):
    """The families of files the app previews; ``OTHER`` gets the fallback card."""

    HTML = "html"
    MARKDOWN = "markdown"
    TEXT = "text"
    CODE = "code"
    JSON = "json"
    CSV = "csv"
    IMAGE = "image"
    PDF = "pdf"
    AUDIO = "audio"
    VIDEO = "video"
    OTHER = "other"


# One table, suffix -> kind. Declaration reads metadata only, so the name is all
# there is to go on; previewers look at magic bytes when they open the file.
_SUFFIX_KINDS: dict[str, Kind] = {
    **dict.fromkeys((".html", ".htm", ".xhtml"), Kind.HTML),
    **dict.fromkeys((".md", ".markdown", ".mdown", ".mkd"), Kind.MARKDOWN),
    **dict.fromkeys(
        (".txt", ".log", ".text", ".rst", ".ini", ".cfg", ".conf", ".out", ".err"),
        Kind.TEXT,
    ),
    **dict.fromkeys((".json", ".jsonl", ".ndjson", ".geojson"), Kind.JSON),
    **dict.fromkeys((".csv", ".tsv", ".tab"), Kind.CSV),
    **dict.fromkeys(
        (
            ".png",
            ".jpg",
            ".jpeg",
            ".gif",
            ".webp",
            ".bmp",
            ".ico",
            ".svg",
            ".tif",
            ".tiff",
        ),
        Kind.IMAGE,
    ),
    ".pdf": Kind.PDF,
    **dict.fromkeys(
        (".wav", ".mp3", ".ogg", ".oga", ".flac", ".m4a", ".aac", ".opus"), Kind.AUDIO
    ),
    **dict.fromkeys(
        (".mp4", ".m4v", ".webm", ".mkv", ".mov", ".avi", ".ogv"), Kind.VIDEO
    ),
    **dict.fromkeys(
        (
            ".py",
            ".pyi",
            ".js",
            ".mjs",
            ".cjs",
            ".ts",
            ".tsx",
            ".jsx",
            ".css",
            ".scss",
            ".c",
            ".h",
            ".cc",
            ".cpp",
            ".hpp",
            ".cxx",
            ".rs",
            ".go",
            ".java",
            ".kt",
            ".swift",
            ".rb",
            ".php",
            ".pl",
            ".lua",
            ".sh",
            ".bash",
            ".zsh",
            ".fish",
            ".ps1",
            ".sql",
            ".r",
            ".jl",
            ".scala",
            ".cs",
            ".m",
            ".toml",
            ".yaml",
            ".yml",
            ".xml",
            ".diff",
            ".patch",
            ".tex",
            ".hs",
            ".ml",
            ".ex",
            ".exs",
            ".erl",
            ".clj",
            ".dart",
            ".vue",
            ".svelte",
            ".proto",
            ".graphql",
            ".dockerfile",
            ".mk",
        ),
        Kind.CODE,
    ),
}

_NAME_KINDS: dict[str, Kind] = {
    "makefile": Kind.CODE,
    "dockerfile": Kind.CODE,
    "cmakelists.txt": Kind.CODE,
    "readme": Kind.TEXT,
    "license": Kind.TEXT,
    "changelog": Kind.TEXT,
}


def kind_from_name(name: str) -> Kind:
    """Return the kind a file name suggests; ``Kind.OTHER`` when nothing matches."""
    pure = PurePath(name)
    lowered = pure.name.lower()
    if lowered in _NAME_KINDS:
        return _NAME_KINDS[lowered]
    return _SUFFIX_KINDS.get(pure.suffix.lower(), Kind.OTHER)


BROWSER_KINDS = frozenset({Kind.HTML})
"""Kinds the built-in browser shows as a page (SVG and images join by suffix)."""
