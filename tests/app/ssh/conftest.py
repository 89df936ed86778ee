"""These tests run against OpenSSH sshd; tests/remote/fixtures.py holds the fixtures."""

from __future__ import annotations

from tests.remote.fixtures import (  # noqa: F401 - fixtures are found by name
    agent,
    manager,
    remote_root,
    ssh_home,
    sshd,
    workspace,
)
