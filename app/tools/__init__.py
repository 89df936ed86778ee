"""The host's tools as the app's agent and MCP clients share them.

Their fixed definitions (names, schemas, instruction texts, replies) and the
calls that run ``present`` and ``show_image``: free of LangChain and Qt, so the
MCP server offers exactly what the app's agent does and starts fast.
"""
