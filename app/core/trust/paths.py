"""Path facts every layer needs alike: containment, resolving all but the leaf.

``is_within`` is the one answer to "is this path inside that folder"; every
check that asks it (scope, the agent's tools, bundles, previews) comes here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit


def is_within(
    path: str, root: str, *, allow_root: bool = True, sep: str = os.sep
) -> bool:
    """Whether ``path`` is inside ``root`` (or is ``root``), compared as given.

    No I/O: both should be absolute and resolved the same way. ``/a/bc`` is not
    inside ``/a/b``. With ``allow_root=False`` the root itself does not count,
    for callers that need a file below it. ``sep`` is the separator of the
    system the paths belong to: this computer's by default, ``"/"`` for the
    POSIX paths of a remote host whatever this computer uses.
    """
    if not root:
        return False
    root = root.rstrip(sep) or sep
    if path == root:
        return allow_root
    return path.startswith(root if root.endswith(sep) else root + sep)


def folder_path_problem(path: str) -> str | None:
    """Why ``path`` cannot name a workspace folder as it stands, else ``None``.

    It must be absolute and already in its plain form: no ``.`` or ``..``
    step, no empty part, no NUL. What is checked is then exactly what is
    named, never a place a later normalisation walks to. It must not be the
    root of a file system either, which would make every file a workspace
    file. (The home folder is not refused here: a user may mean it, and the
    MCP boundary rule already keeps a client from widening into it.)
    """
    if "\0" in path:
        return "holds a NUL character"
    if not path or not os.path.isabs(path):
        return "is not a full path"
    separators = os.sep + (os.altsep or "")
    # One trailing separator is how many clients write a folder.
    body = path[:-1] if len(path) > 1 and path[-1] in separators else path
    if os.path.dirname(body) == body or os.path.splitdrive(body)[1] in ("", os.sep):
        return "is the root of the file system"
    _drive, rest = os.path.splitdrive(body)
    parts = rest.replace(os.altsep or os.sep, os.sep).split(os.sep)[1:]
    if any(part in ("", ".", "..") for part in parts):
        return "is not in plain form (it has '.', '..' or empty steps)"
    return None


def resolve_keep_leaf(path: str, root: str | None = None) -> str:
    """Absolute path with parent folders resolved and the final name kept.

    The final component is not followed, so a final symlink is seen (and
    refused) rather than followed; symlinked parents are resolved so policy
    and scope judge the real place. Relative paths start at ``root``. A path
    that names a folder by its form (``docs/``, ``a/..``) is resolved whole.
    """
    if not os.path.isabs(path):
        path = os.path.join(root if root is not None else os.getcwd(), path)
    absolute = path
    if absolute.endswith(("/", os.sep)) or os.path.basename(absolute) in (
        "",
        ".",
        "..",
    ):
        return os.path.realpath(absolute)
    parent, name = os.path.split(absolute)
    return os.path.join(os.path.realpath(parent), name)


@dataclass(frozen=True)
class ImageTarget:
    """Where an image source points: an absolute path, or why it is not read."""

    path: str | None
    reason: str = ""


def image_target(src: str, folder: str, root: str) -> ImageTarget:
    """Resolve an image source written in a file in ``folder`` against ``root``.

    Only relative paths and ``file:`` URLs are candidates, and only if they stay
    below ``root`` once ``..`` and folder links are resolved. The last part is
    left as named so that opening it refuses a symbolic link.
    """
    parts = urlsplit(src)
    if parts.scheme and len(parts.scheme) > 1 and parts.scheme != "file":
        return ImageTarget(None, f"{parts.scheme} images are not loaded")
    if parts.scheme == "file" and parts.netloc not in ("", "localhost"):
        return ImageTarget(None, "images on other hosts are not loaded")
    raw = unquote(parts.path) if parts.scheme == "file" or not parts.scheme else src
    if not raw or "\0" in raw:
        return ImageTarget(None, "the image has no path")
    resolved = resolve_keep_leaf(os.path.abspath(os.path.join(folder, raw)))
    if not is_within(resolved, os.path.realpath(root), allow_root=False):
        return ImageTarget(None, "the image is outside the workspace")
    return ImageTarget(resolved)
