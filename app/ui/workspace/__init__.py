"""The read-only workspace: file tree, document tabs, change notices."""

from app.ui.workspace.widget import WorkspaceWidget

__all__ = ["WorkspaceWidget"]
