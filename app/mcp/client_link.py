"""What the server knows of its one client: the session, its name, its roots."""

from __future__ import annotations

import sys
from typing import Final

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from app.mcp.presenter import Presenter
from app.mcp.workspace import RootError

# A client that declares roots but never answers must not hold a call for long.
ROOTS_TIMEOUT_S: Final = 5.0


class ClientLink:
    """The client of this stdio server (one process serves one client).

    Roots are asked for once and again whenever the client says they changed;
    a client without roots, or one that cannot answer, leaves the presenter
    on ``--workspace`` or the working directory.
    """

    def __init__(self, presenter: Presenter) -> None:
        self._presenter = presenter
        self.session: ServerSession | None = None
        self._initialized = anyio.Event()
        self._roots_wanted = 1  # bumped by each roots/list_changed
        self._roots_read = 0
        self._roots_lock = anyio.Lock()

    def met(self, session: ServerSession) -> None:
        """A request arrived on ``session``; learn the client from it."""
        self._adopt(session)
        if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
            self._initialized.set()  # no handshake to wait for

    def initialized(self, session: ServerSession) -> None:
        """The handshake finished: the client may now be asked for its roots."""
        self._adopt(session)
        self._initialized.set()

    def roots_changed(self) -> None:
        self._roots_wanted += 1

    async def wait_initialized(self) -> None:
        await self._initialized.wait()

    async def ready(self, session: ServerSession) -> None:
        """Before a call: the client known, its roots current."""
        self.met(session)
        await self.refresh_roots()

    async def refresh_roots(self) -> None:
        if self.session is None or self._roots_read == self._roots_wanted:
            return
        async with self._roots_lock:
            wanted = self._roots_wanted
            if self._roots_read == wanted:
                return
            try:
                uris = await self._read_roots(self.session)
                # Off the loop: judging the roots reads the user's approvals.
                await anyio.to_thread.run_sync(self._presenter.set_roots, uris)
            except RootError as error:
                self._presenter.refuse_roots(str(error))
            self._roots_read = wanted

    def _adopt(self, session: ServerSession) -> None:
        self.session = session
        params = session.client_params
        info = params.client_info if params is not None else None
        if info is not None:
            self._presenter.set_client(info.name, info.title)

    async def _read_roots(self, session: ServerSession) -> list[str]:
        capabilities = session.client_capabilities
        if capabilities is None or capabilities.roots is None:
            return []
        try:
            with anyio.fail_after(ROOTS_TIMEOUT_S):
                result = await session.send_request(
                    types.ListRootsRequest(), types.ListRootsResult
                )
        except ValidationError as error:
            # The SDK checks the answer against the protocol, which only allows
            # file:// roots: say which roots were not, instead of guessing.
            raise RootError(_not_local(error)) from error
        except (MCPError, TimeoutError) as error:
            print(
                f"deliverables: the client's roots could not be read ({error}); "
                "calls work in --workspace or the current folder.",
                file=sys.stderr,
            )
            return []
        return [str(root.uri) for root in result.roots]


def _not_local(error: ValidationError) -> str:
    given = [
        str(detail.get("input"))
        for detail in error.errors()
        if "uri" in [str(part) for part in detail.get("loc", ())]
    ]
    named = ", ".join(repr(uri) for uri in given) or "(unreadable)"
    return (
        f"The client's workspace roots {named} are not local folders; "
        "only file:// roots can hold files to present."
    )
