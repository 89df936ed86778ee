"""One MCP client's calls: checked as in the app, stored as turns, the window told."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from app.core.channel.notify import FolderRequest
from app.core.store import STORE_FAILURES, Store
from app.core.store.client_conversations import continued_conversation, note_call
from app.core.store.messages import AIMessage, HumanMessage, ToolCall, ToolResult, write
from app.core.trust.policy import PermissionMode, current_policy
from app.core.trust.public_files import LinkRegistry
from app.mcp.clients import agent_name, configured_label, conversation_title
from app.mcp.window import WindowNotifier
from app.mcp.workspace import (
    Fallback,
    RootError,
    beyond,
    choose_workspace,
    usable_roots,
)
from app.tools.host_calls import ToolCallError, check_present, offers_show_image
from app.tools.host_calls import show_image as run_show_image
from app.tools.specs import (
    IN_APP_WINDOW,
    MCP_TOOLS,
    PRESENT,
    SHOW_IMAGE,
    present_reply,
)

# The lines the app writes around each call, so a presentation reads as a
# turn of its own: who it came from, the call, and who presented what.
FROM: Final = "From {agent}"
PRESENTED_BY: Final = "Presented by {agent}."
SHOWN_BY: Final = "Shown by {agent}."


class BeyondBoundaryError(ToolCallError):
    """The client's roots reach past the folder the user set; ``folders`` are why."""

    def __init__(self, text: str, folders: list[str]) -> None:
        super().__init__(text)
        self.folders = folders


@dataclass(frozen=True)
class Reply:
    """What the model receives: text, and for ``present`` the names it gave."""

    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False


