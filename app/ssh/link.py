"""One host's SSH connection and SFTP session, reopened after it is lost."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

import asyncssh

from app.ssh.chain import Chain, close_quietly, open_chain
from app.ssh.connect import SessionTrust, SshSettings, Target
from app.ssh.errors import Failure, RemoteError
from app.ssh.prompts import Prompter

_T = TypeVar("_T")

# What a dropped connection looks like from inside an SFTP call.
LOST_ERRORS: Final = (
    asyncssh.SFTPConnectionLost,
    asyncssh.SFTPNoConnection,
    asyncssh.ConnectionLost,
    asyncssh.DisconnectError,
    asyncssh.ChannelOpenError,
    ConnectionError,
    EOFError,
)


class Link:
    """The way to one ``[user@]host[:port]``; lives on the loop thread only.

    The connection and its SFTP session open on first use. A lost connection
    is forgotten, so the next call reconnects (asking again whatever must be
    asked: a password is never kept). An SFTP call that times out or is
    cancelled drops the SFTP session, because its server side may still be
    busy with the request (a FIFO opened behind our back blocks it), while the
    connection itself is kept.
    """

    def __init__(
        self,
        host: str,
        user: str | None,
        port: int | None,
        *,
        settings: SshSettings,
        prompter: Prompter,
        trust: SessionTrust,
    ) -> None:
        self.host = host
        self.user = user
        self.port = port
        self.settings = settings
        self._prompter = prompter
        self._trust = trust
        self._lock: asyncio.Lock | None = None
        self._chain: Chain | None = None
        self._sftp: asyncssh.SFTPClient | None = None
        self.target: Target | None = None
        self.home: str | None = None
        self.connections = 0  # how many times it connected; a resume counts one

    async def sftp(self) -> asyncssh.SFTPClient:
        """A working SFTP session, connecting (again) if needed."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._chain is not None and self._chain.is_closed():
                self.drop()
            if self._chain is None:
                generation = self.connections + 1
                self._chain = await open_chain(
                    self.host,
                    self.user,
                    self.port,
                    settings=self.settings,
                    prompter=self._prompter,
                    trust=self._trust,
                    on_lost=lambda: self._on_lost(generation),
                )
                self.target = self._chain.target
                self.connections += 1
            if self._sftp is None:
                try:
                    self._sftp = await self._chain.connection.start_sftp_client(
                        path_errors="surrogateescape"
                    )
                    if self.home is None:
                        self.home = await self._sftp.realpath(".")
                except LOST_ERRORS as error:
                    self.drop()
                    raise self.lost("starting the file session") from error
                except asyncssh.Error as error:
                    raise RemoteError(
                        Failure.PROTOCOL,
                        f"{self.host} refused a file (SFTP) session: {error}",
                    ) from error
            return self._sftp

    @property
    def route(self) -> tuple[str, ...]:
        """The jump hosts the open connection runs through, first to last."""
        if self._chain is None:
            return ()
        return tuple(hop.target.asked for hop in self._chain.route)

    def lost(self, what: str) -> RemoteError:
        return RemoteError(
            Failure.CONNECTION_LOST,
            f"The connection to {self.host} was lost while {what}.",
        )

    async def run(
        self, action: Callable[[asyncssh.SFTPClient], Awaitable[_T]], what: str
    ) -> _T:
        """Run ``action`` on the SFTP session; a lost connection becomes an error."""
        sftp = await self.sftp()
        try:
            return await action(sftp)
        except asyncio.CancelledError:
            self.forget_sftp()
            raise
        except LOST_ERRORS as error:
            self.drop()
            raise self.lost(what) from error

    def _on_lost(self, generation: int) -> None:
        # A connection closed on purpose reports its loss later: it must not
        # take down the one that replaced it.
        if generation == self.connections:
            self.drop()

    def forget_sftp(self) -> None:
        if self._sftp is not None:
            with contextlib.suppress(Exception):
                self._sftp.exit()
            self._sftp = None

    def drop(self) -> None:
        """Forget the connection (closing it); the next call reconnects."""
        self.forget_sftp()
        close_quietly(self._chain)
        self._chain = None

    async def close(self) -> None:
        chain = self._chain
        self.drop()
        if chain is not None:
            with contextlib.suppress(Exception):
                await chain.connection.wait_closed()
