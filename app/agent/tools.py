"""The agent's tools (workspace files, ``present``, ``show_image``) in a fixed order."""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from app.core.beneath import Beneath, OutsideRootError
from app.core.changes import BeforeState, ChangeArtifact
from app.core.declare import DeclarationError, declare
from app.core.edits import describe_write, read_before
from app.core.policy import PermissionMode, Policy, PolicyError, current_policy
from app.core.public_files import (
    LinkRegistry,
    image_mime,
    public_folder,
    public_images,
)
from app.core.safeio import SafeOpenError

# Everything the model sees of the tools is a constant: the serialized tool list
# (and so the provider's prompt-cache prefix) never depends on session state.
SYSTEM_PROMPT: Final = (
    "You are an assistant working in the user's workspace folder. Use list_files, "
    "read_file and write_file to inspect and create files; paths are relative to "
    "the workspace. When files are finished and the user should open or keep them, "
    "call present once with every such file and a one-line description of each; "
    "they appear as cards under your answer, so do not paste their content. If a "
    "tool reports an error, read it, fix the call and try again. To show an image "
    "from the public folder inline, call show_image when it is available. Answer "
    "in concise Markdown."
)

LIST_FILES: Final = "list_files"
READ_FILE: Final = "read_file"
WRITE_FILE: Final = "write_file"
PRESENT: Final = "present"
SHOW_IMAGE: Final = "show_image"
TOOL_ORDER: Final = (LIST_FILES, READ_FILE, WRITE_FILE, PRESENT, SHOW_IMAGE)

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

_PATH: Final = {"type": "string", "description": "Path relative to the workspace."}
LIST_FILES_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"path": {**_PATH, "default": "."}},
    "additionalProperties": False,
}
READ_FILE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"path": _PATH},
    "required": ["path"],
    "additionalProperties": False,
}
WRITE_FILE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"path": _PATH, "content": {"type": "string"}},
    "required": ["path", "content"],
    "additionalProperties": False,
}
PRESENT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
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
    "additionalProperties": False,
}
MAX_IMAGE_TEXT: Final = 300
SHOW_IMAGE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
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
    "additionalProperties": False,
}

PRESENT_FAILED_HINT: Final = (
    "Nothing was presented. Fix or drop every failing entry and call present again."
)


class PermissionSetting:
    """The session's current permission mode; the UI may switch it at any time."""

    def __init__(self, mode: PermissionMode = PermissionMode.WORKSPACE_ONLY) -> None:
        self._mode = mode
        self._lock = threading.Lock()

    def get(self) -> PermissionMode:
        with self._lock:
            return self._mode

    def set(self, mode: PermissionMode) -> None:
        with self._lock:
            self._mode = mode


@dataclass(frozen=True)
class AgentSession:
    """What the tools act on: the workspace, the mode in force, policy and links."""

    workspace: Path
    permission: PermissionSetting = field(default_factory=PermissionSetting)
    # Loaded on every call so an edited policy file applies without a restart.
    policy_loader: Callable[[], Policy] | None = None
    links: LinkRegistry = field(default_factory=LinkRegistry)

    def policy(self) -> Policy:
        if self.policy_loader is not None:
            return self.policy_loader()
        return current_policy(self.workspace)

    def root(self) -> str:
        return os.path.realpath(self.workspace)


def make_tools(session: AgentSession) -> list[BaseTool]:
    """The session's tools, always in ``TOOL_ORDER``."""
    specs: list[tuple[str, str, dict[str, Any], Callable[..., Any], bool]] = [
        (
            LIST_FILES,
            LIST_FILES_DESCRIPTION,
            LIST_FILES_SCHEMA,
            lambda **a: _list_files(session, a),
            False,
        ),
        (
            READ_FILE,
            READ_FILE_DESCRIPTION,
            READ_FILE_SCHEMA,
            lambda **a: _read_file(session, a),
            False,
        ),
        (
            WRITE_FILE,
            WRITE_FILE_DESCRIPTION,
            WRITE_FILE_SCHEMA,
            lambda **a: _write_file(session, a),
            True,
        ),
        (
            PRESENT,
            PRESENT_DESCRIPTION,
            PRESENT_SCHEMA,
            lambda **a: _present(session, a),
            True,
        ),
        (
            SHOW_IMAGE,
            SHOW_IMAGE_DESCRIPTION,
            SHOW_IMAGE_SCHEMA,
            lambda **a: _show_image(session, a),
            True,
        ),
    ]
    return [
        StructuredTool.from_function(
            func=func,
            name=name,
            description=description,
            args_schema=schema,
            response_format="content_and_artifact" if artifact else "content",
            # A ToolException becomes an error ToolMessage the model can read.
            handle_tool_error=True,
        )
        for name, description, schema, func, artifact in specs
    ]


