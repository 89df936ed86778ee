"""A verified SSH connection to a host, through its ProxyJump hosts if any."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import asyncssh

from app.ssh.address import AddressError, parse_address
from app.ssh.connect import (
    MAX_JUMPS,
    LoginClient,
    PromptClock,
    SessionTrust,
    SshSettings,
    Target,
    ask,
    config_arg,
    encryption_preference,
    in_network_time,
    resolve,
    translate,
)
from app.ssh.errors import Failure, HostKeyChangedError, RemoteError
from app.ssh.hostkeys import HostKeyGuard, fingerprint, host_pattern, remember
from app.ssh.prompts import HostKeyDecision, HostKeyQuestion, Prompter


@dataclass(frozen=True)
class Hop:
    """One jump host on the way, and its connection."""

    target: Target
    connection: asyncssh.SSHClientConnection


@dataclass
class Chain:
    """The connection to a host and the jump connections it runs through."""

    connection: asyncssh.SSHClientConnection
    route: tuple[Hop, ...]
    target: Target

    def close(self) -> None:
        self.connection.close()
        for hop in reversed(self.route):
            hop.connection.close()

    def is_closed(self) -> bool:
        return self.connection.is_closed()


def _jump_spec(text: str) -> tuple[str, str | None, int | None]:
    spec = text.strip()
    try:
        address = parse_address(spec if "://" in spec else f"ssh://{spec}/")
    except AddressError as error:
        raise RemoteError(
            Failure.ADDRESS, f"The ProxyJump host {spec!r} cannot be used: {error}"
        ) from error
    return address.host, address.user, address.port


async def open_chain(
    host: str,
    user: str | None,
    port: int | None,
    *,
    settings: SshSettings,
    prompter: Prompter,
    trust: SessionTrust,
    on_lost: Callable[[], None],
) -> Chain:
    """Connect to ``[user@]host[:port]`` with every host key checked.

    Jump hosts named by ``ProxyJump`` are connected one through the other,
    each with the same host-key rules (asyncssh's own jumping would check
    them by its defaults, without asking). A jump host's own ProxyJump is
    not followed.
    """
    target = await resolve(host, user, port, settings)
    hops: list[Hop] = []
    try:
        if target.jump is not None:
            specs = target.jump.split(",")
            if len(specs) > MAX_JUMPS:
                raise RemoteError(
                    Failure.ADDRESS, f"ProxyJump names more than {MAX_JUMPS} hosts."
                )
            for spec in specs:
                jump = await resolve(*_jump_spec(spec), settings)
                via = hops[-1].connection if hops else None
                connection = await connect_verified(
                    jump,
                    via,
                    settings=settings,
                    prompter=prompter,
                    trust=trust,
                    on_lost=lambda: None,
                )
                hops.append(Hop(jump, connection))
        connection = await connect_verified(
            target,
            hops[-1].connection if hops else None,
            settings=settings,
            prompter=prompter,
            trust=trust,
            on_lost=on_lost,
        )
    except BaseException:
        for hop in reversed(hops):
            hop.connection.close()
        raise
    return Chain(connection, tuple(hops), target)


async def connect_verified(
    target: Target,
    via: asyncssh.SSHClientConnection | None,
    *,
    settings: SshSettings,
    prompter: Prompter,
    trust: SessionTrust,
    on_lost: Callable[[], None],
) -> asyncssh.SSHClientConnection:
    """One connection; an unknown host key is asked about, a changed one refused."""
    where = f"{target.asked} (port {target.port})"
    for attempt in (1, 2):
        clock = PromptClock()
        guard = HostKeyGuard(target.known_hosts, trust.accepted)
        task, clients = _attempt(
            target,
            via,
            guard,
            clock,
            settings=settings,
            prompter=prompter,
            on_lost=on_lost,
        )
        try:
            return await in_network_time(task, settings.connect_timeout, clock, where)
        except asyncssh.HostKeyNotVerifiable as error:
            await _decide(target, guard, error, attempt, settings, prompter, trust)
        except (asyncio.CancelledError, RemoteError):
            raise
        except Exception as error:
            asked = any(client.asked_password for client in clients)
            raise translate(error, target, asked) from error
    raise AssertionError("unreachable: the second attempt returns or raises")


def _attempt(
    target: Target,
    via: asyncssh.SSHClientConnection | None,
    guard: HostKeyGuard,
    clock: PromptClock,
    *,
    settings: SshSettings,
    prompter: Prompter,
    on_lost: Callable[[], None],
) -> tuple[asyncio.Task[asyncssh.SSHClientConnection], list[LoginClient]]:
    """Start one connection attempt; its task, and the client it made (to ask)."""
    clients: list[LoginClient] = []

    def factory() -> LoginClient:
        client = LoginClient(guard, prompter, target, settings, clock, on_lost)
        clients.append(client)
        return client

    task = asyncio.ensure_future(
        asyncssh.connect(
            target.asked,
            target.port,
            username=target.user,
            config=config_arg(settings),
            known_hosts=guard.lookup,
            client_factory=factory,
            tunnel=via if via is not None else (),
            login_timeout=settings.login_timeout,
            ignore_encrypted=True,
            encryption_algs=encryption_preference(target),
        )
    )
    return task, clients


async def _decide(
    target: Target,
    guard: HostKeyGuard,
    error: asyncssh.HostKeyNotVerifiable,
    attempt: int,
    settings: SshSettings,
    prompter: Prompter,
    trust: SessionTrust,
) -> None:
    """Ask about an unknown key (and record the answer) or raise why not."""
    key = guard.presented
    name = guard.looked_up_as or target.hostname
    files = ", ".join(str(path) for path in target.known_hosts)
    if key is None:  # refused before our check: revoked, or a CA not trusted
        raise RemoteError(
            Failure.HOST_KEY,
            f"The host key of {target.asked} (port {target.port}) was refused: "
            f"{error.reason}",
        ) from error
    if guard.known:
        raise HostKeyChangedError(name, target.port, fingerprint(key), files) from error
    if attempt > 1:
        raise RemoteError(
            Failure.HOST_KEY,
            f"{target.asked} presented another host key than the one just "
            "accepted; the connection was refused.",
        ) from error
    question = HostKeyQuestion(
        host=name,
        port=target.port,
        key_type=key.get_algorithm(),
        fingerprint=fingerprint(key),
        known_hosts=str(target.known_hosts[0]),
    )
    decision = await ask(
        prompter.ask_host_key(question), settings.prompt_timeout, PromptClock()
    )
    pattern = host_pattern(name, target.port)
    if decision is HostKeyDecision.ONCE:
        trust.accept(pattern, key)
    elif decision is HostKeyDecision.REMEMBER:
        remember(target.known_hosts[0], pattern, key)
    else:
        raise RemoteError(
            Failure.HOST_KEY_UNKNOWN,
            f"The host key of {target.asked} (port {target.port}) is not in "
            f"{files} and was not accepted; its fingerprint is {question.fingerprint}. "
            "Check it with the host's administrator, then connect again and "
            "accept it.",
        ) from error


def close_quietly(chain: Chain | None) -> None:
    if chain is not None:
        with contextlib.suppress(Exception):
            chain.close()
