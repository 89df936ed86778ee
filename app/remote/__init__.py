"""Workspaces on another host over SSH: present, checks, reads and saves over SFTP."""