# -- arguments and paths ----------------------------------------------------------

READ_LIMIT: Final = 256 * 1024
LIST_LIMIT: Final = 500


def _arguments(
    arguments: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...]
) -> dict[str, Any]:
    """Check that the call has exactly the known string arguments."""
    extra = sorted(set(arguments) - set(required) - set(optional))
    if extra:
        raise ToolException(f"Unexpected arguments: {', '.join(extra)}.")
    for name in required:
        if name not in arguments:
            raise ToolException(f"Missing argument: {name}.")
    for name, value in arguments.items():
        if value is not None and not isinstance(value, str):
            raise ToolException(f"Argument {name} must be a string.")
    return arguments


def _refuse_denied(given: str, paths: list[str], policy: Policy) -> None:
    # The name as given and the place it leads to must both be allowed, so a
    # harmless-looking link cannot reach a secret, nor a secret's name be used.
    for candidate in dict.fromkeys(paths):
        rule = policy.denying_rule(candidate)
        if rule is not None:
            raise ToolException(f"{given!r} is denied by rule {rule.describe()}.")


def _outside(given: str) -> ToolException:
    return ToolException(
        f"{given!r} is outside the workspace; these tools only work inside it."
    )


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


# -- workspace tools --------------------------------------------------------------
#
# Every file is reached through descriptors from the workspace root
# (app.core.beneath): a folder swapped for a symlink mid-call cannot lead out.


def _list_files(session: AgentSession, arguments: dict[str, Any]) -> str:
    given = _arguments(arguments, (), ("path",)).get("path") or "."
    policy = session.policy()
    beneath = Beneath(session.root())
    try:
        lexical = beneath.lexical_path(given)
        _refuse_denied(given, [lexical], policy)
        folder_fd, real = beneath.open_folder(given)
    except OutsideRootError as error:
        raise _outside(given) from error
    except SafeOpenError as error:
        raise ToolException(f"{given!r} is not a folder of the workspace.") from error
    try:
        _refuse_denied(given, [real], policy)
        return _listing(given, folder_fd, real, beneath.root, policy)
    finally:
        os.close(folder_fd)


def _listing(given: str, folder_fd: int, real: str, root: str, policy: Policy) -> str:
    lines: list[str] = []
    walk = os.fwalk(".", dir_fd=folder_fd, follow_symlinks=False)
    try:
        for current, folders, files, current_fd in walk:
            here = os.path.normpath(os.path.join(real, current))
            # Links to folders are not entered; denied folders are hidden.
            folders[:] = sorted(
                name
                for name in folders
                if policy.denying_rule(os.path.join(here, name)) is None
            )
            for name in sorted(files):
                path = os.path.join(here, name)
                if policy.denying_rule(path) is not None:
                    continue
                try:
                    status = os.stat(name, dir_fd=current_fd, follow_symlinks=False)
                except OSError:
                    continue  # gone since the folder was read
                size = f"{status.st_size} bytes"
                what = "symbolic link" if stat.S_ISLNK(status.st_mode) else size
                lines.append(f"{_relative(path, root)} ({what})")
                if len(lines) >= LIST_LIMIT:
                    lines.append(f"... stopped after {LIST_LIMIT} files")
                    return "\n".join(lines)
    finally:
        # fwalk is a generator holding a descriptor per open folder until it
        # is closed; its annotation says only Iterator.
        getattr(walk, "close")()  # noqa: B009
    return "\n".join(lines) if lines else f"{given!r} has no files."


def _read_file(session: AgentSession, arguments: dict[str, Any]) -> str:
    given = _arguments(arguments, ("path",), ())["path"]
    policy = session.policy()
    beneath = Beneath(session.root())
    try:
        lexical = beneath.lexical_path(given)
        _refuse_denied(given, [lexical], policy)
        with beneath.open_file(given) as handle:
            _refuse_denied(given, [handle.real_path or lexical], policy)
            data = handle.read(READ_LIMIT + 1)
    except OutsideRootError as error:
        raise _outside(given) from error
    except SafeOpenError as error:
        raise ToolException(f"Cannot read {given!r}: {error}.") from error
    if b"\0" in data[:8192]:
        raise ToolException(f"{given!r} is a binary file; read_file reads text only.")
    text = data[:READ_LIMIT].decode("utf-8", errors="replace")
    if len(data) > READ_LIMIT:
        text += f"\n[... truncated after {READ_LIMIT} bytes]"
    return text


