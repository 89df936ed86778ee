"""The agent's write_file and policy on a remote workspace, reached over SFTP."""

from __future__ import annotations

from app.agent.tool_errors import tool_errors
from app.core.trust.policy import Policy
from app.remote import agent_files
from app.remote.files import lexical_path
from app.remote.workspace import RemoteWorkspace


def remote_policy(workspace: RemoteWorkspace) -> Policy:
    """The policy in force there now; unreachable means everything is denied."""
    try:
        return workspace.policy().result(workspace.link.settings.operation_timeout + 5)
    except Exception as error:  # fail closed, as the local policy door does
        return Policy.deny_all(f"the remote policy cannot be read: {error}")


def write_bytes(
    workspace: RemoteWorkspace, given: str, policy: Policy, data: bytes
) -> None:
    place = workspace.place
    with tool_errors(given, lambda error: f"Cannot write {given!r}: {error}."):
        lexical = lexical_path(place.root, given)
        agent_files.refuse_denied(policy, lexical)
        workspace.call(
            lambda sftp: agent_files.write_file(sftp, place, lexical, policy, data),
            f"writing {given}",
            timeout=workspace.link.settings.operation_timeout + len(data) / 1e6,
        )
