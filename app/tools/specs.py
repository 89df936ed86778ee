"""The tools' fixed names, descriptions, schemas and the texts a model reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

# The names live in the core: the store and the chat need them too.
from app.core.chat.tool_names import (
    LIST_FILES,
    PRESENT,
    READ_FILE,
    SHOW_IMAGE,
    WRITE_FILE,
)
from app.core.filetype.sizes import counted

__all__ = ["LIST_FILES", "PRESENT", "READ_FILE", "SHOW_IMAGE", "WRITE_FILE"]

# Everything the model sees of the tools is a constant: the serialized tool list
# (and so the provider's prompt-cache prefix) never depends on session state.
# Both hosts (the in-app agent and the MCP server) read these same objects.

TOOL_ORDER: Final = (LIST_FILES, READ_FILE, WRITE_FILE, PRESENT, SHOW_IMAGE)
# What the MCP server offers other agents: it reads and writes no files for them.
MCP_TOOLS: Final = (PRESENT, SHOW_IMAGE)

LIST_FILES_DESCRIPTION: Final = (
    "List the files under a folder of the workspace, recursively, with their sizes "
    "in bytes. Paths in the answer are relative to the workspace root."
)
READ_FILE_DESCRIPTION: Final = (
    "Read a text file of the workspace (UTF-8; at most 256 KiB are returned)."
)
WRITE_FILE_DESCRIPTION: Final = (
    "Create or overwrite a text file in the workspace with the given content. "
    "Missing parent folders are created."
)
PRESENT_DESCRIPTION: Final = (
    "Present finished files to the user: each appears as a card under your answer "
    "that the user can open, save or reveal. Give 1 to 8 existing regular files, "
    "each with a short description. Relative paths resolve from the workspace. "
    "The call is all or nothing: if any entry fails, nothing is presented and the "
    "error lists every failing entry."
)
SHOW_IMAGE_DESCRIPTION: Final = (
    "Render a public image inline in the chat. Use when the user asks to see an "
    "image, or when a visual is the clearest answer. The image must be directly "
    "in the workspace's public/ folder. Supported formats: .png, .jpg, .jpeg, .gif, "
    ".webp, .svg, .bmp, .ico. For other documents, use present instead."
)

# Top-level keys are written in the order the MCP wire model writes them
# (properties, required, type, then the rest), so the in-app tool list and the
# MCP tools/list carry the same bytes.
_PATH: Final = {"type": "string", "description": "Path relative to the workspace."}
LIST_FILES_SCHEMA: Final[dict[str, Any]] = {
    "properties": {"path": {**_PATH, "default": "."}},
    "type": "object",
    "additionalProperties": False,
}
READ_FILE_SCHEMA: Final[dict[str, Any]] = {
    "properties": {"path": _PATH},
    "required": ["path"],
    "type": "object",
    "additionalProperties": False,
}
WRITE_FILE_SCHEMA: Final[dict[str, Any]] = {
    "properties": {"path": _PATH, "content": {"type": "string"}},
    "required": ["path", "content"],
    "type": "object",
    "additionalProperties": False,
}
PRESENT_SCHEMA: Final[dict[str, Any]] = {
    "properties": {
        "files": {
            "type": "array",
            "minItems": 1,
            "maxItems": 8,
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The file's path."},
                    "description": {
                        "type": "string",
                        "description": "What the file is, in one line.",
                    },
                },
                "required": ["path", "description"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["files"],
    "type": "object",
    "additionalProperties": False,
}
MAX_IMAGE_TEXT: Final = 300
SHOW_IMAGE_SCHEMA: Final[dict[str, Any]] = {
    "properties": {
        "filename": {
            "type": "string",
            "description": "Exact filename of an image in the public files.",
        },
        "alt_text": {
            "type": "string",
            "maxLength": MAX_IMAGE_TEXT,
            "description": "Alt text for accessibility. Defaults to the filename.",
        },
        "caption": {
            "type": "string",
            "maxLength": MAX_IMAGE_TEXT,
            "description": "Optional caption rendered below the image.",
        },
    },
    "required": ["filename"],
    "type": "object",
    "additionalProperties": False,
}

PRESENT_FAILED_HINT: Final = (
    "Nothing was presented. Fix or drop every failing entry and call present again."
)

# Where the cards appear, as the reply to a successful present says it: under
# the answer in the app's own chat, in the app's window for other agents.
IN_CHAT: Final = "under your answer"
IN_APP_WINDOW: Final = "in the Deliverables app"


def present_reply(names: Sequence[str], where: str = IN_CHAT) -> str:
    """The short text a model receives for presented files (paths as it gave them)."""
    listed = ", ".join(names)
    presented = counted(len(names), "file")
    return f"Presented {presented}: {listed}. They appear as cards {where}."


# Limits the workspace tools' descriptions promise, and the refusal both hosts
# give for a path outside the workspace.
READ_LIMIT: Final = 256 * 1024
LIST_LIMIT: Final = 500


def outside_text(given: str) -> str:
    return f"{given!r} is outside the workspace; these tools only work inside it."
