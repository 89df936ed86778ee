"""A hostile SFTP server: bad names, nonsense paths, extra bytes. Refused, no crash."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncssh
import pytest

from app.core.trust.policy import PermissionMode, Policy
from app.remote.manager import RemoteManager
from app.remote.workspace import RemoteWorkspace
from app.ssh.errors import Failure, RemoteError
from app.ssh.loop import LoopThread
from app.ssh.prompts import HeadlessPrompter, PasswordRequest, answered

PASSWORD = "let me in"
BAD_NAMES = (b"../../outside.txt", b"a/b", b"nul\0name", b"..", b".")


def _attrs() -> asyncssh.SFTPAttrs:
    return asyncssh.SFTPAttrs(
        type=asyncssh.FILEXFER_TYPE_REGULAR, permissions=0o100644, size=3, mtime=0
    )


class HostileFiles(asyncssh.SFTPServer):
    """The real files of this machine, with lies told about some of them."""

    async def scandir(self, path: bytes) -> AsyncIterator[asyncssh.SFTPName]:
        async for name in super().scandir(path):
            yield name
        if path.endswith(b"/listed"):
            for bad in BAD_NAMES:
                yield asyncssh.SFTPName(bad, attrs=_attrs())

    def realpath(self, path: bytes) -> bytes:
        if path.endswith(b"/nonsense"):
            return b"relative/answer"
        resolved: bytes = super().realpath(path)  # type: ignore[assignment]
        return resolved

    def read(self, file_obj: object, offset: int, size: int) -> bytes:
        data: bytes = super().read(file_obj, offset, size)  # type: ignore[assignment]
        return data * 3  # more than asked, every time


class _Server(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        return password == PASSWORD


class Password(HeadlessPrompter):
    def ask_password(self, request: PasswordRequest):  # type: ignore[no-untyped-def]
        return answered(PASSWORD)


@pytest.fixture
def hostile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[RemoteWorkspace]:
    loop = LoopThread("hostile-server")
    key = asyncssh.generate_private_key("ssh-ed25519")

    async def start() -> asyncssh.SSHAcceptor:
        return await asyncssh.listen(
            "127.0.0.1",
            0,
            server_host_keys=[key],
            server_factory=_Server,
            sftp_factory=HostileFiles,
        )

    acceptor = loop.call(start(), timeout=10, what="starting the hostile server")
    port = acceptor.sockets[0].getsockname()[1]
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    public = " ".join(key.export_public_key("openssh").decode().split()[:2])
    (home / ".ssh" / "known_hosts").write_text(f"[127.0.0.1]:{port} {public}\n")
    monkeypatch.setenv("HOME", str(home))
    root = tmp_path / "ws"
    (root / "listed").mkdir(parents=True)
    (root / "listed" / "real.txt").write_text("abc")
    (root / "nonsense").mkdir()
    manager = RemoteManager(prompter=Password())
    try:
        yield manager.open_workspace(f"ssh://me@127.0.0.1:{port}{root}").result(30)
    finally:
        manager.close()

        async def stop() -> None:
            acceptor.close()
            await acceptor.wait_closed()

        loop.call(stop(), timeout=10, what="stopping the hostile server")
        loop.close()


def test_names_that_would_climb_out_or_nest_are_dropped(
    hostile: RemoteWorkspace,
) -> None:
    folder = f"{hostile.root}/listed"
    listing = hostile.list_folder(folder, policy=Policy([], home="/")).result(30)
    assert [entry.name for entry in listing.entries] == ["real.txt"]
    assert all(entry.path.startswith(folder + "/") for entry in listing.entries)


def test_a_path_answer_that_is_not_absolute_is_refused(
    hostile: RemoteWorkspace,
) -> None:
    with pytest.raises(RemoteError) as raised:
        hostile.present(
            {"files": [{"path": "nonsense/x", "description": "d"}]},
            mode=PermissionMode.WORKSPACE_ONLY,
            policy=Policy([], home="/"),
        ).result(30)
    assert raised.value.failure is Failure.PROTOCOL


def test_more_bytes_than_asked_never_become_the_file(hostile: RemoteWorkspace) -> None:
    path = f"{hostile.root}/listed/real.txt"
    with pytest.raises(RemoteError) as raised:
        hostile.snapshot(path, limit=1024).result(30)
    assert raised.value.failure is Failure.CHANGED
    reader = hostile.open_fenced(path).result(30)
    assert reader.read(2, 0) == b"ab"
    reader.close()
