"""The MCP server: ``present`` and ``show_image`` for agents outside the app (no Qt)."""
