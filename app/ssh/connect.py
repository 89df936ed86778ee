"""One SSH connection attempt as ``~/.ssh/config`` says, with our login rules."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, TypeVar

import asyncssh

from app.ssh.errors import Failure, RemoteError
from app.ssh.hostkeys import (
    HostKeyGuard,
    known_hosts_files,
)
from app.ssh.prompts import (
    KbdintPrompt,
    KbdintRequest,
    PasswordRequest,
    Prompter,
)

_T = TypeVar("_T")
MAX_PASSWORD_ATTEMPTS: Final = 3
MAX_JUMPS: Final = 4


@dataclass(frozen=True)
class SshSettings:
    """How connections are made; the defaults suit the window and the CLI."""

    config: tuple[Path, ...] | None = None  # None: ~/.ssh/config if readable
    connect_timeout: float = 20.0  # network time per attempt, prompts excluded
    login_timeout: float = 120.0  # sshd's own LoginGraceTime default
    prompt_timeout: float = 300.0  # how long a question may wait for a person
    operation_timeout: float = 30.0  # one SFTP operation (a read, a listing)


@dataclass(frozen=True)
class Target:
    """A host as the config resolves it, before any connection."""

    asked: str  # the host as addressed (maybe a config alias)
    hostname: str
    user: str
    port: int
    jump: str | None
    known_hosts: tuple[Path, ...]
    ciphers_configured: bool = False  # the ssh config names its Ciphers


@dataclass
class SessionTrust:
    """Host keys accepted "once": kept for this run of the app, never written."""

    keys: dict[str, list[asyncssh.SSHKey]] = field(default_factory=dict)

    def accepted(self, pattern: str) -> list[asyncssh.SSHKey]:
        return list(self.keys.get(pattern, ()))

    def accept(self, pattern: str, key: asyncssh.SSHKey) -> None:
        self.keys.setdefault(pattern, []).append(key)


class PromptClock:
    """Time spent waiting for a person, which no network timeout may count."""

    def __init__(self) -> None:
        self.waiting = 0
        self.paused = 0.0

    @contextlib.contextmanager
    def pause(self) -> Iterator[None]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        self.waiting += 1
        try:
            yield
        finally:
            self.waiting -= 1
            self.paused += loop.time() - start


async def ask(future: Future[_T], timeout: float, clock: PromptClock) -> _T | None:
    """Await a prompter's answer; ``None`` when it times out (the question is off)."""
    with clock.pause():
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except TimeoutError:
            future.cancel()
            return None
        except asyncio.CancelledError:
            future.cancel()
            raise


class LoginClient(asyncssh.SSHClient):
    """Host-key capture and password prompts for one connection attempt."""

    def __init__(
        self,
        guard: HostKeyGuard,
        prompter: Prompter,
        target: Target,
        settings: SshSettings,
        clock: PromptClock,
        on_lost: Callable[[], None],
    ) -> None:
        self._guard = guard
        self._prompter = prompter
        self._target = target
        self._settings = settings
        self._clock = clock
        self._on_lost = on_lost
        self._passwords = 0
        self._logged_in = False
        self.asked_password = False

    def auth_completed(self) -> None:
        self._logged_in = True

    def connection_lost(self, exc: Exception | None) -> None:
        # Only a connection that was in use can be lost; a refused attempt
        # is reported by the attempt itself.
        if self._logged_in:
            self._on_lost()

    def validate_host_public_key(
        self, host: str, addr: str, port: int, key: asyncssh.SSHKey
    ) -> bool:
        return self._guard.validate(key)

    async def password_auth_requested(self) -> str | None:
        self._passwords += 1
        if self._passwords > MAX_PASSWORD_ATTEMPTS:
            return None
        self.asked_password = True
        t = self._target
        request = PasswordRequest(t.user, t.asked, t.port, self._passwords)
        future = self._prompter.ask_password(request)
        return await ask(future, self._settings.prompt_timeout, self._clock)

    def kbdint_auth_requested(self) -> str:
        return ""  # let the server choose its challenge

    async def kbdint_challenge_received(
        self,
        name: str,
        instructions: str,
        lang: str,
        prompts: Sequence[tuple[str, bool]],
    ) -> list[str] | None:
        if not prompts:
            return []  # an instructions-only round
        # A server may challenge forever; a person is asked a few times only.
        self._passwords += 1
        if self._passwords > MAX_PASSWORD_ATTEMPTS:
            return None
        self.asked_password = True
        t = self._target
        request = KbdintRequest(
            t.user,
            t.asked,
            t.port,
            name,
            instructions,
            tuple(KbdintPrompt(text, echo) for text, echo in prompts),
        )
        future = self._prompter.ask_kbdint(request)
        answers = await ask(future, self._settings.prompt_timeout, self._clock)
        if answers is None or len(answers) != len(prompts):
            return None
        return list(answers)


