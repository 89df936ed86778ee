"""What can go wrong with a remote workspace, each with a message to act on."""

from __future__ import annotations

from enum import StrEnum


class Failure(StrEnum):
    """The kind of a remote failure, for callers that react differently to each."""

    ADDRESS = "address"  # the ssh:// address or the ssh config cannot be used
    UNREACHABLE = "unreachable"  # no TCP connection (refused, no route, no name)
    TIMEOUT = "timeout"  # the host or the operation did not answer in time
    AUTH = "auth"  # no key, agent identity or password was accepted
    HOST_KEY_UNKNOWN = "host_key_unknown"  # not in known_hosts, and not accepted
    HOST_KEY_CHANGED = "host_key_changed"  # known_hosts has another key for it
    HOST_KEY = "host_key"  # any other host key refusal (revoked, bad CA)
    CANCELLED = "cancelled"  # the caller cancelled the wait
    CONNECTION_LOST = "connection_lost"  # the connection dropped mid-operation
    PROTOCOL = "protocol"  # the server spoke SSH or SFTP in a way we refuse
    FILE = "file"  # the server refused a file operation (missing, permission)
    CHANGED = "changed"  # the remote file is not the version that was checked
    TOO_LARGE = "too_large"  # the file or the answer is over a limit
    LOCAL = "local"  # writing the local destination failed


class RemoteError(Exception):
    """A remote operation failed; ``str()`` is the sentence to show the user."""

    def __init__(self, failure: Failure, message: str) -> None:
        super().__init__(message)
        self.failure = failure
        self.message = message


class HostKeyChangedError(RemoteError):
    """The host presented another key than the one ``known_hosts`` holds for it.

    Never accepted from the app: it is what a machine-in-the-middle looks like,
    and only the user, knowing the host was reinstalled, may edit the file.
    """

    def __init__(self, host: str, port: int, fingerprint: str, files: str) -> None:
        super().__init__(
            Failure.HOST_KEY_CHANGED,
            f"The host key of {host} (port {port}) has changed: it now presents "
            f"{fingerprint}, which is not the key recorded in {files}. This can "
            "mean someone is intercepting the connection, so it was refused. If "
            "the host was reinstalled and you have checked the new fingerprint "
            "with its administrator, remove the old entry (ssh-keygen -R) and "
            "connect again.",
        )
        self.host = host
        self.port = port
        self.fingerprint = fingerprint
