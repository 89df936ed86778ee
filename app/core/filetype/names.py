"""What a file's name says: its kind and its MIME type, from fixed tables only.

The tables never consult the system's MIME registry: that registry differs
between machines (``x.ts`` is TypeScript on one and a Qt Linguist file on
another), and the answer decides how a file is shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from pathlib import PurePath
from types import MappingProxyType


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


TEXT_KINDS = frozenset(
    {Kind.HTML, Kind.MARKDOWN, Kind.TEXT, Kind.CODE, Kind.JSON, Kind.CSV}
)
"""Kinds whose files are text: a name may refine which text, never make it binary."""

_CODE_SUFFIXES = (
    ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".css", ".scss",
    ".c", ".h", ".cc", ".cpp", ".hpp", ".cxx", ".rs", ".go", ".java", ".kt",
    ".swift", ".rb", ".php", ".pl", ".lua", ".sh", ".bash", ".zsh", ".fish",
    ".ps1", ".sql", ".r", ".jl", ".scala", ".cs", ".m", ".toml", ".yaml", ".yml",
    ".xml", ".diff", ".patch", ".tex", ".hs", ".ml", ".ex", ".exs", ".erl",
    ".clj", ".dart", ".vue", ".svelte", ".proto", ".graphql", ".dockerfile",
    ".mk",
)  # fmt: skip

# One table, suffix -> kind. Declaration reads metadata only, so the name is all
# there is to go on then; ``detect`` weighs the bytes when the file is opened.
_SUFFIX_KINDS: Mapping[str, Kind] = MappingProxyType(
    {
        **dict.fromkeys((".html", ".htm", ".xhtml"), Kind.HTML),
        **dict.fromkeys((".md", ".markdown", ".mdown", ".mkd"), Kind.MARKDOWN),
        **dict.fromkeys(
            (".txt", ".log", ".text", ".rst", ".ini", ".cfg", ".conf", ".out", ".err"),
            Kind.TEXT,
        ),
        **dict.fromkeys(
            (".json", ".jsonl", ".ndjson", ".geojson", ".ipynb"), Kind.JSON
        ),
        **dict.fromkeys((".csv", ".tsv", ".tab"), Kind.CSV),
        **dict.fromkeys(
            (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".svg"),
            Kind.IMAGE,
        ),
        **dict.fromkeys((".tif", ".tiff"), Kind.IMAGE),
        ".pdf": Kind.PDF,
        **dict.fromkeys(
            (".wav", ".mp3", ".ogg", ".oga", ".flac", ".m4a", ".aac", ".opus"),
            Kind.AUDIO,
        ),
        **dict.fromkeys(
            (".mp4", ".m4v", ".webm", ".mkv", ".mov", ".avi", ".ogv"), Kind.VIDEO
        ),
        **dict.fromkeys(_CODE_SUFFIXES, Kind.CODE),
    }
)

_NAME_KINDS: Mapping[str, Kind] = MappingProxyType(
    {
        "makefile": Kind.CODE,
        "dockerfile": Kind.CODE,
        "cmakelists.txt": Kind.CODE,
        "readme": Kind.TEXT,
        "license": Kind.TEXT,
        "changelog": Kind.TEXT,
    }
)

# One table, suffix -> MIME type, for every suffix the app has a word for. The
# types are the ones the magic bytes give for the same formats, so a name and
# its content speak one vocabulary.
_SUFFIX_MIMES: Mapping[str, str] = MappingProxyType(
    {
        # Pages, prose and data.
        **dict.fromkeys((".html", ".htm"), "text/html"),
        ".xhtml": "application/xhtml+xml",
        **dict.fromkeys((".md", ".markdown", ".mdown", ".mkd"), "text/markdown"),
        **dict.fromkeys(
            (".txt", ".text", ".log", ".out", ".err", ".ini", ".cfg", ".conf"),
            "text/plain",
        ),
        ".rst": "text/x-rst",
        **dict.fromkeys((".json", ".geojson"), "application/json"),
        **dict.fromkeys((".jsonl", ".ndjson"), "application/jsonl"),
        ".ipynb": "application/x-ipynb+json",
        ".csv": "text/csv",
        **dict.fromkeys((".tsv", ".tab"), "text/tab-separated-values"),
        ".vtt": "text/vtt",
        # Source code.
        **dict.fromkeys((".py", ".pyi"), "text/x-python"),
        **dict.fromkeys((".js", ".mjs", ".cjs"), "text/javascript"),
        **dict.fromkeys((".ts", ".tsx"), "text/typescript"),
        ".jsx": "text/jsx",
        ".css": "text/css",
        ".scss": "text/x-scss",
        **dict.fromkeys((".c", ".h"), "text/x-c"),
        **dict.fromkeys((".cc", ".cpp", ".cxx", ".hpp"), "text/x-c++"),
        ".rs": "text/x-rust",
        ".go": "text/x-go",
        ".java": "text/x-java",
        ".kt": "text/x-kotlin",
        ".swift": "text/x-swift",
        ".rb": "text/x-ruby",
        ".php": "text/x-php",
        ".pl": "text/x-perl",
        ".lua": "text/x-lua",
        **dict.fromkeys((".sh", ".bash", ".zsh"), "application/x-sh"),
        ".fish": "text/x-fish",
        ".ps1": "text/x-powershell",
        ".sql": "application/sql",
        ".r": "text/x-r",
        ".jl": "text/x-julia",
        ".scala": "text/x-scala",
        ".cs": "text/x-csharp",
        ".m": "text/x-objective-c",
        ".toml": "application/toml",
        **dict.fromkeys((".yaml", ".yml"), "application/yaml"),
        ".xml": "application/xml",
        **dict.fromkeys((".diff", ".patch"), "text/x-diff"),
        ".tex": "application/x-tex",
        ".hs": "text/x-haskell",
        ".ml": "text/x-ocaml",
        **dict.fromkeys((".ex", ".exs"), "text/x-elixir"),
        ".erl": "text/x-erlang",
        ".clj": "text/x-clojure",
        ".dart": "text/x-dart",
        ".vue": "text/x-vue",
        ".svelte": "text/x-svelte",
        ".proto": "text/x-protobuf",
        ".graphql": "text/x-graphql",
        ".dockerfile": "text/x-dockerfile",
        ".mk": "text/x-makefile",
        # Images.
        ".png": "image/png",
        **dict.fromkeys((".jpg", ".jpeg"), "image/jpeg"),
        ".gif": "image/gif",
        ".webp": "image/webp",
        ".bmp": "image/bmp",
        ".ico": "image/vnd.microsoft.icon",
        ".svg": "image/svg+xml",
        **dict.fromkeys((".tif", ".tiff"), "image/tiff"),
        ".avif": "image/avif",
        **dict.fromkeys((".heic", ".heif"), "image/heic"),
        # Documents.
        ".pdf": "application/pdf",
        ".docx": "application/vnd.openxmlformats-officedocument"
        ".wordprocessingml.document",
        ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ".pptx": "application/vnd.openxmlformats-officedocument"
        ".presentationml.presentation",
        ".odt": "application/vnd.oasis.opendocument.text",
        ".ods": "application/vnd.oasis.opendocument.spreadsheet",
        ".odp": "application/vnd.oasis.opendocument.presentation",
        ".epub": "application/epub+zip",
        ".doc": "application/msword",
        ".xls": "application/vnd.ms-excel",
        ".ppt": "application/vnd.ms-powerpoint",
        # Audio and video.
        ".wav": "audio/wav",
        ".mp3": "audio/mpeg",
        **dict.fromkeys((".ogg", ".oga"), "audio/ogg"),
        ".opus": "audio/opus",
        ".flac": "audio/flac",
        ".m4a": "audio/mp4",
        ".aac": "audio/aac",
        **dict.fromkeys((".mp4", ".m4v"), "video/mp4"),
        ".webm": "video/webm",
        ".mkv": "video/x-matroska",
        ".mov": "video/quicktime",
        ".avi": "video/x-msvideo",
        ".ogv": "video/ogg",
        **dict.fromkeys((".m3u", ".m3u8"), "application/vnd.apple.mpegurl"),
        # Fonts.
        ".woff": "font/woff",
        ".woff2": "font/woff2",
        ".ttf": "font/ttf",
        ".otf": "font/otf",
        # Archives, databases and programs.
        ".zip": "application/zip",
        **dict.fromkeys((".gz", ".tgz"), "application/gzip"),
        ".tar": "application/x-tar",
        ".bz2": "application/x-bzip2",
        ".xz": "application/x-xz",
        ".zst": "application/zstd",
        ".7z": "application/x-7z-compressed",
        ".rar": "application/vnd.rar",
        **dict.fromkeys((".sqlite", ".sqlite3", ".db"), "application/vnd.sqlite3"),
        ".wasm": "application/wasm",
        **dict.fromkeys(
            (".exe", ".dll"), "application/vnd.microsoft.portable-executable"
        ),
    }
)


def _base_and_suffix(name: str) -> tuple[str, str]:
    """The last part of ``name`` and its suffix, as ``PurePath`` gives them.

    Written out because a file tree asks this of thousands of names at once,
    and building a ``PurePath`` for each costs ten times as much.
    """
    base = name.rstrip("/").rpartition("/")[2]
    if base in ("", ".", ".."):  # "a/." and the like: let PurePath fold them
        pure = PurePath(name)
        return pure.name, pure.suffix
    dot = base.rfind(".")
    if dot <= 0 or dot == len(base) - 1:
        return base, ""
    return base, base[dot:]


def kind_from_name(name: str) -> Kind:
    """The kind a file name suggests; ``Kind.OTHER`` when nothing matches."""
    base, found = _base_and_suffix(name)
    lowered = base.lower()
    if lowered in _NAME_KINDS:
        return _NAME_KINDS[lowered]
    return _SUFFIX_KINDS.get(found.lower(), Kind.OTHER)


def mime_from_name(name: str) -> str | None:
    """The MIME type a file name suggests, or ``None``; the same on every machine."""
    return _SUFFIX_MIMES.get(_base_and_suffix(name)[1].lower())


def suffix(name: str) -> str:
    """The lower-case suffix the tables are keyed by (``""`` when there is none)."""
    return _base_and_suffix(name)[1].lower()
