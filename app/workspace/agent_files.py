"""The agent's list, read and write on a local workspace, by descriptors.

Every file is reached through descriptors from the workspace root
(``app.core.trust.beneath``): a folder swapped for a symlink mid-call cannot
lead out. Refusals are raised as the SSH backend raises them
(``OutsideRootError``, ``DeniedPathError``, ``SafeOpenError``), so the agent
words them once.
"""

from __future__ import annotations

import os
import stat

from app.core.changes.change import BeforeState
from app.core.changes.edits import read_before
from app.core.filetype.sizes import counted
from app.core.trust.beneath import Beneath
from app.core.trust.policy import Policy
from app.core.trust.safeio import SafeOpenError
from app.core.trust.verdicts import refuse_denied
from app.workspace.protocol import Written


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def list_files(
    root: str, given: str, policy: Policy, limit: int
) -> tuple[list[str], bool]:
    """Files under ``given``: ``relative (N bytes)`` lines, and whether cut short.

    The name as given and the place it leads to must both be allowed, so a
    harmless-looking link cannot reach a secret, nor a secret's name be used.
    """
    beneath = Beneath(root)
    refuse_denied(policy, beneath.lexical_path(given))
    folder_fd, real = beneath.open_folder(given)
    try:
        refuse_denied(policy, real)
        return _listing(folder_fd, real, beneath.root, policy, limit)
    finally:
        os.close(folder_fd)


def _listing(
    folder_fd: int, real: str, root: str, policy: Policy, limit: int
) -> tuple[list[str], bool]:
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
                if len(lines) >= limit:
                    return lines, True
    finally:
        # fwalk is a generator holding a descriptor per open folder until it
        # is closed; its annotation says only Iterator.
        getattr(walk, "close")()  # noqa: B009
    return lines, False


def read_file(root: str, given: str, policy: Policy, size: int) -> bytes:
    """Up to ``size`` bytes of a regular workspace file, links followed inside."""
    beneath = Beneath(root)
    lexical = beneath.lexical_path(given)
    refuse_denied(policy, lexical)
    with beneath.open_file(given) as handle:
        refuse_denied(policy, handle.real_path or lexical)
        return handle.read(size)


def write_file(root: str, given: str, policy: Policy, data: bytes) -> Written:
    """Create or replace the workspace file ``given`` with ``data``, whole."""
    beneath = Beneath(root)
    refuse_denied(policy, beneath.lexical_path(given))
    target = beneath.locate_for_write(given)
    try:
        refuse_denied(policy, target.real_path)
        # The change index needs what was there; a new folder holds nothing.
        before = BeforeState.absent()
        if not target.missing:
            before = read_before(target.folder_fd, target.name)
        identity = beneath.write(target, data)
    except SafeOpenError:
        raise
    except OSError as error:
        raise SafeOpenError("unwritable", f"{error.strerror}") from error
    finally:
        os.close(target.folder_fd)
    return Written(target.real_path, before, identity)
