"""Which folder a call works in: the client's roots, ``--workspace``, or the cwd.

The user sets the boundary (``--workspace``, else the folder the server was
started in); a client's roots may narrow the workspace to a folder inside it,
never widen it. A folder beyond it needs the user's approval in the window.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

from app.core.trust.paths import folder_path_problem, is_within

# Percent-encoded separators and NUL: a root that hides them in its encoding
# names something other than what its text shows.
_HIDDEN_IN_ENCODING: Final = re.compile(
    r"%(2f|00)" + (r"|%5c" if os.name == "nt" else ""), re.IGNORECASE
)


class RootError(ValueError):
    """The client's roots name no usable local folder; the message says why."""


class RootRefusedError(RootError):
    """A root that is refused outright: the client's whole change of roots is."""


@dataclass(frozen=True)
class Fallback:
    """Where calls work when the client declares no root; also the boundary.

    ``--workspace`` comes before the working directory although the issue
    lists the cwd first: a folder given on the command line is a deliberate
    choice, and the server always has a cwd, so the option would otherwise
    never apply.
    """

    option: Path | None
    cwd: Path

    def folder(self) -> Path:
        return self.option if self.option is not None else self.cwd

    def boundary(self) -> str:
        """The folder the user set, resolved: roots may only pick folders in it."""
        return os.path.realpath(self.folder())

    def boundary_problem(self) -> str | None:
        """Why the folder the user set bounds nothing, else ``None``.

        A server started in ``/`` without ``--workspace`` (as some clients start
        their servers) would make every file a workspace file: then no folder
        is inside the boundary, and only a folder the user approves is usable.
        """
        boundary = self.boundary()
        problem = folder_path_problem(boundary)
        if problem is None:
            return None
        return (
            f"This server was started in {boundary} without --workspace, and "
            f"{boundary} {problem}, so it cannot be a workspace. Register the "
            "server with --workspace set to the project folder (deliverables "
            "mcp --print-config CLIENT writes it), or approve the client's "
            "folder in the Deliverables window."
        )


def root_folder(uri: str) -> Path:
    """The local folder of a ``file://`` root URI, or ``RootError``.

    The decoded path is what is judged: a root whose encoding hides a
    separator or NUL, that steps through ``..``, that is not in plain form or
    that is the root of the file system is refused (``RootRefusedError``).
    """
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file":
        raise RootError(
            f"The client's workspace root {uri!r} is not a local folder "
            "(only file:// roots can hold files to present)."
        )
    if parts.netloc not in ("", "localhost"):
        raise RootError(
            f"The client's workspace root {uri!r} is on another host "
            f"({parts.netloc}); only local folders can be presented from."
        )
    path = unquote(parts.path)
    if _HIDDEN_IN_ENCODING.search(parts.path):
        raise RootRefusedError(
            f"The client's workspace root {uri!r} is refused: its percent-encoding "
            f"hides a folder separator or a NUL character (it decodes to {path!r})."
        )
    if os.name == "nt" and path.startswith("/") and path[2:3] == ":":
        path = path[1:]  # file:///C:/work is C:/work
    if not path or not os.path.isabs(path):
        raise RootError(f"The client's workspace root {uri!r} is not a full path.")
    problem = folder_path_problem(path)
    if problem is not None:
        raise RootRefusedError(
            f"The client's workspace root {uri!r} is refused: {path!r} {problem}."
        )
    if not os.path.isdir(path):
        raise RootError(f"The client's workspace root {uri!r} is not a folder.")
    return Path(path)


def usable_roots(uris: Sequence[str]) -> list[Path]:
    """The declared roots that are local folders, in the client's order.

    ``RootError`` when roots were declared and none of them is usable: the
    client said where it works, so falling back to another folder would
    present from the wrong place. A refused root (``RootRefusedError``) refuses
    the whole declaration.
    """
    folders: list[Path] = []
    problems: list[str] = []
    for uri in uris:
        try:
            folders.append(root_folder(uri))
        except RootRefusedError:
            raise
        except RootError as error:
            problems.append(str(error))
    if uris and not folders:
        raise RootError(" ".join(problems))
    return folders


def _paths_of(arguments: object) -> list[str]:
    if not isinstance(arguments, Mapping):
        return []
    files = arguments.get("files")
    if not isinstance(files, list):
        return []
    return [
        item["path"]
        for item in files
        if isinstance(item, Mapping) and isinstance(item.get("path"), str)
    ]


def _holds(root: Path, path: str) -> bool:
    if "\0" in path:
        return False
    if os.path.isabs(path):
        return is_within(os.path.realpath(path), os.path.realpath(root))
    return os.path.lexists(os.path.join(root, path))


def choose_workspace(
    roots: Sequence[Path], arguments: object, fallback: Fallback
) -> Path:
    """The workspace of one call.

    With roots: the first that holds every path of the call (an absolute
    path inside it, a relative one existing under it), else the first root.
    Without: ``--workspace``, else the working directory.
    """
    if not roots:
        return fallback.folder()
    paths = _paths_of(arguments)
    if paths:
        for root in roots:
            if all(_holds(root, path) for path in paths):
                return root
    return roots[0]


def beyond(folders: Sequence[Path], allowed: Sequence[str]) -> list[str]:
    """The folders, resolved, that lie inside none of the ``allowed`` folders.

    Resolved first, so a root that is a link to a folder elsewhere is judged
    by where it leads.
    """
    outside = []
    for folder in folders:
        real = os.path.realpath(folder)
        if not any(is_within(real, place) for place in allowed):
            outside.append(real)
    return outside