def config_arg(settings: SshSettings) -> list[str] | tuple[()]:
    """asyncssh's ``config``: ``()`` loads ~/.ssh/config, a list loads just those."""
    return [str(p) for p in settings.config] if settings.config is not None else ()


async def resolve(
    host: str, user: str | None, port: int | None, settings: SshSettings
) -> Target:
    """What ``~/.ssh/config`` makes of ``[user@]host[:port]``."""
    try:
        options = await asyncssh.SSHClientConnectionOptions.construct(
            host=host,
            port=port if port is not None else (),
            username=user if user is not None else (),
            config=config_arg(settings),
            ignore_encrypted=True,
        )
    except (OSError, ValueError, asyncssh.Error) as error:
        raise RemoteError(
            Failure.ADDRESS, f"The ssh configuration for {host} cannot be used: {error}"
        ) from error
    jump = options.tunnel if isinstance(options.tunnel, str) else None
    return Target(
        asked=host,
        hostname=options.host,
        user=options.username,
        port=options.port,
        jump=None if jump is None or jump.lower() == "none" else jump,
        known_hosts=tuple(known_hosts_files(options.known_hosts)),
        ciphers_configured=options.config.get("Ciphers") is not None,
    )


# asyncssh runs ChaCha20-Poly1305 with part of the work in Python, at about
# half the speed of AES-GCM (one AEAD call per packet); both are strong, so
# AES-GCM goes first unless the user's config chose.
_FAST_FIRST: Final = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com")


def encryption_preference(target: Target) -> tuple[str, ...] | tuple[()]:
    """The ciphers to offer, or ``()`` to let the config's Ciphers decide."""
    if target.ciphers_configured:
        return ()
    from asyncssh.encryption import get_default_encryption_algs

    defaults = [alg.decode("ascii") for alg in get_default_encryption_algs()]
    fast = [alg for alg in _FAST_FIRST if alg in defaults]
    return tuple(fast + [alg for alg in defaults if alg not in fast])


def translate(
    error: BaseException, target: Target, asked_password: bool
) -> RemoteError:
    """The user-facing error for a failed connection attempt."""
    where = f"{target.asked} (port {target.port})"
    if isinstance(error, RemoteError):
        return error
    if isinstance(error, asyncssh.PermissionDenied):
        tried = "keys, the ssh agent" + (" and a password" if asked_password else "")
        return RemoteError(
            Failure.AUTH,
            f"{target.user}@{where} did not accept the login ({tried}). Add your "
            "key to the ssh agent (ssh-add) or name it with IdentityFile in "
            "~/.ssh/config.",
        )
    if isinstance(error, socket.gaierror):
        return RemoteError(
            Failure.UNREACHABLE, f"The host name {target.hostname} is unknown."
        )
    if isinstance(error, ConnectionRefusedError):
        return RemoteError(
            Failure.UNREACHABLE,
            f"{where} refused the connection: no SSH server listens there.",
        )
    if isinstance(error, (asyncssh.ConnectionLost, ConnectionResetError)):
        return RemoteError(
            Failure.CONNECTION_LOST, f"{where} closed the connection: {error}"
        )
    if isinstance(error, OSError):
        return RemoteError(
            Failure.UNREACHABLE,
            f"{where} cannot be reached: {error.strerror or error}",
        )
    return RemoteError(
        Failure.PROTOCOL, f"The SSH connection to {where} failed: {error}"
    )


async def in_network_time(
    coroutine: asyncio.Future[_T] | asyncio.Task[_T],
    budget: float,
    clock: PromptClock,
    what: str,
) -> _T:
    """Await ``coroutine`` for ``budget`` seconds of network time.

    Time spent while a question waits for a person does not count, so a
    password dialog never makes a connection time out behind the user's back.
    """
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        while True:
            used = loop.time() - start - clock.paused
            left = budget - used if not clock.waiting else budget
            if left <= 0:
                raise RemoteError(
                    Failure.TIMEOUT, f"{what} did not answer within {budget:g} s."
                )
            done, _ = await asyncio.wait({coroutine}, timeout=left)
            if done:
                return coroutine.result()
    finally:
        if not coroutine.done():
            coroutine.cancel()
            with contextlib.suppress(BaseException):
                await coroutine
