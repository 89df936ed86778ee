"""The agent's tools on a remote workspace: the local answers, reached over SFTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from langchain_core.tools import ToolException

from app.core.trust.beneath import OutsideRootError
from app.core.trust.policy import Policy
from app.core.trust.safeio import SafeOpenError
from app.remote import agent_files
from app.remote.agent_files import DeniedPathError
from app.remote.files import lexical_path
from app.remote.workspace import RemoteWorkspace
from app.ssh.errors import Failure, RemoteError
from app.tools.specs import LIST_LIMIT, outside_text


@contextmanager
def _as_tool_errors(
    given: str,
    unreadable: Callable[[Exception], str],
    *,
    changed_is_unreadable: bool = False,
) -> Iterator[None]:
    """Turn what can go wrong with ``given`` into the tool errors the agent reads.

    The same words as the local tools: ``unreadable`` says why a path cannot
    be opened as asked (a file that changed while read can be said so too).
    """
    try:
        yield
    except OutsideRootError as error:
        raise ToolException(outside_text(given)) from error
    except DeniedPathError as error:
        raise ToolException(
            f"{given!r} is denied by rule {error.rule.describe()}."
        ) from error
    except SafeOpenError as error:
        raise ToolException(unreadable(error)) from error
    except RemoteError as error:
        if changed_is_unreadable and error.failure is Failure.CHANGED:
            raise ToolException(unreadable(error)) from error
        raise ToolException(
            f"The remote workspace cannot be reached: {error}"
        ) from error


def remote_policy(workspace: RemoteWorkspace) -> Policy:
    """The policy in force there now; unreachable means everything is denied."""
    try:
        return workspace.policy().result(workspace.link.settings.operation_timeout + 5)
    except Exception as error:  # fail closed, as the local policy door does
        return Policy.deny_all(f"the remote policy cannot be read: {error}")


def list_files(workspace: RemoteWorkspace, given: str, policy: Policy) -> str:
    place = workspace.place
    with _as_tool_errors(
        given, lambda _error: f"{given!r} is not a folder of the workspace."
    ):
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
    if stopped:
        lines.append(f"... stopped after {len(lines)} files")
    return "\n".join(lines) if lines else f"{given!r} has no files."


def read_bytes(
    workspace: RemoteWorkspace, given: str, policy: Policy, size: int
) -> bytes:
    place = workspace.place
    with _as_tool_errors(
        given,
        lambda error: f"Cannot read {given!r}: {str(error).rstrip('.')}.",
        changed_is_unreadable=True,
    ):
        lexical = lexical_path(place.root, given)
        agent_files.refuse_denied(policy, lexical)
        return workspace.call(
            lambda sftp: agent_files.read_file(sftp, place, lexical, policy, size),
            f"reading {given}",
        )


def write_bytes(
    workspace: RemoteWorkspace, given: str, policy: Policy, data: bytes
) -> None:
    place = workspace.place
    with _as_tool_errors(given, lambda error: f"Cannot write {given!r}: {error}."):
        lexical = lexical_path(place.root, given)
        agent_files.refuse_denied(policy, lexical)
        workspace.call(
            lambda sftp: agent_files.write_file(sftp, place, lexical, policy, data),
            f"writing {given}",
            timeout=workspace.link.settings.operation_timeout + len(data) / 1e6,
        )
