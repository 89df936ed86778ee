"""The agent's tools (workspace files, ``present``, ``show_image``) in a fixed order."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from app.agent.tool_errors import tool_errors
from app.core.changes.change import ChangeArtifact
from app.core.changes.edits import describe_write
from app.core.filetype.sizes import counted
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.public_files import LinkRegistry
from app.tools import host_calls
from app.tools.specs import (
    LIST_FILES,
    LIST_FILES_DESCRIPTION,
    LIST_FILES_SCHEMA,
    PRESENT_DESCRIPTION,
    PRESENT_SCHEMA,
    READ_FILE,
    READ_FILE_DESCRIPTION,
    READ_FILE_SCHEMA,
    SHOW_IMAGE,
    SHOW_IMAGE_DESCRIPTION,
    SHOW_IMAGE_SCHEMA,
    WRITE_FILE,
    WRITE_FILE_DESCRIPTION,
    WRITE_FILE_SCHEMA,
    present_reply,
)
from app.tools.specs import LIST_LIMIT as LIST_LIMIT

# Re-exported: the runner and tests know the tool order and names from here.
from app.tools.specs import PRESENT as PRESENT
from app.tools.specs import READ_LIMIT as READ_LIMIT
from app.tools.specs import TOOL_ORDER as TOOL_ORDER
from app.workspace.protocol import Workspace

# Everything the model sees of the tools is a constant: the serialized tool list
# (and so the provider's prompt-cache prefix) never depends on session state.
SYSTEM_PROMPT: Final = (
    "You are an assistant working in the user's workspace folder. Use list_files, "
    "read_file and write_file to inspect and create files; paths are relative to "
    "the workspace. When files are finished and the user should open or keep them, "
    "call present once with every such file and a one-line description of each; "
    "they appear as cards under your answer, so do not paste their content. If a "
    "tool reports an error, read it, fix the call and try again. To show an image "
    "from the public folder inline, call show_image when it is available. Answer "
    "in concise Markdown."
)


# A remote host bounds each SFTP operation itself (30 s by default); this only
# keeps a host that never answers from holding the turn for ever.
_POLICY_WAIT: Final = 60.0


class PermissionSetting:
    """The session's current permission mode; the UI may switch it at any time."""

    def __init__(self, mode: PermissionMode = PermissionMode.WORKSPACE_ONLY) -> None:
        self._mode = mode
        self._lock = threading.Lock()

    def get(self) -> PermissionMode:
        with self._lock:
            return self._mode

    def set(self, mode: PermissionMode) -> None:
        with self._lock:
            self._mode = mode


@dataclass(frozen=True)
class AgentSession:
    """What the tools act on: the workspace, the mode in force, policy and links.

    The workspace was chosen where it was opened (``app.workspace.choose``): a
    local folder, or a connected ``ssh://`` one that every tool reaches over
    SFTP, with the same schemas, limits and answers.
    """

    workspace: Workspace
    permission: PermissionSetting = field(default_factory=PermissionSetting)
    # Loaded on every call so an edited policy file applies without a restart.
    policy_loader: Callable[[], Policy] | None = None
    links: LinkRegistry = field(default_factory=LinkRegistry)

    def policy(self) -> Policy:
        if self.policy_loader is not None:
            return self.policy_loader()
        try:
            return self.workspace.policy().result(_POLICY_WAIT)
        except Exception as error:  # fail closed, as the local policy door does
            return Policy.deny_all(f"the workspace policy cannot be read: {error}")

    def root(self) -> str:
        root = self.workspace.local_root
        if root is None:
            raise TypeError("a remote workspace has no folder on this computer")
        return root

    def has_public_files(self) -> bool:
        return host_calls.offers_show_image(self.workspace, self.policy())


def make_tools(session: AgentSession) -> list[BaseTool]:
    """The session's tools, always in ``TOOL_ORDER``."""
    specs: list[tuple[str, str, dict[str, Any], Callable[..., Any], bool]] = [
        (
            LIST_FILES,
            LIST_FILES_DESCRIPTION,
            LIST_FILES_SCHEMA,
            lambda **a: _list_files(session, a),
            False,
        ),
        (
            READ_FILE,
            READ_FILE_DESCRIPTION,
            READ_FILE_SCHEMA,
            lambda **a: _read_file(session, a),
            False,
        ),
        (
            WRITE_FILE,
            WRITE_FILE_DESCRIPTION,
            WRITE_FILE_SCHEMA,
            lambda **a: _write_file(session, a),
            True,
        ),
        (
            PRESENT,
            PRESENT_DESCRIPTION,
            PRESENT_SCHEMA,
            lambda **a: _present(session, a),
            True,
        ),
        (
            SHOW_IMAGE,
            SHOW_IMAGE_DESCRIPTION,
            SHOW_IMAGE_SCHEMA,
            lambda **a: _show_image(session, a),
            True,
        ),
    ]
    return [
        StructuredTool.from_function(
            func=func,
            name=name,
            description=description,
            args_schema=schema,
            response_format="content_and_artifact" if artifact else "content",
            # A ToolException becomes an error ToolMessage the model can read.
            handle_tool_error=True,
        )
        for name, description, schema, func, artifact in specs
    ]


