"""A saved copy is never more readable than its source, nor than the umask allows.

The attack: a file only its owner may read (0600: a key, a private report) is
saved with "Save a copy", streamed from an SSH workspace with "Save to local",
or handed out as a private copy (open with another app, drag to the desktop);
then another local user reads the copy. Each test makes the copy through the
real code and checks its mode; where the tests run as root, another uid really
tries to read it (a control file in the same folder shows that the attempt
could succeed).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Signal
from pytestqt.qtbot import QtBot

from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.core.trust.declare import declare
from app.core.trust.policy import PermissionMode, Policy, builtin_rules
from app.core.trust.safeio import open_verified
from app.remote.workspace import RemoteWorkspace
from app.ui.cards.actions import FileActions
from app.ui.cards.remote_actions import RemoteCardActions
from app.ui.cards.save_copy import SaveCopier, SaveCopyDialogs
from app.ui.window.main_window import MainWindow
from tests.remote import fixtures as remote
from tests.remote.fixtures import SshHome

SECRET = b"PRIVATE: the owner's eyes only\n" * 64
OTHER_UID = 54321  # no account needs to exist for a uid to be refused
HANG = 30_000  # a hang guard, not a speed figure

# The real sshd and a client home that reaches it, as the remote tests use them.
sshd = remote.sshd
ssh_home = remote.ssh_home
remote_root = remote.remote_root
manager = remote.manager
workspace = remote.workspace

# (source mode, umask, mode of the copy): never more than the source, never
# more than the umask allows.
CASES = [
    pytest.param(source, mask, copy, id=f"{source:04o}-umask{mask:03o}")
    for source, mask, copy in [
        (0o600, 0o077, 0o600),
        (0o600, 0o022, 0o600),
        (0o644, 0o077, 0o600),
        (0o644, 0o022, 0o644),
        (0o640, 0o027, 0o640),
        (0o400, 0o022, 0o400),
    ]
]
UMASKS = [pytest.param(mask, id=f"umask{mask:03o}") for mask in (0o077, 0o022)]


@contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder every user may enter, so only the file's own mode protects it."""
    folder = Path(tempfile.mkdtemp(prefix="saved-copies-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def other_user_reads(path: Path) -> bool | None:
    """Whether another uid can read ``path``, tried for real; ``None`` if no way.

    Only root can act as another uid; the tests usually run unprivileged, and
    then the mode bits (which the kernel enforces) are what is checked.
    """
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    command = [
        "setpriv",
        f"--reuid={OTHER_UID}",
        f"--regid={OTHER_UID}",
        "--clear-groups",
        "cat",
        "--",
        str(path),
    ]
    done = subprocess.run(command, capture_output=True, timeout=30, check=False)
    return done.returncode == 0 and done.stdout == path.read_bytes()


def assert_no_other_user_reads(copy: Path, expected: int) -> None:
    mode = stat.S_IMODE(os.stat(copy).st_mode)
    assert mode == expected, f"{oct(mode)} != {oct(expected)}"
    if expected & 0o077 == 0:
        assert mode & 0o077 == 0
        assert other_user_reads(copy) in (None, False)
    control = copy.with_name("control.txt")
    control.write_bytes(b"anyone may read this")
    control.chmod(0o644)
    assert other_user_reads(control) in (None, True)  # the probe is real


@pytest.mark.parametrize(("source_mode", "mask", "expected"), CASES)
def test_save_a_copy_is_never_more_readable_than_the_source(
    qtbot: QtBot,
    tmp_path: Path,
    shared_folder: Path,
    source_mode: int,
    mask: int,
    expected: int,
) -> None:
    source = tmp_path / "private.txt"
    source.write_bytes(SECRET)
    source.chmod(source_mode)
    target = shared_folder / "copy.txt"
    parts: list[int] = []

    def at_each_chunk(_written: int) -> None:
        # The partial copy, while it is written: already at its final mode.
        for part in shared_folder.glob("*.part"):
            parts.append(stat.S_IMODE(os.stat(part).st_mode))

    saver = SaveCopier(
        SaveCopyDialogs(
            choose_target=lambda _parent, _proposed: str(target),
            confirm_changed=lambda _parent, _name: True,
        ),
        chunk_hook=at_each_chunk,
    )
    with umask(mask), qtbot.waitSignal(saver.saved, timeout=HANG):
        opened = open_verified(str(source))
        assert saver.start(opened, source.name, str(source), changed=False)

    assert target.read_bytes() == SECRET
    assert parts and set(parts) == {expected}
    assert_no_other_user_reads(target, expected)


class _Desktop(QObject):
    """A desktop that records what it is handed to open."""

    failed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.handed: list[str] = []

    def open_file(self, path: str) -> bool:
        self.handed.append(path)
        return True

    def show_in_file_manager(self, path: str) -> bool:
        return True


def _presented(tmp_path: Path, mode: int) -> tuple[Store, DeliverableRef, Policy]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "report.txt").write_bytes(SECRET)
    (workspace / "report.txt").chmod(mode)
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("c", str(workspace))
    policy = Policy(builtin_rules(), home=str(tmp_path / "home"))
    record = declare(
        {"files": [{"path": "report.txt", "description": "d"}]},
        workspace=workspace,
        mode=PermissionMode.WORKSPACE_ONLY,
        policy=policy,
    )
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
    return store, DeliverableRef(conversation.id, "call_1", 0), policy


@pytest.mark.parametrize("mask", UMASKS)
def test_private_copies_for_other_apps_and_drags_keep_a_private_file_private(
    qtbot: QtBot, tmp_path: Path, mask: int
) -> None:
    store, ref, policy = _presented(tmp_path, 0o600)
    desktop = _Desktop()
    actions = FileActions(
        store,
        lambda _root: policy,
        lambda: PermissionMode.WORKSPACE_ONLY,
        desktop,  # type: ignore[arg-type]
    )
    with umask(mask):
        assert actions.perform("open_native", ref)
        dragged = actions.drag_copy(ref)

    [handed] = desktop.handed
    assert Path(handed).read_bytes() == SECRET
    assert stat.S_IMODE(os.stat(handed).st_mode) == 0o400  # read-only, owner's
    # A drag's copy is copied again by the desktop, permissions and all.
    assert dragged is not None and dragged.read_bytes() == SECRET
    assert stat.S_IMODE(os.stat(dragged).st_mode) == 0o600
    store.close()


@pytest.fixture
def remote_window(
    qtbot: QtBot, tmp_path: Path, ssh_home: SshHome, remote_root: Path
) -> Iterator[tuple[MainWindow, DeliverableRef]]:
    """A window on the real sshd's workspace, with a card for a 0600 file."""
    private = remote_root / "private.txt"
    private.write_bytes(SECRET)
    private.chmod(0o600)
    data = tmp_path / "data"
    store = Store(data)
    window = MainWindow(store, data)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.open_remote_workspace(ssh_home.address(remote_root))
    qtbot.waitUntil(lambda: window.workspace.remote_tree is not None, timeout=HANG)
    workspace = window.workspace.remote_workspace()
    assert workspace is not None
    record = workspace.present(
        {"files": [{"path": "private.txt", "description": "private"}]},
        mode=PermissionMode.WORKSPACE_ONLY,
    ).result(30)
    conversation_id = window.current_conversation_id()
    assert conversation_id is not None
    message = {"type": "tool", "data": {"tool_call_id": "c1", "content": "ok"}}
    store.append_message(conversation_id, message, record.to_json(), "c1")
    window.show_conversation(conversation_id)
    yield window, DeliverableRef(conversation_id, "c1", 0)
    window.close()
    store.close()


@pytest.mark.parametrize("mask", UMASKS)
def test_save_to_local_from_a_remote_workspace_keeps_a_private_file_private(
    qtbot: QtBot,
    remote_window: tuple[MainWindow, DeliverableRef],
    shared_folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    mask: int,
) -> None:
    window, ref = remote_window
    target = shared_folder / "private.txt"
    monkeypatch.setattr(
        RemoteCardActions, "ask_target", lambda _self, _name: str(target)
    )
    notices: list[str] = []
    window.remote_actions.notice.connect(notices.append)
    with umask(mask):
        window.remote_actions.perform("save_local", ref)
        qtbot.waitUntil(lambda: not window.remote_actions.busy(), timeout=HANG)

    assert notices == [f"Saved private.txt to {target}"]
    assert target.read_bytes() == SECRET
    assert_no_other_user_reads(target, 0o600)


@pytest.mark.parametrize("mask", UMASKS)
def test_a_remote_save_is_private_from_its_first_byte(
    workspace: RemoteWorkspace,
    remote_root: Path,
    shared_folder: Path,
    mask: int,
) -> None:
    source = remote_root / "key.pem"
    source.write_bytes(SECRET * 64)
    source.chmod(0o600)
    target = shared_folder / "key.pem"
    parts: list[int] = []

    def at_each_block(_done: int, _total: int) -> None:
        for part in shared_folder.glob("*.part"):
            parts.append(stat.S_IMODE(os.stat(part).st_mode))

    expected = workspace.lstat(str(source)).result(30)
    with umask(mask):
        saving = workspace.save(
            str(source), str(target), expected=expected, progress=at_each_block
        )
        result = saving.result(HANG / 1000)

    assert result.ok and target.read_bytes() == SECRET * 64
    assert parts and set(parts) == {0o600}
    assert_no_other_user_reads(target, 0o600)
