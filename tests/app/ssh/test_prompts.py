"""Passwords and keyboard-interactive logins go through the prompter, never stored."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from app.remote.manager import RemoteManager
from app.ssh.connect import SshSettings
from app.ssh.errors import Failure, RemoteError
from app.ssh.link import Link
from app.ssh.loop import LoopThread
from app.ssh.prompts import (
    HeadlessPrompter,
    KbdintRequest,
    PasswordRequest,
    answered,
)

PASSWORD = "correct horse battery staple"
CODE = "123456"


class _Server(asyncssh.SSHServer):
    """Logs in with a password, or with a one-time code when ``kbdint`` is set."""

    def __init__(self, kbdint: bool) -> None:
        self._kbdint = kbdint

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return not self._kbdint

    def validate_password(self, username: str, password: str) -> bool:
        return password == PASSWORD

    def kbdint_auth_supported(self) -> bool:
        return self._kbdint

    def get_kbdint_challenge(
        self, username: str, lang: str, submethods: str
    ) -> tuple[str, str, str, list[tuple[str, bool]]]:
        return (
            "Second factor",
            "Enter the code from your phone.",
            "",
            [("Code: ", False)],
        )

    def validate_kbdint_response(self, username: str, responses: list[str]) -> bool:
        return list(responses) == [CODE]


@dataclass
class InProcessServer:
    port: int
    kbdint: bool


@pytest.fixture(params=[False, True], ids=["password", "kbdint"])
def server(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[InProcessServer]:
    """An asyncssh server in this process, on its own loop thread."""
    kbdint: bool = request.param
    loop = LoopThread("test-ssh-server")
    key = asyncssh.generate_private_key("ssh-ed25519")

    async def start() -> asyncssh.SSHAcceptor:
        return await asyncssh.listen(
            "127.0.0.1",
            0,
            server_host_keys=[key],
            server_factory=lambda: _Server(kbdint),
            sftp_factory=True,
        )

    acceptor = loop.call(start(), timeout=10, what="starting the test server")
    port = acceptor.sockets[0].getsockname()[1]
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    public = key.export_public_key("openssh").decode().split()[:2]
    (home / ".ssh" / "known_hosts").write_text(
        f"[127.0.0.1]:{port} {' '.join(public)}\n"
    )
    (home / ".ssh" / "config").write_text(
        f"Host inproc\n    HostName 127.0.0.1\n    Port {port}\n    User tester\n"
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    yield InProcessServer(port, kbdint)

    async def stop() -> None:
        acceptor.close()
        await acceptor.wait_closed()

    loop.call(stop(), timeout=10, what="stopping the test server")
    loop.close()


class SecretPrompter(HeadlessPrompter):
    """Types the password (or code) and counts how often it was asked."""

    def __init__(self, answer: str, delay: float = 0.0) -> None:
        self.answer = answer
        self.delay = delay
        self.passwords: list[PasswordRequest] = []
        self.challenges: list[KbdintRequest] = []

    def _later(self, value: object) -> Future[object]:
        if not self.delay:
            return answered(value)
        future: Future[object] = Future()

        def type_it() -> None:
            # As a dialog must: a question cancelled meanwhile gets no answer.
            if future.set_running_or_notify_cancel():
                future.set_result(value)

        # A person taking their time, without blocking the SSH loop.
        threading.Timer(self.delay, type_it).start()
        return future

    def ask_password(self, request: PasswordRequest) -> Future[str | None]:
        self.passwords.append(request)
        return self._later(self.answer)  # type: ignore[return-value]

    def ask_kbdint(self, request: KbdintRequest) -> Future[tuple[str, ...] | None]:
        self.challenges.append(request)
        return self._later((self.answer,))  # type: ignore[return-value]


def secret(server: InProcessServer) -> str:
    return CODE if server.kbdint else PASSWORD


def asked(prompter: SecretPrompter) -> int:
    return len(prompter.passwords) + len(prompter.challenges)


async def _drop(link: Link) -> None:
    link.drop()


def test_the_secret_is_asked_for_and_asked_again_after_a_reconnect(
    server: InProcessServer, tmp_path: Path
) -> None:
    prompter = SecretPrompter(secret(server))
    manager = RemoteManager(prompter=prompter)
    try:
        workspace = manager.open_workspace(f"ssh://inproc{tmp_path}").result(30)
        assert asked(prompter) == 1
        if server.kbdint:
            [challenge] = prompter.challenges
            assert challenge.instructions == "Enter the code from your phone."
            assert [(p.text, p.echo) for p in challenge.prompts] == [("Code: ", False)]
        else:
            [request] = prompter.passwords
            assert (request.user, request.host, request.port) == (
                "tester",
                "inproc",
                server.port,
            )
        workspace.submit(lambda _sftp: _drop(workspace.link), "dropping").result(10)
        assert workspace.lstat(str(tmp_path)).result(30).is_folder
        # Nothing kept it: the reconnection had to ask again.
        assert asked(prompter) == 2
    finally:
        manager.close()


def test_a_wrong_secret_ends_in_a_clear_login_failure(
    server: InProcessServer, tmp_path: Path
) -> None:
    prompter = SecretPrompter("wrong")
    manager = RemoteManager(prompter=prompter)
    try:
        with pytest.raises(RemoteError) as raised:
            manager.open_workspace(f"ssh://inproc{tmp_path}").result(60)
    finally:
        manager.close()
    assert raised.value.failure is Failure.AUTH
    assert "did not accept the login" in str(raised.value)
    assert 1 <= asked(prompter) <= 3


def test_without_a_person_nothing_is_asked_and_the_login_fails(
    server: InProcessServer, tmp_path: Path
) -> None:
    manager = RemoteManager()
    try:
        with pytest.raises(RemoteError) as raised:
            manager.open_workspace(f"ssh://inproc{tmp_path}").result(60)
    finally:
        manager.close()
    assert raised.value.failure is Failure.AUTH


def test_time_spent_typing_never_counts_against_the_network_timeout(
    server: InProcessServer, tmp_path: Path
) -> None:
    prompter = SecretPrompter(secret(server), delay=1.0)
    manager = RemoteManager(SshSettings(connect_timeout=0.5), prompter=prompter)
    try:
        workspace = manager.open_workspace(f"ssh://inproc{tmp_path}").result(60)
        assert workspace.place.user == "tester"
    finally:
        manager.close()
