"""The change index and imported sessions end to end, on shared fixtures."""

from __future__ import annotations

from ..app.agent.conftest import session, store, workspace
from ..app.importers.conftest import policy, repo

__all__ = ["policy", "repo", "session", "store", "workspace"]
