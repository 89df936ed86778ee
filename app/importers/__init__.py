"""Importing other agents' sessions (Claude Code, Codex) as untrusted conversations."""
