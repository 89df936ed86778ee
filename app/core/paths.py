"""Path facts every layer needs alike: containment, resolving all but the leaf."""

from __future__ import annotations

import os


def is_within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or inside it, compared as given (no I/O).

    Both should be absolute and resolved the same way; ``/a/bc`` is not inside
    ``/a/b``.
    """
    if not root:
        return False
    root = root.rstrip(os.sep) or os.sep
    if path == root:
        return True
    return path.startswith(root if root.endswith(os.sep) else root + os.sep)


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
