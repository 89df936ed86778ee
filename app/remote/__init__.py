"""Workspaces on another host over SSH: addresses, connections, SFTP files, checks."""