def _write_file(
    session: AgentSession, arguments: dict[str, Any]
) -> tuple[str, ChangeArtifact]:
    values = _arguments(arguments, ("path", "content"), ())
    given, content = values["path"], values["content"]
    if os.path.basename(given.rstrip("/")) in ("", ".", "..") or given.endswith("/"):
        raise ToolException(f"{given!r} does not name a file.")
    policy = session.policy()
    beneath = Beneath(session.root())
    try:
        lexical = beneath.lexical_path(given)
        _refuse_denied(given, [lexical], policy)
        target = beneath.locate_for_write(given)
    except OutsideRootError as error:
        raise _outside(given) from error
    except SafeOpenError as error:
        raise ToolException(f"Cannot write {given!r}: {error}.") from error
    data = content.encode("utf-8")
    try:
        _refuse_denied(given, [target.real_path], policy)
        # The change index needs what was there; a new folder holds nothing.
        before = BeforeState.absent()
        if not target.missing:
            before = read_before(target.folder_fd, target.name)
        identity = beneath.write(target, data)
    except SafeOpenError as error:
        raise ToolException(f"Cannot write {given!r}: {error}.") from error
    except OSError as error:
        raise ToolException(f"Cannot write {given!r}: {error.strerror}.") from error
    finally:
        os.close(target.folder_fd)
    resolved = target.real_path
    change = describe_write(given, resolved, before, data, identity, tool=WRITE_FILE)
    # The change is the artifact: host-only, it never goes back to the model.
    return f"Wrote {len(data)} bytes to {given}.", ChangeArtifact((change,))


# -- present ----------------------------------------------------------------------


def _present(session: AgentSession, arguments: dict[str, Any]) -> tuple[str, str]:
    try:
        record = declare(
            arguments,
            workspace=session.workspace,
            mode=session.permission.get(),
            policy=session.policy(),
        )
    except DeclarationError as error:
        raise ToolException(
            json.dumps(error.to_dict(), ensure_ascii=False) + "\n" + PRESENT_FAILED_HINT
        ) from error
    except PolicyError as error:
        raise ToolException(f"present failed: {error}") from error
    names = ", ".join(entry.path for entry in record.files)
    count = len(record.files)
    noun = "file" if count == 1 else "files"
    content = (
        f"Presented {count} {noun}: {names}. They appear as cards under your answer."
    )
    # The record is the artifact: host-only, it never goes back to the model.
    return content, record.to_json()


# -- show_image -------------------------------------------------------------------


def _image_failure(
    message: str, filename: object, reason: str, available: list[str], hint: str
) -> ToolException:
    details = {
        "filename": filename,
        "rejection_reason": reason,
        "available_image_files": available,
        "suggested_tool": PRESENT if reason == "unsupported extension" else LIST_FILES,
        "hint": hint,
    }
    text = json.dumps(
        {"error": f"show_image failed: {message}", "details": details},
        ensure_ascii=False,
    )
    return ToolException(text)


def _show_image(
    session: AgentSession, arguments: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    policy = session.policy()
    images = public_images(session.workspace, policy)
    available = [image.name for image in images]
    filename = arguments.get("filename")
    try:
        _arguments(arguments, ("filename",), ("alt_text", "caption"))
    except ToolException as error:
        raise _image_failure(
            "invalid arguments.", filename, "invalid arguments", available, str(error)
        ) from error
    alt_text = arguments.get("alt_text") or filename
    caption = arguments.get("caption")
    assert isinstance(filename, str)  # checked by _arguments
    for label, value in (("alt_text", alt_text), ("caption", caption)):
        if value is not None and len(value) > MAX_IMAGE_TEXT:
            raise _image_failure(
                f"{label} is too long.",
                filename,
                f"{label} too long",
                available,
                f"Keep {label} to at most {MAX_IMAGE_TEXT} characters.",
            )
    if image_mime(filename) is None:
        extension = os.path.splitext(filename)[1].lower() or "extension-less"
        raise _image_failure(
            "not an image file.",
            filename,
            "unsupported extension",
            available,
            f"Use present for {extension} files.",
        )
    found = next((image for image in images if image.name == filename), None)
    if found is None:
        raise _image_failure(
            "no such public image.",
            filename,
            "not found in public files",
            available,
            "Use an exact name from available_image_files; images must be "
            "directly in the public/ folder.",
        )
    result: dict[str, Any] = {
        "action": "image",
        "filename": found.name,
        "src_url": session.links.issue(found.path),
        "mime": found.mime,
        "size": found.size,
        "alt_text": alt_text,
        "caption": caption,
    }
    resolved = os.path.join(
        os.path.realpath(public_folder(session.workspace)), found.name
    )
    return json.dumps(result, ensure_ascii=False), {**result, "path": resolved}
