"""Handing a file to the desktop's own app: what is refused, and the private copy.

The desktop opens a file by name, long after our check, and opens anything:
on desktops that run launchers, a desktop entry, a script or a ``.jar`` runs
code outside every sandbox. So executable kinds are refused, and what is
handed over is a private copy made from the verified descriptor, in a 0700
folder only the app writes to, without any execute bit: a swap of the
agent-writable path after the check changes nothing.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import time
from pathlib import Path

from app.core.filetype import executable_reason
from app.core.trust.app_files import runtime_dir
from app.core.trust.copying import copy_verified
from app.core.trust.safeio import VerifiedFile

COPY_MAX_AGE_S = 24 * 3600
# Names that a desktop runs, installs or hands to an interpreter rather than
# shows: launchers, scripts, executables, installers, self-running archives.
EXECUTABLE_SUFFIXES = frozenset(
    {
        ".desktop", ".directory", ".lnk", ".url", ".webloc", ".inetloc",
        ".sh", ".bash", ".zsh", ".fish", ".csh", ".ksh", ".command", ".tool",
        ".py", ".pyw", ".pyz", ".pl", ".rb", ".php", ".lua", ".tcl", ".js",
        ".mjs", ".jse", ".vbs", ".vbe", ".wsf", ".wsh", ".ps1", ".psm1",
        ".bat", ".cmd", ".com", ".exe", ".scr", ".pif", ".msi", ".msp",
        ".cpl", ".hta", ".reg", ".jar", ".jnlp", ".appimage", ".run", ".bin",
        ".elf", ".so", ".dll", ".dylib", ".deb", ".rpm", ".apk", ".snap",
        ".flatpak", ".flatpakref", ".pkg", ".mpkg", ".dmg", ".app",
        ".action", ".workflow", ".scpt", ".applescript", ".xpi", ".crx",
    }
)  # fmt: skip


class PrivateCopyError(OSError):
    """The private copy could not be made; the message says why."""


def native_open_refusal(name: str, mode: int, head: bytes) -> str | None:
    """Why ``name`` must not be handed to the desktop's app, or ``None``.

    ``mode`` is the file's ``st_mode`` from the verified descriptor; ``head``
    its first bytes. Any one sign of something that runs is enough.
    """
    suffix = os.path.splitext(name)[1].lower()
    if suffix in EXECUTABLE_SUFFIXES:
        return f"{suffix} files can run code, so they are not opened with another app"
    if mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH):
        return "it is marked executable, so it is not opened with another app"
    what = executable_reason(head)
    if what is not None:
        return f"it is {what}, so it is not opened with another app"
    return None


def copies_folder() -> Path:
    return runtime_dir() / "opened"


def _private_folder(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    status = os.lstat(path)
    if not stat.S_ISDIR(status.st_mode) or (
        hasattr(os, "getuid") and status.st_uid != os.getuid()
    ):
        raise PrivateCopyError(f"{path} is not a folder of this user")
    os.chmod(path, 0o700)


def make_private_copy(source: VerifiedFile, name: str, *, limit: int = 0o400) -> Path:
    """Copy ``source`` into a fresh private folder as ``name``; never executable.

    Read-only for its owner unless ``limit`` allows more (a copy dragged to
    the desktop is copied again there, permissions and all), and never more
    readable than the source or the umask allows (``copy_mode``). Raises
    ``PrivateCopyError`` when the copy fails or the file changed while it was
    copied (then nothing is left behind).
    """
    base = copies_folder()
    _private_folder(base.parent)
    _private_folder(base)
    folder = base / secrets.token_hex(8)
    folder.mkdir(mode=0o700)
    safe_name = name.replace(os.sep, "_").replace("\0", "_") or "file"
    target = folder / safe_name
    result = copy_verified(source, str(target), limit=limit)
    if not result.ok:
        shutil.rmtree(folder, ignore_errors=True)
        raise PrivateCopyError(result.reason)
    return target


def sweep_private_copies(max_age_s: float = COPY_MAX_AGE_S) -> int:
    """Remove private copies older than ``max_age_s``; returns how many went."""
    base = copies_folder()
    removed = 0
    now = time.time()
    try:
        entries = list(os.scandir(base))
    except OSError:
        return 0
    for entry in entries:
        try:
            old = now - entry.stat(follow_symlinks=False).st_mtime > max_age_s
        except OSError:
            continue
        if old and entry.is_dir(follow_symlinks=False):
            # The copy is read-only; its folder is ours and writable.
            shutil.rmtree(entry.path, ignore_errors=True)
            removed += 1
    return removed
