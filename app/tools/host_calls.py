"""``present`` and ``show_image`` as plain calls, shared by the in-app and MCP hosts.

No LangChain here: the MCP server runs these exact functions, so a call gives
the same record, the same refusals and the same texts whichever host ran it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from app.core.trust.declare import DeclarationError, declare
from app.core.trust.policy import PermissionMode, Policy, PolicyError
from app.core.trust.public_files import (
    LinkRegistry,
    has_public_files,
    image_mime,
    public_folder,
    public_images,
)
from app.core.trust.records import Record
from app.tools.specs import (
    LIST_FILES,
    MAX_IMAGE_TEXT,
    PRESENT,
    PRESENT_FAILED_HINT,
)

if TYPE_CHECKING:
    from app.core.trust.public_files import PublicFile
    from app.remote.workspace import RemoteWorkspace

# The chat shows public images up to this size; a larger remote one is not fetched.
MAX_REMOTE_IMAGE_BYTES: Final = 32 * 1024 * 1024


class ToolCallError(Exception):
    """A call the model should correct; ``text`` is exactly what it reads."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def check_present(
    arguments: object,
    *,
    workspace: Path | RemoteWorkspace,
    mode: PermissionMode,
    policy: Policy,
) -> Record:
    """Run the ``present`` check: its record, or ``ToolCallError`` naming each entry.

    A remote workspace is checked over SFTP, by metadata only, with the same
    reasons and texts.
    """
    try:
        if isinstance(workspace, Path):
            return declare(arguments, workspace=workspace, mode=mode, policy=policy)
        return _remote_present(workspace, arguments, mode, policy)
    except DeclarationError as error:
        text = json.dumps(error.to_dict(), ensure_ascii=False)
        raise ToolCallError(text + "\n" + PRESENT_FAILED_HINT) from error
    except PolicyError as error:
        raise ToolCallError(f"present failed: {error}") from error


def _remote_present(
    workspace: RemoteWorkspace, arguments: object, mode: PermissionMode, policy: Policy
) -> Record:
    from app.ssh.errors import RemoteError

    try:
        return workspace.present(arguments, mode=mode, policy=policy).result(
            workspace.link.settings.operation_timeout + 5
        )
    except RemoteError as error:
        raise ToolCallError(f"present failed: {error}") from error


def offers_show_image(workspace: Path | RemoteWorkspace, policy: Policy) -> bool:
    """Whether ``show_image`` is offered: the workspace has a public file now."""
    if isinstance(workspace, Path):
        return has_public_files(workspace, policy)
    return bool(_remote_public_files(workspace, policy))


def _remote_public_files(
    workspace: RemoteWorkspace, policy: Policy
) -> list[PublicFile]:
    from app.remote import agent_files
    from app.ssh.errors import RemoteError

    place = workspace.place
    try:
        return workspace.call(
            lambda sftp: agent_files.public_files(sftp, place, policy),
            "listing the public files",
        )
    except RemoteError:
        return []  # unreachable: nothing to show, and the other tools say why


def _public_images(
    workspace: Path | RemoteWorkspace, policy: Policy
) -> list[PublicFile]:
    if isinstance(workspace, Path):
        return public_images(workspace, policy)
    return [f for f in _remote_public_files(workspace, policy) if f.mime is not None]


def _remote_image(
    workspace: RemoteWorkspace,
    found: PublicFile,
    available: list[str],
    offered: Collection[str],
) -> dict[str, Any]:
    """The image's verified bytes and coordinate, for the host only.

    Fetched now, within the chat's size limit: no local path exists that the
    chat could read later.
    """
    from app.core.trust.safeio import SafeOpenError
    from app.ssh.errors import Failure, RemoteError

    path = str(found.path)
    try:
        snapshot = workspace.snapshot(path, limit=MAX_REMOTE_IMAGE_BYTES).result(
            workspace.link.settings.operation_timeout + 40
        )
    except (RemoteError, SafeOpenError) as error:
        too_large = (
            isinstance(error, RemoteError) and error.failure is Failure.TOO_LARGE
        )
        limit = MAX_REMOTE_IMAGE_BYTES // (1024 * 1024)
        raise _image_failure(
            "the image cannot be fetched.",
            found.name,
            "file too large" if too_large else "not readable",
            available,
            f"Images over {limit} MiB are not shown; use present instead."
            if too_large
            else str(error),
            offered,
        ) from error
    return {"remote": workspace.place.coordinate(path).url(), "data": snapshot.data}