# -- arguments and paths ----------------------------------------------------------


def _arguments(
    arguments: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...]
) -> dict[str, Any]:
    """Check that the call has exactly the known string arguments."""
    extra = sorted(set(arguments) - set(required) - set(optional))
    if extra:
        raise ToolException(f"Unexpected arguments: {', '.join(extra)}.")
    for name in required:
        if name not in arguments:
            raise ToolException(f"Missing argument: {name}.")
    for name, value in arguments.items():
        if value is not None and not isinstance(value, str):
            raise ToolException(f"Argument {name} must be a string.")
    return arguments


# -- workspace tools --------------------------------------------------------------
#
# Each workspace reaches its files itself (app.workspace): a local one through
# descriptors from its root, so a folder swapped for a symlink mid-call cannot
# lead out; a remote one over SFTP. The refusals are worded once, here.


def _list_files(session: AgentSession, arguments: dict[str, Any]) -> str:
    given = _arguments(arguments, (), ("path",)).get("path") or "."
    policy = session.policy()
    workspace = session.workspace
    with tool_errors(
        given, lambda _error: f"{given!r} is not a folder of the workspace."
    ):
        lines, stopped = workspace.list_for_agent(
            given, policy, limit=LIST_LIMIT
        ).result()
    if stopped:
        lines += (f"... stopped after {len(lines)} files",)
    return "\n".join(lines) if lines else f"{given!r} has no files."


def _read_file(session: AgentSession, arguments: dict[str, Any]) -> str:
    given = _arguments(arguments, ("path",), ())["path"]
    policy = session.policy()
    workspace = session.workspace
    with tool_errors(
        given,
        lambda error: f"Cannot read {given!r}: {str(error).rstrip('.')}.",
        changed_is_unreadable=True,
    ):
        data = workspace.read_for_agent(given, policy, size=READ_LIMIT + 1).result()
    return _text_answer(given, data)


def _text_answer(given: str, data: bytes) -> str:
    if b"\0" in data[:8192]:
        raise ToolException(f"{given!r} is a binary file; read_file reads text only.")
    text = data[:READ_LIMIT].decode("utf-8", errors="replace")
    if len(data) > READ_LIMIT:
        text += f"\n[... truncated after {READ_LIMIT} bytes]"
    return text


def _write_file(
    session: AgentSession, arguments: dict[str, Any]
) -> tuple[str, ChangeArtifact]:
    values = _arguments(arguments, ("path", "content"), ())
    given, content = values["path"], values["content"]
    if os.path.basename(given.rstrip("/")) in ("", ".", "..") or given.endswith("/"):
        raise ToolException(f"{given!r} does not name a file.")
    policy = session.policy()
    data = content.encode("utf-8")
    workspace = session.workspace
    with tool_errors(given, lambda error: f"Cannot write {given!r}: {error}."):
        written = workspace.write_for_agent(given, policy, data).result()
    text = f"Wrote {counted(len(data), 'byte')} to {given}."
    if written is None:
        return text, ChangeArtifact(())
    change = describe_write(
        given, written.resolved, written.before, data, written.identity, tool=WRITE_FILE
    )
    # The change is the artifact: host-only, it never goes back to the model.
    return text, ChangeArtifact((change,))


# -- present and show_image --------------------------------------------------------
#
# Both run in app.tools.host_calls, shared with the MCP server.


def _present(session: AgentSession, arguments: dict[str, Any]) -> tuple[str, str]:
    try:
        record = host_calls.check_present(
            arguments,
            workspace=session.workspace,
            mode=session.permission.get(),
            policy=session.policy(),
        )
    except host_calls.ToolCallError as failure:
        raise ToolException(failure.text) from failure
    content = present_reply([entry.path for entry in record.files])
    # The record is the artifact: host-only, it never goes back to the model.
    return content, record.to_json()


def _show_image(
    session: AgentSession, arguments: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    try:
        return host_calls.show_image(
            arguments,
            workspace=session.workspace,
            policy=session.policy(),
            links=session.links,
            offered=TOOL_ORDER,
        )
    except host_calls.ToolCallError as failure:
        raise ToolException(failure.text) from failure
