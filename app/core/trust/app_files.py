"""The app's own folders and files: configuration, store, key, caches.

No agent tool may read or write them, whatever the workspace: an agent that
could rewrite the policy file could remove the rules that keep secrets from
it, and one that could write the store or its key could forge records. The
policy turns every path named here into a deny rule that no policy file can
remove.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import platformdirs

APP_NAME = "deliverables"
# Files the store keeps in its data folder; the rest of that folder (the demo
# workspace) is ordinary agent work.
DATA_FILE_GLOBS = (
    "deliverables.sqlite3*",
    "record.key",
    ".record.key.*",
    "settings.ini*",
)

_lock = threading.Lock()
_data_dirs: set[str] = set()


def config_dir() -> Path:
    """Where the user's policy file lives."""
    return Path(platformdirs.user_config_dir(APP_NAME))


def default_data_dir() -> Path:
    """Where the store lives unless ``--data-dir`` says otherwise."""
    return Path(platformdirs.user_data_dir(APP_NAME))


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME))


def runtime_dir() -> Path:
    """The per-user runtime folder (sockets, private copies for other apps).

    ``$XDG_RUNTIME_DIR`` when it is the user's own private folder, as the
    specification requires; otherwise a folder in the user's cache.
    """
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if base and os.path.isabs(base) and _is_private_folder(base):
        return Path(base) / APP_NAME
    return cache_dir() / "run"


def _is_private_folder(path: str) -> bool:
    try:
        status = os.stat(path)
    except OSError:
        return False
    owner_ok = not hasattr(os, "getuid") or status.st_uid == os.getuid()
    return stat.S_ISDIR(status.st_mode) and owner_ok and status.st_mode & 0o077 == 0


def register_data_dir(path: Path | str) -> None:
    """Protect a store's folder too (``--data-dir``); called when a store opens."""
    with _lock:
        _data_dirs.add(os.path.abspath(os.fspath(path)))


def _spellings(path: Path | str) -> list[str]:
    """A folder as written and as it resolves: rules match resolved paths."""
    written = os.path.abspath(os.fspath(path)).rstrip(os.sep) or os.sep
    real = os.path.realpath(written)
    return list(dict.fromkeys((written, real)))


def protected_globs() -> list[str]:
    """Absolute path globs (``/`` separated) of everything the app owns."""
    with _lock:
        data_dirs = {os.fspath(default_data_dir()), *_data_dirs}
    globs: list[str] = []
    for own in (config_dir(), cache_dir(), runtime_dir()):
        globs += [_as_glob(spelling) + "/" for spelling in _spellings(own)]
    for data in sorted(data_dirs):
        for spelling in _spellings(data):
            globs += [f"{_as_glob(spelling)}/{name}" for name in DATA_FILE_GLOBS]
    return globs


def _as_glob(path: str) -> str:
    """``path`` with glob characters made literal (``[`` becomes ``[[]``)."""
    text = path.replace(os.sep, "/")
    return "".join(f"[{char}]" if char in "*?[" else char for char in text)
