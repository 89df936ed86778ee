"""Host keys: known_hosts lookups as OpenSSH does them, and what a connection saw."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import asyncssh

from app.ssh.address import DEFAULT_PORT
from app.ssh.errors import Failure, RemoteError

# A known_hosts file is the user's, but it is read on every connection: a
# runaway file must not make connecting slow or the app large.
MAX_KNOWN_HOSTS_BYTES: Final = 8 * 1024 * 1024
DEFAULT_KNOWN_HOSTS: Final = Path("~", ".ssh", "known_hosts")

_KeyLists = tuple[list[asyncssh.SSHKey], list[asyncssh.SSHKey], list[asyncssh.SSHKey]]


def known_hosts_files(configured: object) -> list[Path]:
    """The files host keys are checked against; new keys go into the first.

    ``configured`` is what ``UserKnownHostsFile`` in ``~/.ssh/config`` gave
    (through asyncssh). A config that turns checking off (``none``) is not
    followed: the default file is used instead, because a connection this app
    cannot verify is never made.
    """
    if isinstance(configured, (list, tuple)) and configured:
        paths = [Path(os.path.expanduser(str(p))) for p in configured]
        if all(str(p) not in ("", "/dev/null") for p in paths):
            return paths
    return [DEFAULT_KNOWN_HOSTS.expanduser()]


def host_pattern(host: str, port: int) -> str:
    """The name a key is filed under: ``host``, or ``[host]:port`` off port 22."""
    return host if port == DEFAULT_PORT else f"[{host}]:{port}"


def _read_known_hosts(path: Path) -> asyncssh.SSHKnownHosts:
    hosts = asyncssh.SSHKnownHosts()
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_KNOWN_HOSTS_BYTES + 1)
    except FileNotFoundError:
        return hosts
    except OSError as error:
        raise RemoteError(
            Failure.HOST_KEY, f"The known hosts file {path} cannot be read: {error}"
        ) from error
    if len(data) > MAX_KNOWN_HOSTS_BYTES:
        raise RemoteError(
            Failure.HOST_KEY,
            f"The known hosts file {path} is larger than "
            f"{MAX_KNOWN_HOSTS_BYTES // (1024 * 1024)} MiB; it was not read.",
        )
    # Line by line: OpenSSH skips a line it cannot read, and one bad line must
    # not hide every other key (asyncssh would refuse the whole file).
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            hosts.load(line)
        except (ValueError, asyncssh.KeyImportError):
            continue
    return hosts


class HostKeyGuard:
    """Trust decisions for one connection attempt, and what the host showed.

    ``lookup`` is given to asyncssh as its ``known_hosts``: it matches the
    host name only (OpenSSH's default since ``CheckHostIP no``) and, off port
    22, only ``[host]:port`` entries, never falling back to the bare name.
    ``validate`` is called by asyncssh for a key none of them vouches for; it
    records the key and refuses it, so the caller decides outside the
    handshake (asking a person cannot happen inside it).
    """

    def __init__(
        self,
        files: Sequence[Path],
        accepted: Callable[[str], Sequence[asyncssh.SSHKey]] = lambda _pattern: (),
    ) -> None:
        self.files = tuple(files)
        self._accepted = accepted
        self.known = False  # known_hosts holds some key or CA for the host
        self.presented: asyncssh.SSHKey | None = None
        self.looked_up_as: str | None = None

    def lookup(self, host: str, addr: str, port: int | None) -> _KeyLists:
        pattern = host_pattern(host, port or DEFAULT_PORT)
        self.looked_up_as = host
        trusted: list[asyncssh.SSHKey] = []
        authorities: list[asyncssh.SSHKey] = []
        revoked: list[asyncssh.SSHKey] = []
        for path in self.files:
            keys, cas, bad, *_ = _read_known_hosts(path).match(pattern, "", None)
            trusted += keys
            authorities += cas
            revoked += bad
        self.known = bool(trusted or authorities)
        return trusted + list(self._accepted(pattern)), authorities, revoked

    def validate(self, key: asyncssh.SSHKey) -> bool:
        self.presented = key
        return False


def fingerprint(key: asyncssh.SSHKey) -> str:
    return key.get_fingerprint("sha256")


def remember(path: Path, pattern: str, key: asyncssh.SSHKey) -> None:
    """Append ``key`` for ``pattern`` to the known hosts file ``path``."""
    algorithm, data = key.export_public_key("openssh").decode("ascii").split()[:2]
    line = f"{pattern} {algorithm} {data}\n"
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "ab") as handle:
            # A file whose last line lacks its newline would swallow ours.
            if handle.tell() > 0:
                with path.open("rb") as reader:
                    reader.seek(-1, os.SEEK_END)
                    if reader.read(1) != b"\n":
                        line = "\n" + line
            handle.write(line.encode("ascii"))
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:
        raise RemoteError(
            Failure.HOST_KEY,
            f"The host key could not be added to {path}: {error.strerror or error}",
        ) from error