class Presenter:
    """Runs one MCP client session's calls; each call may come from any thread.

    The client has one conversation per workspace it presents from (usually
    exactly one), titled from the client's name and the folder, which its
    later sessions continue. ``client``
    is the name the user registered the client under (``--client``): the
    chat names the agent by it, and the user's approvals of folders beyond
    the boundary are kept under it.
    """

    def __init__(
        self,
        store: Store,
        data_dir: Path,
        *,
        mode: PermissionMode,
        fallback: Fallback,
        client: str | None = None,
        open_window: Callable[[str], None] | None = None,
    ) -> None:
        self._store = store
        self._mode = mode
        self._fallback = fallback
        self._window = WindowNotifier(data_dir, open_window)
        self._configured = client
        self._client = configured_label(client)
        self._agent = agent_name(client)
        self._roots: list[Path] = []
        self._roots_problem: str | None = None
        self._conversations: dict[str, str] = {}
        self._lock = threading.Lock()
        self._links = LinkRegistry()
        # One server process serves one client session.
        self._session = uuid.uuid4().hex

    @property
    def agent(self) -> str:
        return self._agent

    def close(self) -> None:
        """Tell the window what is still to be told; the store stays open."""
        self._window.close()

    def set_client(self, name: str | None, title: str | None = None) -> None:
        """What the client calls itself: shown as its claim if the user named none."""
        self._agent = agent_name(self._configured, name, title)

    def set_roots(self, uris: list[str]) -> None:
        """The client's roots (``file://`` URIs), as it last declared them.

        Roots beyond the boundary are kept as declared, so an approval the
        user gives later applies at the next call; the window is asked now.
        """
        try:
            roots = usable_roots(uris)
            problem = None
        except RootError as error:
            roots, problem = [], str(error)
        with self._lock:
            self._roots, self._roots_problem = roots, problem
        self._ask_user(self._beyond(roots))

    def refuse_roots(self, problem: str) -> None:
        """The client's roots cannot be used: every call says ``problem``."""
        with self._lock:
            self._roots, self._roots_problem = [], problem

    def workspace(self, arguments: object = None) -> Path:
        """The workspace of a call; ``ToolCallError`` if the roots are unusable.

        ``BeyondBoundaryError`` if a root lies outside the folder the user set and
        the user has not approved it for this client.
        """
        with self._lock:
            roots, problem = list(self._roots), self._roots_problem
        if problem is not None:
            raise ToolCallError(problem)
        outside = self._beyond(roots)
        if outside:
            raise BeyondBoundaryError(self._beyond_text(outside[0]), outside)
        unbounded = self._fallback.boundary_problem()
        if not roots and unbounded is not None:
            raise ToolCallError(unbounded)
        return Path(
            os.path.realpath(choose_workspace(roots, arguments, self._fallback))
        )

    def _beyond(self, roots: list[Path]) -> list[str]:
        """The roots, resolved, that neither the boundary nor an approval holds.

        Approvals are read from the store at each check: one the user gives
        in the window applies at once, and one that is gone no longer does.
        """
        # A boundary that bounds nothing (the file system's root) holds no
        # root: each needs the user's approval.
        bounds = (
            [] if self._fallback.boundary_problem() else [self._fallback.boundary()]
        )
        outside = beyond(roots, bounds)
        if not outside:
            return []
        try:
            approved = self._store.approved_folders(self._client)
        except STORE_FAILURES:
            approved = []  # no approval can be read: none applies
        return beyond([Path(folder) for folder in outside], approved)

    def _beyond_text(self, folder: str) -> str:
        boundary = self._fallback.boundary()
        unbounded = self._fallback.boundary_problem()
        if unbounded is not None:
            return f"The client's workspace root {folder} needs approval. {unbounded}"
        return (
            f"The client's workspace root {folder} is outside {boundary}, the "
            "folder this server was started for (--workspace, else the folder "
            "it started in). Roots may narrow the workspace, never widen it, so "
            "nothing was presented. The user can approve the folder for "
            f"{self._client} in the Deliverables window, or start the server "
            "with --workspace set to a folder that holds it."
        )

    def _ask_user(self, folders: list[str]) -> None:
        boundary = self._fallback.boundary()
        for folder in folders:
            self._window.ask(FolderRequest(self._client, self._agent, folder, boundary))

    def _workspace_of_call(self, arguments: object) -> Path:
        try:
            return self.workspace(arguments)
        except BeyondBoundaryError as refusal:
            # A call the client made: the user is asked again, in case the
            # window was not open when the roots changed.
            self._ask_user(refusal.folders)
            raise

    def offers_show_image(self) -> bool:
        try:
            workspace = self.workspace()
            return offers_show_image(workspace, current_policy(workspace))
        except (ToolCallError, OSError):
            # No usable workspace, or a public folder that cannot be listed:
            # nothing to show, so the tool is not offered.
            return False

    # -- the tools -------------------------------------------------------------

    def present(self, arguments: object) -> Reply:
        try:
            workspace = self._workspace_of_call(arguments)
            record = check_present(
                arguments,
                workspace=workspace,
                mode=self._mode,
                policy=current_policy(workspace),
            )
        except ToolCallError as failure:
            return Reply(failure.text, is_error=True)
        names = [entry.path for entry in record.files]
        text = present_reply(names, IN_APP_WINDOW)
        # The arguments as checked, not as sent: only what the record holds.
        files = [{"path": e.path, "description": e.description} for e in record.files]
        self._store_turn(
            workspace,
            PRESENT,
            {"files": files},
            text,
            record.to_json(),
            PRESENTED_BY.format(agent=self._agent),
        )
        # Names as the agent gave them; nothing else of the record.
        return Reply(text, {"presented": names, "count": len(names)})

    def show_image(self, arguments: object) -> Reply:
        try:
            workspace = self._workspace_of_call(arguments)
            text, _artifact = run_show_image(
                arguments,
                workspace=workspace,
                policy=current_policy(workspace),
                links=self._links,
                offered=MCP_TOOLS,
            )
        except ToolCallError as failure:
            return Reply(failure.text, is_error=True)
        assert isinstance(arguments, dict)  # show_image refuses anything else
        shown = {k: v for k, v in arguments.items() if v is not None}
        self._store_turn(
            workspace, SHOW_IMAGE, shown, text, None, SHOWN_BY.format(agent=self._agent)
        )
        return Reply(text)

    # -- storing ---------------------------------------------------------------

    def _conversation(self, workspace: Path) -> str:
        """The conversation of a call in ``workspace``: this client's there.

        A new session of the same client in the same folder continues it,
        unless the user's preferences start a new one (at each session, or
        after a gap without calls).
        """
        key = os.fspath(workspace)
        with self._lock:
            found = self._conversations.get(key)
            if found is None:
                found = continued_conversation(
                    self._store, self._agent, key, self._session
                )
            if found is None:
                title = conversation_title(self._agent, workspace)
                found = self._store.create_conversation(title, key).id
            self._conversations[key] = found
            note_call(self._store, self._agent, key, found, self._session)
            return found

    def _store_turn(
        self,
        workspace: Path,
        tool: str,
        args: dict[str, Any],
        result: str,
        record: str | None,
        answer: str,
    ) -> None:
        call_id = f"mcp-{uuid.uuid4().hex}"
        items = turn_items(
            FROM.format(agent=self._agent), call_id, tool, args, result, record, answer
        )
        conversation_id = self._conversation(workspace)
        try:
            self._store.append_messages(conversation_id, items)
        except KeyError:
            # The user deleted this session's conversation in the window: the
            # session goes on in a new one.
            with self._lock:
                self._conversations.pop(os.fspath(workspace), None)
            conversation_id = self._conversation(workspace)
            self._store.append_messages(conversation_id, items)
        self._window.changed(conversation_id)


def turn_items(
    opening: str,
    call_id: str,
    tool: str,
    args: dict[str, Any],
    result: str,
    record: str | None,
    answer: str,
) -> list[tuple[dict[str, Any], str | None, str | None]]:
    """One MCP call as a stored turn: who it came from, the call, its result, the
    answer; the record (for ``present``) beside the result.
    """
    call = ToolCall(call_id, tool, args)
    return [
        (write(HumanMessage(opening)), None, None),
        (write(AIMessage("", (call,))), None, None),
        (
            write(ToolResult(call_id, result, name=tool)),
            record,
            call_id if record is not None else None,
        ),
        (write(AIMessage(answer)), None, None),
    ]
