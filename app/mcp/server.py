"""``deliverables mcp``: the MCP server over stdio, built on the SDK's ``MCPServer``."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any, Final

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.subscriptions import ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from app.mcp.client_link import ClientLink
from app.mcp.early import SERVER_NAME, AnsweredOutput, EarlyStart, ReplayedInput, wire
from app.mcp.presenter import Presenter, Reply
from app.tools.specs import (
    PRESENT,
    PRESENT_DESCRIPTION,
    PRESENT_SCHEMA,
    SHOW_IMAGE,
    SHOW_IMAGE_DESCRIPTION,
    SHOW_IMAGE_SCHEMA,
)

# How often the public folder is looked at, to offer show_image or withdraw it.
PUBLIC_POLL_S: Final = 0.5

_ToolFn = Callable[[Context[Any, Any]], Awaitable[types.CallToolResult]]


def _result(reply: Reply) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=reply.text)],
        structured_content=reply.structured,
        is_error=reply.is_error,
    )


def _arguments(context: Context[Any, Any]) -> object:
    """The call's arguments exactly as the client sent them.

    The SDK validates arguments against the function's signature; these tools
    take none, so the check in app.core sees the raw value, as in the app.
    """
    params = context.request_context.params or {}
    return params.get("arguments")


def _tool(name: str, description: str, schema: dict[str, Any], fn: _ToolFn) -> Tool:
    tool = Tool.from_function(
        fn, name=name, description=description, structured_output=False
    )
    # The one shared schema, not the one derived from the function.
    return tool.model_copy(update={"parameters": schema})


class DeliverablesServer(MCPServer[dict[str, Any]]):
    """``present`` and ``show_image`` for one client, in the app's fixed order.

    ``show_image`` is listed only while the workspace has a public file, and
    the client is told with ``notifications/tools/list_changed`` when that
    changes.
    """

    def __init__(self, presenter: Presenter) -> None:
        self._presenter = presenter
        self._bus = InMemorySubscriptionBus()
        self._link = ClientLink(presenter)
        self._listed_offer: bool | None = None
        super().__init__(
            name=SERVER_NAME,
            tools=[
                _tool(PRESENT, PRESENT_DESCRIPTION, PRESENT_SCHEMA, self._present),
                _tool(
                    SHOW_IMAGE, SHOW_IMAGE_DESCRIPTION, SHOW_IMAGE_SCHEMA, self._show
                ),
            ],
            log_level="WARNING",
            lifespan=_lifespan,
            subscriptions=self._bus,
            middleware=[self._observe],
        )

    async def list_tools(self) -> list[types.Tool]:
        tools = await super().list_tools()
        offered = self._presenter.offers_show_image()
        self._listed_offer = offered
        return [tool for tool in tools if offered or tool.name != SHOW_IMAGE]

    async def run_stdio_async(self, early: EarlyStart | None = None) -> None:
        """Serve over stdio; ``early`` is what was read, and answered, before."""
        # WORKAROUND(mcp 2.3.0: MCPServer.run_stdio_async advertises no tools
        # listChanged capability, and clients only refetch the list of a server
        # that says it may change.)
        low = self._lowlevel_server
        options = low.create_initialization_options(
            NotificationOptions(tools_changed=True)
        )
        if early is None:
            async with stdio_server() as (read_stream, write_stream):
                await low.run(read_stream, write_stream, options)
            return
        with wire() as (reader, writer):
            stdin: Any = ReplayedInput(early.head, anyio.wrap_file(reader))
            stdout: Any = AnsweredOutput(early, anyio.wrap_file(writer))
            async with stdio_server(stdin, stdout) as (read_stream, write_stream):
                await low.run(read_stream, write_stream, options)

    # -- tools -----------------------------------------------------------------

    async def _present(self, ctx: Context[Any, Any]) -> types.CallToolResult:
        await self._link.ready(ctx.request_context.session)
        reply = await anyio.to_thread.run_sync(self._presenter.present, _arguments(ctx))
        return _result(reply)

    async def _show(self, ctx: Context[Any, Any]) -> types.CallToolResult:
        await self._link.ready(ctx.request_context.session)
        reply = await anyio.to_thread.run_sync(
            self._presenter.show_image, _arguments(ctx)
        )
        return _result(reply)

    # -- the client ------------------------------------------------------------

    async def _observe(
        self,
        ctx: ServerRequestContext[Any, Any],
        call_next: Callable[[ServerRequestContext[Any, Any]], Awaitable[HandlerResult]],
    ) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "notifications/initialized":
            self._link.initialized(ctx.session)
        elif ctx.method == "notifications/roots/list_changed":
            self._link.roots_changed()
        elif ctx.request_id is not None:
            # The 2026 protocol has no handshake: any request introduces it.
            self._link.met(ctx.session)
        return result

    async def watch_public_folder(self) -> None:
        """Offer or withdraw ``show_image`` as the public folder fills or empties."""
        await self._link.wait_initialized()
        said = ""
        while True:
            try:
                await self._check_offer()
            except Exception as error:  # the server outlives a failed look
                # Said once, not at every poll, until something else goes wrong.
                if str(error) != said:
                    said = str(error)
                    print(f"deliverables: public folder: {said}", file=sys.stderr)
            await anyio.sleep(PUBLIC_POLL_S)

    async def _check_offer(self) -> None:
        await self._link.refresh_roots()
        offered = await anyio.to_thread.run_sync(self._presenter.offers_show_image)
        if self._listed_offer is not None and offered != self._listed_offer:
            self._listed_offer = offered
            await self._announce_tools_changed()

    async def _announce_tools_changed(self) -> None:
        # The 2026 protocol delivers changes on subscriptions/listen streams;
        # earlier ones as a notification on the connection.
        await self._bus.publish(ToolsListChanged())
        session = self._link.session
        if session is not None and session.protocol_version not in (
            MODERN_PROTOCOL_VERSIONS
        ):
            await _send_tools_changed(session)


async def _send_tools_changed(session: ServerSession) -> None:
    # A client that is gone ends the loop with the connection; nothing to tell.
    with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
        await session.send_tool_list_changed()


@asynccontextmanager
async def _lifespan(server: MCPServer[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    async with anyio.create_task_group() as tasks:
        if isinstance(server, DeliverablesServer):
            tasks.start_soon(server.watch_public_folder)
        try:
            yield {}
        finally:
            tasks.cancel_scope.cancel()
