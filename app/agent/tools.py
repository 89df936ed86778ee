"""The agent's tools (workspace files, ``present``, ``show_image``) in a fixed order."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from app.core.changes.change import BeforeState, ChangeArtifact
from app.core.changes.edits import describe_write, read_before
from app.core.filetype.sizes import counted
from app.core.trust.beneath import Beneath, OutsideRootError
from app.core.trust.policy import PermissionMode, Policy, current_policy
from app.core.trust.public_files import LinkRegistry
from app.core.trust.safeio import SafeOpenError
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
    outside_text,
    present_reply,
)
from app.tools.specs import LIST_LIMIT as LIST_LIMIT

# Re-exported: the runner and tests know the tool order and names from here.
from app.tools.specs import PRESENT as PRESENT
from app.tools.specs import READ_LIMIT as READ_LIMIT
from app.tools.specs import TOOL_ORDER as TOOL_ORDER

if TYPE_CHECKING:
    from app.remote.workspace import RemoteWorkspace

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

    The workspace is a local folder, or a connected ``RemoteWorkspace`` (an
    ``ssh://`` address): then every tool reaches it over SFTP, with the same
    schemas, limits and answers, and nothing is looked up on the local disk.
    """

    workspace: Path | RemoteWorkspace
    permission: PermissionSetting = field(default_factory=PermissionSetting)
    # Loaded on every call so an edited policy file applies without a restart.
    policy_loader: Callable[[], Policy] | None = None
    links: LinkRegistry = field(default_factory=LinkRegistry)

    def policy(self) -> Policy:
        if self.policy_loader is not None:
            return self.policy_loader()
        if not isinstance(self.workspace, Path):
            from app.agent.remote_tools import remote_policy

            return remote_policy(self.workspace)
        return current_policy(self.workspace)

    def root(self) -> str:
        if not isinstance(self.workspace, Path):
            raise TypeError("a remote workspace has no folder on this computer")
        return os.path.realpath(self.workspace)

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


def _refuse_denied(given: str, paths: list[str], policy: Policy) -> None:
    # The name as given and the place it leads to must both be allowed, so a
    # harmless-looking link cannot reach a secret, nor a secret's name be used.
    for candidate in dict.fromkeys(paths):
        rule = policy.denying_rule(candidate)
        if rule is not None:
            raise ToolException(f"{given!r} is denied by rule {rule.describe()}.")


def _outside(given: str) -> ToolException:
    return ToolException(outside_text(given))


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


# -- workspace tools --------------------------------------------------------------
#
# Every file is reached through descriptors from the workspace root
# (app.core.trust.beneath): a folder swapped for a symlink mid-call cannot lead out.


def _list_files(session: AgentSession, arguments: dict[str, Any]) -> str:
    given = _arguments(arguments, (), ("path",)).get("path") or "."
    policy = session.policy()
    if not isinstance(session.workspace, Path):
        from app.agent import remote_tools

        return remote_tools.list_files(session.workspace, given, policy)
    beneath = Beneath(session.root())
    try:
        lexical = beneath.lexical_path(given)
        _refuse_denied(given, [lexical], policy)
        folder_fd, real = beneath.open_folder(given)
    except OutsideRootError as error:
        raise _outside(given) from error
    except SafeOpenError as error:
        raise ToolException(f"{given!r} is not a folder of the workspace.") from error
    try:
        _refuse_denied(given, [real], policy)
        return _listing(given, folder_fd, real, beneath.root, policy)
    finally:
        os.close(folder_fd)


def _listing(given: str, folder_fd: int, real: str, root: str, policy: Policy) -> str:
    lines: list[str] = []
    walk = os.fwalk(".", dir_fd=folder_fd, follow_symlinks=False)
    try:
        for current, folders, files, current_fd in walk:
            here = os.path.normpath(os.path.join(real, current))
            # Links to folders are not entered; denied folders are hidden.
            folders[:] = sorted(
                name
                for name in folders
                if policy.denying_rule(os.path.join(here, name)) is None
            )
            for name in sorted(files):
                path = os.path.join(here, name)
                if policy.denying_rule(path) is not None:
                    continue
                try:
                    status = os.stat(name, dir_fd=current_fd, follow_symlinks=False)
                except OSError:
                    continue  # gone since the folder was read
                size = counted(status.st_size, "byte")
                what = "symbolic link" if stat.S_ISLNK(status.st_mode) else size
                lines.append(f"{_relative(path, root)} ({what})")
                if len(lines) >= LIST_LIMIT:
                    lines.append(f"... stopped after {LIST_LIMIT} files")
                    return "\n".join(lines)
    finally:
        # fwalk is a generator holding a descriptor per open folder until it
        # is closed; its annotation says only Iterator.
        getattr(walk, "close")()  # noqa: B009
    return "\n".join(lines) if lines else f"{given!r} has no files."


def _read_file(session: AgentSession, arguments: dict[str, Any]) -> str:
    given = _arguments(arguments, ("path",), ())["path"]
    policy = session.policy()
    if not isinstance(session.workspace, Path):
        from app.agent import remote_tools

        data = remote_tools.read_bytes(session.workspace, given, policy, READ_LIMIT + 1)
        return _text_answer(given, data)
    beneath = Beneath(session.root())
    try:
        lexical = beneath.lexical_path(given)
        _refuse_denied(given, [lexical], policy)
        with beneath.open_file(given) as handle:
            _refuse_denied(given, [handle.real_path or lexical], policy)
            data = handle.read(READ_LIMIT + 1)
    except OutsideRootError as error:
        raise _outside(given) from error
    except SafeOpenError as error:
        raise ToolException(f"Cannot read {given!r}: {error}.") from error
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
    if not isinstance(session.workspace, Path):
        from app.agent import remote_tools

        data = content.encode("utf-8")
        remote_tools.write_bytes(session.workspace, given, policy, data)
        # The change index covers local workspaces; a remote write records none.
        return f"Wrote {counted(len(data), 'byte')} to {given}.", ChangeArtifact(())
    beneath = Beneath(session.root())
    try:
        lexical = beneath.lexical_path(given)
        _refuse_denied(given, [lexical], policy)
        target = beneath.locate_for_write(given)
    except OutsideRootError as error:
        raise _outside(given) from error
    except SafeOpenError as error:
        raise ToolException(f"Cannot write {given!r}: {error}.") from error
    data = content.encode("utf-8")
    try:
        _refuse_denied(given, [target.real_path], policy)
        # The change index needs what was there; a new folder holds nothing.
        before = BeforeState.absent()
        if not target.missing:
            before = read_before(target.folder_fd, target.name)
        identity = beneath.write(target, data)
    except SafeOpenError as error:
        raise ToolException(f"Cannot write {given!r}: {error}.") from error
    except OSError as error:
        raise ToolException(f"Cannot write {given!r}: {error.strerror}.") from error
    finally:
        os.close(target.folder_fd)
    resolved = target.real_path
    change = describe_write(given, resolved, before, data, identity, tool=WRITE_FILE)
    # The change is the artifact: host-only, it never goes back to the model.
    return f"Wrote {counted(len(data), 'byte')} to {given}.", ChangeArtifact((change,))


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
