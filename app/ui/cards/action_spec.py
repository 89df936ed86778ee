"""The one table of file actions, each offered by what its workspace can do."""

from __future__ import annotations

from dataclasses import dataclass

from app.workspace.protocol import Workspace

HERE = "here"
"""The files are on this computer: a checked descriptor can be handed on."""
NATIVE = "native"
"""The workspace has a ``native`` side: the desktop's apps and file manager."""
HOST = "host"
"""The files are on another host: they have ssh/scp coordinates and a remote tree."""


@dataclass(frozen=True)
class ActionSpec:
    """One card action: its id, menu text, and the words a refusal uses.

    ``needs_fd`` marks an action that reads the file, so it needs the checked
    version open (a local card's descriptor) before it runs. ``needs`` names
    what the workspace must be able to do for the action to be offered.
    """

    id: str
    label: str
    refusal: str  # "Can't {refusal}: reason", with {name} in it
    needs_fd: bool = False
    needs: frozenset[str] = frozenset()


def _needs(*capabilities: str) -> frozenset[str]:
    return frozenset(capabilities)


FILE_ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("open", "&Open", "open {name}", needs_fd=True),
    ActionSpec(
        "open_browser",
        "Open in built-in &browser",
        "open {name} in the built-in browser",
        needs_fd=True,
        needs=_needs(HERE),
    ),
    ActionSpec(
        "reveal",
        "&Reveal in file tree",
        "reveal {name} in the file tree",
        needs=_needs(HERE),
    ),
    ActionSpec(
        "show_source", "Show &source", "show the source of {name}", needs_fd=True
    ),
    ActionSpec(
        "locate",
        "&Locate in remote tree",
        "locate {name} in the remote tree",
        needs=_needs(HOST),
    ),
    ActionSpec(
        "copy_path", "&Copy path", "copy the path of {name}", needs=_needs(HERE)
    ),
    ActionSpec(
        "copy_url",
        "Copy remote coordinate (ssh://user@host:port/path)",
        "copy the remote coordinate of {name}",
        needs=_needs(HOST),
    ),
    ActionSpec(
        "copy_scp",
        "Copy remote coordinate (user@host:/path, for scp)",
        "copy the remote coordinate of {name}",
        needs=_needs(HOST),
    ),
    ActionSpec(
        "open_native",
        "Open with system &app",
        "open {name} with its app",
        needs_fd=True,
        needs=_needs(HERE, NATIVE),
    ),
    ActionSpec(
        "show_in_file_manager",
        "Show in file &manager",
        "show {name} in the file manager",
        needs=_needs(HERE, NATIVE),
    ),
    ActionSpec(
        "save_copy",
        "Sa&ve a copy…",
        "save a copy of {name}",
        needs_fd=True,
        needs=_needs(HERE),
    ),
    ActionSpec(
        "save_local",
        "Sa&ve to local…",
        "save {name} to this computer",
        needs=_needs(HOST),
    ),
)
"""Every file action, in menu order; a menu shows those its workspace offers."""


def capabilities(workspace: Workspace) -> frozenset[str]:
    """What ``workspace`` can do for an action, asked of the workspace itself."""
    found: set[str] = set()
    if workspace.local_root is not None:
        found.add(HERE)
    if workspace.native is not None:
        found.add(NATIVE)
    if workspace.host is not None:
        found.add(HOST)
    return frozenset(found)


def offered(able: frozenset[str]) -> tuple[ActionSpec, ...]:
    """The actions a workspace that can do ``able`` offers, in menu order."""
    return tuple(spec for spec in FILE_ACTIONS if spec.needs <= able)
