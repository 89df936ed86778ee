"""Where a workspace is opened: the one place that picks its backend."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.trust.policy import Policy
from app.ssh.address import is_remote_address
from app.workspace.local import LocalWorkspace
from app.workspace.protocol import Workspace

if TYPE_CHECKING:
    from app.remote.manager import RemoteManager
    from app.remote.workspace import RemoteWorkspace


def local_workspace(
    root: Path | str, *, policy_loader: Callable[[], Policy] | None = None
) -> Workspace:
    """The folder ``root`` on this computer."""
    return LocalWorkspace(root, policy_loader=policy_loader)


def ssh_workspace(remote: RemoteWorkspace) -> Workspace:
    """A connected remote workspace; the SSH library is loaded only now."""
    from app.workspace.ssh import SshWorkspace

    return SshWorkspace(remote)


def open_workspace(
    address: str, manager: RemoteManager | None = None
) -> Future[Workspace]:
    """The workspace at ``address``: an ``ssh://`` one is connected by ``manager``.

    Fails with ``RemoteError`` when the host cannot be reached, as
    ``RemoteManager.open_workspace`` says, or ``ValueError`` for an
    ``ssh://`` address with no ``manager`` to connect it.
    """
    opened: Future[Workspace] = Future()
    if not is_remote_address(address):
        opened.set_result(local_workspace(address))
        return opened
    if manager is None:
        opened.set_exception(ValueError(f"nothing connects {address}"))
        return opened
    connecting = manager.open_workspace(address)

    def on_connected(done: Future[RemoteWorkspace]) -> None:
        if not opened.set_running_or_notify_cancel():
            return
        try:
            opened.set_result(ssh_workspace(done.result()))
        except BaseException as error:
            opened.set_exception(error)

    connecting.add_done_callback(on_connected)
    return opened
