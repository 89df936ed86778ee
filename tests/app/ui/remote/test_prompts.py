"""The window's side of connecting: Open remote workspace…, host keys, passwords."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from app.remote.manager import RemoteManager
from app.ssh.connect import SshSettings
from app.ui.remote.open_dialog import OpenRemoteDialog
from app.ui.remote.prompts import HostKeyDialog, SecretDialog, WindowPrompter
from tests.app.ssh.test_connect import keygen_fingerprint
from tests.app.ssh.test_connect import silent_host as silent_host
from tests.app.ssh.test_prompts import CODE, PASSWORD, InProcessServer
from tests.app.ssh.test_prompts import server as server
from tests.remote.fixtures import SshHome
from tests.remote.fixtures import remote_root as remote_root
from tests.remote.fixtures import ssh_home as ssh_home
from tests.remote.fixtures import sshd as sshd


def open_dialog(qtbot: QtBot, manager: RemoteManager, address: str) -> OpenRemoteDialog:
    dialog = OpenRemoteDialog(manager, recent=[address])
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_a_typed_address_is_checked_before_anything_connects(
    qtbot: QtBot, ssh_home: SshHome
) -> None:
    manager = RemoteManager()
    try:
        dialog = open_dialog(qtbot, manager, "")
        assert not dialog.connect_button.isEnabled()
        dialog.address.setEditText("ssh://devbox")
        assert not dialog.connect_button.isEnabled()
        assert dialog.status.text().startswith("This address cannot be used: ")
        dialog.address.setEditText("ssh://devbox/srv/work")
        assert dialog.connect_button.isEnabled() and dialog.status.text() == ""
    finally:
        manager.close()


def test_an_unknown_host_key_is_shown_and_trusted_once_from_the_dialog(
    qtbot: QtBot, ssh_home: SshHome, remote_root: Path
) -> None:
    (ssh_home.ssh / "known_hosts").unlink()
    prompter = WindowPrompter()
    manager = RemoteManager(prompter=prompter)
    try:
        dialog = open_dialog(qtbot, manager, ssh_home.address(remote_root))
        dialog.start()
        assert dialog.busy() and not dialog.connect_button.isEnabled()
        qtbot.waitUntil(lambda: bool(prompter.dialogs), timeout=30_000)
        asked = prompter.dialogs[0]
        assert isinstance(asked, HostKeyDialog)
        fingerprint = keygen_fingerprint(ssh_home.server.host_key)
        assert fingerprint in asked.fingerprint.text()
        with qtbot.waitSignal(dialog.opened, timeout=30_000) as opened:
            asked.once_button.click()
        assert opened.args[0].place.root == str(remote_root)
        assert not (ssh_home.ssh / "known_hosts").exists()
    finally:
        manager.close()


def test_a_refused_host_key_ends_on_the_connection_layers_sentence(
    qtbot: QtBot, ssh_home: SshHome, remote_root: Path
) -> None:
    (ssh_home.ssh / "known_hosts").unlink()
    prompter = WindowPrompter()
    manager = RemoteManager(prompter=prompter)
    try:
        dialog = open_dialog(qtbot, manager, ssh_home.address(remote_root))
        dialog.start()
        qtbot.waitUntil(lambda: bool(prompter.dialogs), timeout=30_000)
        with qtbot.waitSignal(dialog.failed, timeout=30_000) as failed:
            prompter.dialogs[0].reject()
        assert "known_hosts" in failed.args[0] or "host key" in failed.args[0]
        assert dialog.status.text() == failed.args[0]
        assert dialog.connect_button.isEnabled() and not dialog.busy()
    finally:
        manager.close()


def test_cancel_stops_waiting_for_a_silent_host(
    qtbot: QtBot, ssh_home: SshHome, silent_host: int
) -> None:
    manager = RemoteManager(SshSettings(connect_timeout=600))
    try:
        dialog = open_dialog(qtbot, manager, f"ssh://127.0.0.1:{silent_host}/srv")
        dialog.start()
        assert dialog.status.text().startswith("Connecting to 127.0.0.1")
        with qtbot.waitSignal(dialog.failed, timeout=10_000) as failed:
            dialog.cancel_button.click()
        assert failed.args[0] == "Connecting was cancelled."
        assert dialog.isVisible()
    finally:
        manager.close()


def test_a_password_or_code_is_asked_in_a_dialog_and_not_kept(
    qtbot: QtBot, server: InProcessServer
) -> None:
    prompter = WindowPrompter()
    manager = RemoteManager(prompter=prompter)
    try:
        dialog = open_dialog(qtbot, manager, "ssh://inproc/")
        dialog.start()
        qtbot.waitUntil(lambda: bool(prompter.dialogs), timeout=30_000)
        asked = prompter.dialogs[0]
        assert isinstance(asked, SecretDialog)
        field = asked.fields[0]
        assert field.echoMode() is field.EchoMode.Password
        field.setText(CODE if server.kbdint else PASSWORD)
        with qtbot.waitSignal(dialog.opened, timeout=30_000):
            asked.ok_button.click()
        assert field.text() == ""
    finally:
        manager.close()
