"""Which folder a call works in: the client's roots, ``--workspace``, or the cwd."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from app.core.paths import is_within


class RootError(ValueError):
    """The client's roots name no usable local folder; the message says why."""


@dataclass(frozen=True)
class Fallback:
    """Where calls work when the client declares no root.

    ``--workspace`` comes before the working directory although the issue
    lists the cwd first: a folder given on the command line is a deliberate
    choice, and the server always has a cwd, so the option would otherwise
    never apply.
    """

    option: Path | None
    cwd: Path

    def folder(self) -> Path:
        return self.option if self.option is not None else self.cwd


def root_folder(uri: str) -> Path:
    """The local folder of a ``file://`` root URI, or ``RootError``."""
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
    if os.name == "nt" and path.startswith("/") and path[2:3] == ":":
        path = path[1:]  # file:///C:/work is C:/work
    if not path or "\0" in path or not os.path.isabs(path):
        raise RootError(f"The client's workspace root {uri!r} is not a full path.")
    if not os.path.isdir(path):
        raise RootError(f"The client's workspace root {uri!r} is not a folder.")
    return Path(path)


def usable_roots(uris: Sequence[str]) -> list[Path]:
    """The declared roots that are local folders, in the client's order.

    ``RootError`` when roots were declared and none of them is usable: the
    client said where it works, so falling back to another folder would
    present from the wrong place.
    """
    folders: list[Path] = []
    problems: list[str] = []
    for uri in uris:
        try:
            folders.append(root_folder(uri))
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
