"""Save to local: streamed, resumed after a killed connection, refused if changed."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from pathlib import Path

import pytest

from app.remote.files import RemoteIdentity
from app.remote.save import RemoteCopyResult
from app.remote.workspace import RemoteWorkspace
from tests.remote.fixtures import SshHome

SIZE = 48 * 1024 * 1024


@pytest.fixture
def big_file(remote_root: Path) -> Path:
    path = remote_root / "model.bin"
    with open(path, "wb") as out:
        for _ in range(SIZE // (1024 * 1024)):
            out.write(os.urandom(1024 * 1024))
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".part"))


def save(
    workspace: RemoteWorkspace,
    source: Path,
    target: Path,
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[Future[RemoteCopyResult], list[int]]:
    expected: RemoteIdentity = workspace.lstat(str(source)).result(30)
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if on_progress is not None:
            on_progress(done, total)

    future = workspace.save(
        str(source), str(target), expected=expected, progress=progress
    )
    return future, seen


def test_a_save_streams_the_file_and_replaces_the_target(
    workspace: RemoteWorkspace, big_file: Path, tmp_path: Path
) -> None:
    target = tmp_path / "saved.bin"
    target.write_bytes(b"old")
    future, seen = save(workspace, big_file, target)
    result = future.result(120)
    assert result.ok and result.written == SIZE and result.resumes == 0
    assert digest(target) == digest(big_file)
    assert seen == sorted(seen) and seen[-1] == SIZE and len(seen) > 10
    assert leftovers(tmp_path) == []


def test_a_killed_connection_is_resumed_where_it_stopped(
    workspace: RemoteWorkspace, big_file: Path, tmp_path: Path, ssh_home: SshHome
) -> None:
    killed: list[int] = []

    def kill_halfway(done: int, total: int) -> None:
        if not killed and done >= total // 2:
            # The real thing: the server's side of the connection dies.
            killed.append(done)
            assert ssh_home.server.kill_sessions() > 0

    target = tmp_path / "saved.bin"
    future, seen = save(workspace, big_file, target, kill_halfway)
    result = future.result(120)

    assert killed and result.ok and result.resumes == 1
    assert digest(target) == digest(big_file)
    # Resumed, not restarted: the bytes in order never went back.
    assert seen == sorted(seen) and min(s for s in seen if s > killed[0]) > killed[0]
    assert workspace.link.connections == 2
    assert leftovers(tmp_path) == []


def test_a_file_changed_halfway_is_refused_and_nothing_is_left(
    workspace: RemoteWorkspace, big_file: Path, tmp_path: Path
) -> None:
    changed: list[int] = []

    def change_halfway(done: int, total: int) -> None:
        if not changed and done >= total // 2:
            changed.append(done)
            with open(big_file, "r+b") as remote:
                remote.seek(0, os.SEEK_END)
                remote.write(b"appended by the agent")

    target = tmp_path / "saved.bin"
    future, _seen = save(workspace, big_file, target, change_halfway)
    result = future.result(120)

    assert changed and not result.ok
    assert "changed while it was being saved" in result.reason
    assert not target.exists()
    assert leftovers(tmp_path) == []


def test_a_file_changed_while_the_connection_was_down_is_not_resumed(
    workspace: RemoteWorkspace, big_file: Path, tmp_path: Path, ssh_home: SshHome
) -> None:
    done_once: list[int] = []

    def kill_and_change(done: int, total: int) -> None:
        if not done_once and done >= total // 3:
            done_once.append(done)
            ssh_home.server.kill_sessions()
            stamp = os.stat(big_file)
            os.utime(big_file, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 5 * 10**9))

    target = tmp_path / "saved.bin"
    target.write_bytes(b"kept")
    future, _seen = save(workspace, big_file, target, kill_and_change)
    result = future.result(120)

    assert done_once and not result.ok and "changed" in result.reason
    assert target.read_bytes() == b"kept"
    assert leftovers(tmp_path) == []


def test_a_cancelled_save_cleans_up_then_says_so(
    workspace: RemoteWorkspace, big_file: Path, tmp_path: Path
) -> None:
    target = tmp_path / "saved.bin"
    target.write_bytes(b"kept")
    cancel = threading.Event()
    expected = workspace.lstat(str(big_file)).result(30)

    def progress(done: int, total: int) -> None:
        if done >= total // 4:
            cancel.set()  # what a progress dialog's Cancel button does

    result = workspace.save(
        str(big_file),
        str(target),
        expected=expected,
        progress=progress,
        is_cancelled=cancel.is_set,
    ).result(120)

    assert result.cancelled and not result.ok and result.written < SIZE
    assert target.read_bytes() == b"kept"
    assert leftovers(tmp_path) == []


def test_a_save_future_can_be_cancelled_outright(
    workspace: RemoteWorkspace, big_file: Path, tmp_path: Path
) -> None:
    target = tmp_path / "saved.bin"
    target.write_bytes(b"kept")
    holder: list[Future[RemoteCopyResult]] = []

    def cancel_early(done: int, total: int) -> None:
        if holder and done >= total // 4:
            holder[0].cancel()

    future, seen = save(workspace, big_file, target, cancel_early)
    holder.append(future)
    with pytest.raises(CancelledError):
        future.result(120)
    assert target.read_bytes() == b"kept"
    assert seen[-1] < SIZE


def test_a_save_into_a_folder_that_cannot_be_written_says_so(
    workspace: RemoteWorkspace, big_file: Path, tmp_path: Path
) -> None:
    target = tmp_path / "no" / "such" / "folder" / "x.bin"
    future, _seen = save(workspace, big_file, target)
    result = future.result(60)
    assert not result.ok and "cannot write there" in result.reason