def _image_failure(
    message: str,
    filename: object,
    reason: str,
    available: list[str],
    hint: str,
    offered: Collection[str],
) -> ToolCallError:
    details: dict[str, object] = {
        "filename": filename,
        "rejection_reason": reason,
        "available_image_files": available,
    }
    # A suggestion names only a tool this caller has: an MCP client has no
    # list_files, and a name it cannot call would only send it looking.
    suggested = PRESENT if reason == "unsupported extension" else LIST_FILES
    if suggested in offered:
        details["suggested_tool"] = suggested
    details["hint"] = hint
    text = json.dumps(
        {"error": f"show_image failed: {message}", "details": details},
        ensure_ascii=False,
    )
    return ToolCallError(text)


def _check_image_arguments(arguments: dict[str, Any]) -> str | None:
    """Why the arguments are not exactly known strings, or ``None``."""
    extra = sorted(set(arguments) - {"filename", "alt_text", "caption"})
    if extra:
        return f"Unexpected arguments: {', '.join(extra)}."
    if "filename" not in arguments:
        return "Missing argument: filename."
    for name, value in arguments.items():
        if value is not None and not isinstance(value, str):
            return f"Argument {name} must be a string."
    return None


def show_image(
    arguments: object,
    *,
    workspace: Path | RemoteWorkspace,
    policy: Policy,
    links: LinkRegistry,
    offered: Collection[str],
) -> tuple[str, dict[str, Any]]:
    """The model's text and the host's artifact for one ``show_image`` call.

    ``offered`` names the tools the caller has; a refusal suggests no other.

    The artifact adds the resolved path (or, for a remote workspace, the
    coordinate and the verified bytes), which the model never receives.
    """
    images = _public_images(workspace, policy)
    available = [image.name for image in images]
    values = arguments if isinstance(arguments, dict) else {}
    filename = values.get("filename")
    problem = (
        "The arguments must be an object."
        if not isinstance(arguments, dict)
        else _check_image_arguments(values)
    )
    if problem is not None:
        raise _image_failure(
            "invalid arguments.",
            filename,
            "invalid arguments",
            available,
            problem,
            offered,
        )
    assert isinstance(filename, str)  # checked above
    alt_text = values.get("alt_text") or filename
    caption = values.get("caption")
    for label, value in (("alt_text", alt_text), ("caption", caption)):
        if value is not None and len(value) > MAX_IMAGE_TEXT:
            raise _image_failure(
                f"{label} is too long.",
                filename,
                f"{label} too long",
                available,
                f"Keep {label} to at most {MAX_IMAGE_TEXT} characters.",
                offered,
            )
    if image_mime(filename) is None:
        extension = os.path.splitext(filename)[1].lower() or "extension-less"
        raise _image_failure(
            "not an image file.",
            filename,
            "unsupported extension",
            available,
            f"Use present for {extension} files.",
            offered,
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
            offered,
        )
    result: dict[str, Any] = {
        "action": "image",
        "filename": found.name,
        "src_url": links.issue(found.path),
        "mime": found.mime,
        "size": found.size,
        "alt_text": alt_text,
        "caption": caption,
    }
    text = json.dumps(result, ensure_ascii=False)
    if not isinstance(workspace, Path):
        return text, {**result, **_remote_image(workspace, found, available, offered)}
    resolved = os.path.join(os.path.realpath(public_folder(workspace)), found.name)
    return text, {**result, "path": resolved}
