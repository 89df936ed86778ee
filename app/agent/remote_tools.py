"""The agent's tools on a remote workspace: the local answers, reached over SFTP."""

from __future__ import annotations

from typing import Any, Final

from langchain_core.tools import ToolException

from app.agent.tools import (
    LIST_LIMIT,
    AgentSession,
    _image_failure,
    _outside,
)
from app.core.beneath import OutsideRootError
from app.core.policy import PermissionMode, Policy
from app.core.public_files import PublicFile
from app.core.records import Record
from app.core.safeio import SafeOpenError
from app.remote import agent_files
from app.remote.agent_files import DeniedPathError
from app.remote.errors import Failure, RemoteError
from app.remote.files import lexical_path
from app.remote.workspace import RemoteWorkspace

# The chat shows public images up to this size; a larger one is not fetched.
MAX_IMAGE_BYTES: Final = 32 * 1024 * 1024


def _denied(given: str, error: DeniedPathError) -> ToolException:
    return ToolException(f"{given!r} is denied by rule {error.rule.describe()}.")


def _unavailable(error: RemoteError) -> ToolException:
    return ToolException(f"The remote workspace cannot be reached: {error}")


def remote_policy(workspace: RemoteWorkspace) -> Policy:
    """The policy in force there now; unreachable means everything is denied."""
    try:
        return workspace.policy().result(workspace.link.settings.operation_timeout + 5)
    except Exception as error:  # fail closed, as the local policy door does
        return Policy.deny_all(f"the remote policy cannot be read: {error}")


def list_files(workspace: RemoteWorkspace, given: str, policy: Policy) -> str:
    place = workspace.place
    try:
        lexical = lexical_path(place.root, given)
        agent_files.refuse_denied(policy, lexical)
        real = workspace.call(
            lambda sftp: agent_files.open_folder(sftp, place, lexical, policy),
            f"opening {given}",
        )
        lines, stopped = workspace.call(
            lambda sftp: agent_files.listing(sftp, place, real, policy, LIST_LIMIT),
            f"listing {given}",
            timeout=4 * workspace.link.settings.operation_timeout,
        )
    except OutsideRootError as error:
        raise _outside(given) from error
    except DeniedPathError as error:
        raise _denied(given, error) from error
    except SafeOpenError as error:
        raise ToolException(f"{given!r} is not a folder of the workspace.") from error
    except RemoteError as error:
        raise _unavailable(error) from error
    if stopped:
        lines.append(f"... stopped after {len(lines)} files")
    return "\n".join(lines) if lines else f"{given!r} has no files."


def read_bytes(
    workspace: RemoteWorkspace, given: str, policy: Policy, size: int
) -> bytes:
    place = workspace.place
    try:
        lexical = lexical_path(place.root, given)
        agent_files.refuse_denied(policy, lexical)
        return workspace.call(
            lambda sftp: agent_files.read_file(sftp, place, lexical, policy, size),
            f"reading {given}",
        )
    except OutsideRootError as error:
        raise _outside(given) from error
    except DeniedPathError as error:
        raise _denied(given, error) from error
    except SafeOpenError as error:
        raise ToolException(f"Cannot read {given!r}: {error}.") from error
    except RemoteError as error:
        if error.failure is Failure.CHANGED:
            raise ToolException(f"Cannot read {given!r}: {error}") from error
        raise _unavailable(error) from error


def write_bytes(
    workspace: RemoteWorkspace, given: str, policy: Policy, data: bytes
) -> None:
    place = workspace.place
    try:
        lexical = lexical_path(place.root, given)
        agent_files.refuse_denied(policy, lexical)
        workspace.call(
            lambda sftp: agent_files.write_file(sftp, place, lexical, policy, data),
            f"writing {given}",
            timeout=workspace.link.settings.operation_timeout + len(data) / 1e6,
        )
    except OutsideRootError as error:
        raise _outside(given) from error
    except DeniedPathError as error:
        raise _denied(given, error) from error
    except SafeOpenError as error:
        raise ToolException(f"Cannot write {given!r}: {error}.") from error
    except RemoteError as error:
        raise _unavailable(error) from error


def present(
    workspace: RemoteWorkspace,
    arguments: dict[str, Any],
    mode: PermissionMode,
    policy: Policy,
) -> Record:
    """The remote ``present`` check; ``DeclarationError`` exactly as locally."""
    try:
        return workspace.present(arguments, mode=mode, policy=policy).result(
            workspace.link.settings.operation_timeout + 5
        )
    except RemoteError as error:
        raise ToolException(f"present failed: {error}") from error


def public_images(workspace: RemoteWorkspace, policy: Policy) -> list[PublicFile]:
    return [file for file in _public_files(workspace, policy) if file.mime is not None]


def _public_files(workspace: RemoteWorkspace, policy: Policy) -> list[PublicFile]:
    place = workspace.place
    try:
        return workspace.call(
            lambda sftp: agent_files.public_files(sftp, place, policy),
            "listing the public files",
        )
    except RemoteError:
        return []  # unreachable: nothing to show, and the other tools will say why


def remote_has_public_files(session: AgentSession) -> bool:
    assert isinstance(session.workspace, RemoteWorkspace)
    return bool(_public_files(session.workspace, session.policy()))


def fetch_image(
    workspace: RemoteWorkspace, found: PublicFile, available: list[str]
) -> dict[str, Any]:
    """The image's verified bytes and coordinate, for the host only.

    The image is fetched now, within the chat's size limit, because no local
    path exists that the chat could read later.
    """
    path = str(found.path)
    try:
        snapshot = workspace.snapshot(path, limit=MAX_IMAGE_BYTES).result(
            workspace.link.settings.operation_timeout + 40
        )
    except (RemoteError, SafeOpenError) as error:
        too_large = (
            isinstance(error, RemoteError) and error.failure is Failure.TOO_LARGE
        )
        raise _image_failure(
            "the image cannot be fetched.",
            found.name,
            "file too large" if too_large else "not readable",
            available,
            f"Images over {MAX_IMAGE_BYTES // (1024 * 1024)} MiB are not shown; "
            "use present instead."
            if too_large
            else str(error),
        ) from error
    return {
        "remote": workspace.place.coordinate(path).url(),
        "data": snapshot.data,
    }
