"""Descriptor-based opening refuses links and non-regular files by itself."""

from __future__ import annotations

import os

import pytest

from app.core.trust.safeio import SafeOpenError, open_verified


def test_final_symlink_is_refused_by_the_open_itself(tmp_path):
    (tmp_path / "real.txt").write_text("x")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    with pytest.raises(SafeOpenError) as caught:
        open_verified(str(tmp_path / "link.txt"))
    assert caught.value.reason == "symlink"


@pytest.mark.parametrize(
    ("make", "reason"), [("dir", "directory"), ("fifo", "not_regular")]
)
def test_non_regular_files_are_refused(tmp_path, make, reason):
    path = tmp_path / "thing"
    if make == "dir":
        path.mkdir()
    else:
        os.mkfifo(path)
    with pytest.raises(SafeOpenError) as caught:
        open_verified(str(path))
    assert caught.value.reason == reason


def test_identity_and_real_path_come_from_the_descriptor(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(b"0123456789")
    with open_verified(str(path)) as opened:
        status = os.stat(path)
        assert opened.identity.inode == status.st_ino
        assert opened.identity.size == 10
        assert opened.real_path == os.path.realpath(path)
        assert opened.read(4, 2) == b"2345"
        assert b"".join(opened.chunks(3)) == b"0123456789"
    assert opened.fd == -1


def test_missing_file_is_missing(tmp_path):
    with pytest.raises(SafeOpenError) as caught:
        open_verified(str(tmp_path / "nope"))
    assert caught.value.reason == "missing"


def test_bytes_checked_elsewhere_become_a_sealed_file_with_their_identity() -> None:
    from app.core.trust.safeio import Identity, VerifiedFile

    identity = Identity(0, 0, 5, 1_700_000_000_000_000_000)
    with VerifiedFile.from_bytes(b"hello", identity, "notes.md") as file:
        assert file.read() == b"hello" and file.read(2, 3) == b"lo"
        assert file.real_path is None  # nothing on the local disk stands for it
        assert file.current_identity() == identity
        for change in (
            lambda: os.pwrite(file.fd, b"J", 0),
            lambda: os.ftruncate(file.fd, 1),
            lambda: os.ftruncate(file.fd, 64),
        ):
            with pytest.raises(PermissionError):
                change()
        assert file.read() == b"hello"


def test_bytes_of_another_length_than_their_identity_are_refused() -> None:
    from app.core.trust.safeio import Identity, VerifiedFile

    with pytest.raises(ValueError):
        VerifiedFile.from_bytes(b"hello", Identity(0, 0, 4, 0))
