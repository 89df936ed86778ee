"""Telling a connected remote workspace apart without loading the SSH library.

The window's start path must not import asyncssh (half a second here): code
that only needs to ask "is this a remote workspace?" asks this module, which
answers from the loaded modules. A ``RemoteWorkspace`` can only exist once its
module was imported, so an unloaded module means "no".
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TypeGuard

if TYPE_CHECKING:
    from app.remote.files import RemoteIdentity
    from app.remote.workspace import RemoteWorkspace


def is_remote_workspace(value: object) -> TypeGuard[RemoteWorkspace]:
    module = sys.modules.get("app.remote.workspace")
    return module is not None and isinstance(value, module.RemoteWorkspace)


def is_remote_identity(value: object) -> TypeGuard[RemoteIdentity]:
    module = sys.modules.get("app.remote.files")
    return module is not None and isinstance(value, module.RemoteIdentity)
