"""Fixtures for remote workspaces: a real sshd, a client home with its ssh config."""

from __future__ import annotations

import os
import shutil
import subprocess
import webbrowser
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QProcess
from PySide6.QtGui import QDesktopServices

from app.remote.manager import RemoteManager
from app.remote.workspace import RemoteWorkspace
from app.ui.cards import system_open
from app.ui.cards.save_copy import SaveCopier
from app.ui.cards.system_open import SystemOpener
from app.workspace import native as native_module

from .sshd import OpenSshServer, SshAgent, keygen, missing_tools

ALIAS = "devbox"


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenSshServer]:
    """OpenSSH's sshd for the whole run, as this user, on 127.0.0.1."""
    reason = missing_tools()
    if reason is not None:
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("sshd")
    server = OpenSshServer(folder, keygen(folder / "client_key"))
    server.start()
    yield server
    server.stop()


@dataclass(frozen=True)
class SshHome:
    """The client side: a home with ``~/.ssh/config`` naming the server ``devbox``."""

    home: Path
    ssh: Path
    key: Path
    server: OpenSshServer

    def address(self, path: Path | str) -> str:
        return f"ssh://{ALIAS}{path}"

    def write_config(self, *, identity: bool = True, extra: str = "") -> None:
        lines = [
            f"Host {ALIAS}",
            "    HostName 127.0.0.1",
            f"    Port {self.server.port}",
            f"    User {self.server.user}",
        ]
        if identity:
            lines += ["    IdentityFile ~/.ssh/id_test", "    IdentitiesOnly yes"]
        (self.ssh / "config").write_text("\n".join(lines) + "\n" + extra)

    def trust_server(self) -> None:
        (self.ssh / "known_hosts").write_text(self.server.host_key_line() + "\n")


@pytest.fixture
def ssh_home(
    sshd: OpenSshServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> SshHome:
    """A private home whose ssh config and known_hosts reach the test sshd."""
    home = tmp_path / "home"
    ssh = home / ".ssh"
    ssh.mkdir(parents=True, mode=0o700)
    key = ssh / "id_test"
    shutil.copyfile(sshd.client_key, key)
    os.chmod(key, 0o600)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    client = SshHome(home, ssh, key, sshd)
    client.write_config()
    client.trust_server()
    return client


@pytest.fixture
def agent(ssh_home: SshHome, monkeypatch: pytest.MonkeyPatch) -> Iterator[SshAgent]:
    """An ssh-agent holding the client key, the only way in (no key on disk)."""
    running = SshAgent(ssh_home.home, ssh_home.server.client_key)
    ssh_home.key.unlink()
    ssh_home.write_config(identity=False)
    monkeypatch.setenv("SSH_AUTH_SOCK", str(running.socket))
    yield running
    running.stop()


@pytest.fixture
def manager(ssh_home: SshHome) -> Iterator[RemoteManager]:
    connections = RemoteManager()
    yield connections
    connections.close()


@pytest.fixture
def remote_root(tmp_path: Path) -> Path:
    """The remote workspace folder (the server is this machine)."""
    root = tmp_path / "remote-ws"
    (root / "report").mkdir(parents=True)
    (root / "report" / "index.html").write_text("<h1>Report</h1>")
    (root / "notes.md").write_text("# Notes\n")
    return Path(os.path.realpath(root))


@pytest.fixture
def workspace(
    manager: RemoteManager, ssh_home: SshHome, remote_root: Path
) -> RemoteWorkspace:
    return manager.open_workspace(ssh_home.address(remote_root)).result(30)


@pytest.fixture
def openers(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...]]]:
    """Every way the app could hand a path to the desktop, patched to record."""
    calls: list[tuple[str, tuple[Any, ...]]] = []

    def recorder(name: str) -> Any:
        def record(*args: Any, **kwargs: Any) -> bool:
            calls.append((name, args))
            return True

        return record

    monkeypatch.setattr(QDesktopServices, "openUrl", recorder("openUrl"))
    monkeypatch.setattr(QProcess, "startDetached", recorder("startDetached"))
    monkeypatch.setattr(system_open, "_start_detached", recorder("_start_detached"))
    monkeypatch.setattr(SystemOpener, "open_file", recorder("open_file"))
    monkeypatch.setattr(
        SystemOpener, "show_in_file_manager", recorder("show_in_file_manager")
    )
    monkeypatch.setattr(SaveCopier, "start", recorder("save_copy"))
    monkeypatch.setattr(subprocess, "Popen", recorder("Popen"))
    monkeypatch.setattr(webbrowser, "open", recorder("webbrowser"))
    monkeypatch.setattr(
        native_module, "make_private_copy", recorder("make_private_copy")
    )
    return calls
