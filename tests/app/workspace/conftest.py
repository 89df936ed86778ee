"""The shared workspace suite runs the SSH backend against OpenSSH sshd."""

from __future__ import annotations

from tests.remote.fixtures import (  # noqa: F401 - fixtures are found by name
    manager,
    ssh_home,
    sshd,
)
