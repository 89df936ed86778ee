"""The agent's policy on a remote workspace, read over SFTP."""

from __future__ import annotations

from app.core.trust.policy import Policy
from app.remote.workspace import RemoteWorkspace


def remote_policy(workspace: RemoteWorkspace) -> Policy:
    """The policy in force there now; unreachable means everything is denied."""
    try:
        return workspace.policy().result(workspace.link.settings.operation_timeout + 5)
    except Exception as error:  # fail closed, as the local policy door does
        return Policy.deny_all(f"the remote policy cannot be read: {error}")
