"""Reading remote files: verified snapshots, and fenced pages of a 1 GiB log."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.trust.safeio import SafeOpenError
from app.formats.text_pages import PAGE_SIZE, FenceBrokenError
from app.remote.files import RemoteIdentity
from app.remote.paging import RemotePagedText
from app.remote.workspace import RemoteWorkspace
from app.ssh.errors import Failure, RemoteError
from tests.remote.fixtures import SshHome
from tests.remote.watch import bytes_read

GIB = 1 << 30


def test_a_snapshot_is_the_whole_file_as_one_version(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    path = str(remote_root / "notes.md")
    snapshot = workspace.snapshot(path, limit=1024).result(30)
    assert snapshot.data == b"# Notes\n"
    assert snapshot.identity == workspace.lstat(path).result(30)


def test_a_snapshot_over_the_limit_is_refused_before_reading(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    with pytest.raises(RemoteError) as raised:
        workspace.snapshot(str(remote_root / "notes.md"), limit=4).result(30)
    assert raised.value.failure is Failure.TOO_LARGE


def test_a_snapshot_of_another_version_than_expected_is_refused(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    path = str(remote_root / "notes.md")
    old = workspace.lstat(path).result(30)
    (remote_root / "notes.md").write_text("# Notes, edited\n")
    with pytest.raises(RemoteError) as raised:
        workspace.snapshot(path, limit=1024, expected=old).result(30)
    assert raised.value.failure is Failure.CHANGED


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder"])
def test_a_snapshot_is_only_ever_of_a_regular_file(
    workspace: RemoteWorkspace, remote_root: Path, kind: str
) -> None:
    target = remote_root / "thing"
    if kind == "symlink":
        target.symlink_to(remote_root / "notes.md")
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    with pytest.raises(SafeOpenError) as raised:
        workspace.snapshot(str(target), limit=1024).result(30)
    assert raised.value.reason == {"fifo": "not_regular", "folder": "directory"}.get(
        kind, kind
    )


@pytest.fixture
def big_log(workspace: RemoteWorkspace, remote_root: Path) -> str:
    """1 GiB of log on the server: 3 MiB of lines, then a sparse tail."""
    path = remote_root / "service.log"
    line = b"2026-01-01T00:00:00Z INFO request handled in 12 ms\n"
    path.write_bytes(line * (3 * 1024 * 1024 // len(line)))
    # Grown on the server, through SFTP: no gigabyte is ever written.
    workspace.submit(lambda sftp: sftp.truncate(str(path), GIB), "growing").result(30)
    return str(path)


def test_the_first_page_of_a_1_gib_log_comes_without_fetching_the_file(
    workspace: RemoteWorkspace, big_log: str, ssh_home: SshHome
) -> None:
    before = bytes_read(ssh_home.server.sessions())

    reader = workspace.open_fenced(big_log).result(30)
    pages = RemotePagedText(reader)
    page = pages.first_page()

    served = bytes_read(ssh_home.server.sessions()) - before
    assert pages.size == GIB and not pages.is_single_page
    assert page.start == 0 and not page.is_last
    assert page.end <= PAGE_SIZE and page.text.endswith("12 ms\n")
    assert page.text.count("\n") > 30_000
    # The server read a page and its fence checks, not the gigabyte.
    assert served < 3 * PAGE_SIZE
    reader.close()


def test_paging_stops_when_the_remote_file_grows(
    workspace: RemoteWorkspace, big_log: str
) -> None:
    reader = workspace.open_fenced(big_log).result(30)
    pages = RemotePagedText(reader)
    first = pages.first_page()
    with open(big_log, "ab") as log:
        log.write(b"one more line\n")
    with pytest.raises(FenceBrokenError) as raised:
        pages.read_page(first.end)
    assert raised.value.reason == "changed"
    reader.close()


def test_paging_stops_when_the_remote_file_is_replaced(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    path = remote_root / "app.log"
    path.write_bytes(b"x\n" * (3 * 1024 * 1024))
    reader = workspace.open_fenced(str(path)).result(30)
    pages = RemotePagedText(reader)
    first = pages.first_page()
    replacement = remote_root / "app.log.new"
    replacement.write_bytes(b"y\n" * (3 * 1024 * 1024 + 1))
    os.replace(replacement, path)
    with pytest.raises(FenceBrokenError) as raised:
        pages.read_page(first.end)
    assert raised.value.reason == "replaced"
    reader.close()


def test_an_unseen_replacement_still_never_joins_two_versions(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    # SFTP gives no inode and whole seconds: a same-size replacement within
    # the second passes the fence. Pages still come from the open handle,
    # so they stay the version the view was opened on.
    path = remote_root / "app.log"
    path.write_bytes(b"x\n" * (3 * 1024 * 1024))
    stamp = os.stat(path)
    reader = workspace.open_fenced(str(path)).result(30)
    pages = RemotePagedText(reader)
    first = pages.first_page()
    replacement = remote_root / "app.log.new"
    replacement.write_bytes(b"y\n" * (3 * 1024 * 1024))
    os.utime(replacement, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    os.replace(replacement, path)
    second = pages.read_page(first.end)
    assert set(first.text + second.text) == {"x", "\n"}
    reader.close()


def test_a_fence_opened_on_an_expected_version_refuses_another(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    stale = RemoteIdentity(1, 0, 0o100644)
    with pytest.raises(RemoteError) as raised:
        workspace.open_fenced(str(remote_root / "notes.md"), expected=stale).result(30)
    assert raised.value.failure is Failure.CHANGED
