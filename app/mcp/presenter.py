"""One MCP client's calls: checked as in the app, stored as turns, the window told."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from app.agent.host_calls import ToolCallError, check_present, offers_show_image
from app.agent.host_calls import show_image as run_show_image
from app.agent.specs import IN_APP_WINDOW, PRESENT, SHOW_IMAGE, present_reply
from app.core.policy import PermissionMode, current_policy
from app.core.public_files import LinkRegistry
from app.core.store import Store
from app.mcp.clients import UNKNOWN_CLIENT, agent_name, conversation_title
from app.mcp.window import WindowNotifier
from app.mcp.workspace import Fallback, RootError, choose_workspace, usable_roots

# The lines the app writes around each call, so a presentation reads as a
# turn of its own: who it came from, the call, and who presented what.
FROM: Final = "From {agent}"
PRESENTED_BY: Final = "Presented by {agent}."
SHOWN_BY: Final = "Shown by {agent}."


@dataclass(frozen=True)
class Reply:
    """What the model receives: text, and for ``present`` the names it gave."""

    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False


class Presenter:
    """Runs one MCP client session's calls; each call may come from any thread.

    The session has one conversation per workspace it presents from (usually
    exactly one), titled from the client's name and the folder.
    """

    def __init__(
        self,
        store: Store,
        data_dir: Path,
        *,
        mode: PermissionMode,
        fallback: Fallback,
        open_window: Callable[[str], None] | None = None,
    ) -> None:
        self._store = store
        self._mode = mode
        self._fallback = fallback
        self._window = WindowNotifier(data_dir, open_window)
        self._agent = UNKNOWN_CLIENT
        self._roots: list[Path] = []
        self._roots_problem: str | None = None
        self._conversations: dict[str, str] = {}
        self._lock = threading.Lock()
        self._links = LinkRegistry()

    @property
    def agent(self) -> str:
        return self._agent

    def close(self) -> None:
        """Tell the window what is still to be told; the store stays open."""
        self._window.close()

    def set_client(self, name: str | None, title: str | None = None) -> None:
        self._agent = agent_name(name, title)

    def set_roots(self, uris: list[str]) -> None:
        """The client's roots (``file://`` URIs), as it last declared them."""
        try:
            roots = usable_roots(uris)
            problem = None
        except RootError as error:
            roots, problem = [], str(error)
        with self._lock:
            self._roots, self._roots_problem = roots, problem

    def refuse_roots(self, problem: str) -> None:
        """The client's roots cannot be used: every call says ``problem``."""
        with self._lock:
            self._roots, self._roots_problem = [], problem

    def workspace(self, arguments: object = None) -> Path:
        """The workspace of a call; ``ToolCallError`` if the roots are unusable."""
        with self._lock:
            roots, problem = list(self._roots), self._roots_problem
        if problem is not None:
            raise ToolCallError(problem)
        return Path(
            os.path.realpath(choose_workspace(roots, arguments, self._fallback))
        )

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
            workspace = self.workspace(arguments)
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
            workspace = self.workspace(arguments)
            text, _artifact = run_show_image(
                arguments,
                workspace=workspace,
                policy=current_policy(workspace),
                links=self._links,
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
        key = os.fspath(workspace)
        with self._lock:
            found = self._conversations.get(key)
            if found is None:
                title = conversation_title(self._agent, workspace)
                found = self._store.create_conversation(title, key).id
                self._conversations[key] = found
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
        call = {"name": tool, "args": args, "id": call_id, "type": "tool_call"}
        result_data = {
            "content": result,
            "type": "tool",
            "name": tool,
            "tool_call_id": call_id,
            "status": "success",
        }
        items = [
            (_message("human", FROM.format(agent=self._agent)), None, None),
            (_message("ai", "", tool_calls=[call]), None, None),
            (
                {"type": "tool", "data": result_data},
                record,
                call_id if record is not None else None,
            ),
            (_message("ai", answer, tool_calls=[]), None, None),
        ]
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


def _message(kind: str, content: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "data": {"content": content, "type": kind, **data}}
