"""The files a command never reads are found by their access times."""

from __future__ import annotations

import mmap
import sys
from pathlib import Path

from tests.packaging.loader import load

unread_files = load("unread_files")


def _tree(root: Path) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "used.so").write_bytes(b"u" * 3000)
    (root / "lib" / "unused.so").write_bytes(b"x" * 2000)
    (root / "data.pak").write_bytes(b"d" * 1000)
    (root / "lib" / "used.so.6").symlink_to("used.so")
    return root


def test_the_files_a_command_leaves_unread_are_listed_largest_first(tmp_path, capsys):
    tree = _tree(tmp_path / "tree")
    reader = f"open({str(tree / 'lib' / 'used.so.6')!r}, 'rb').read()"

    status = unread_files.main([str(tree), "--", sys.executable, "-c", reader])

    assert status == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "unread: 2 of 3 files, 0.0 of 0.0 MB"
    assert [line.split()[-1] for line in lines[1:]] == ["lib/unused.so", "data.pak"]


def test_a_mapped_file_counts_as_read(tmp_path):
    tree = _tree(tmp_path / "tree")
    files = unread_files.reset_access_times(tree)

    with (
        (tree / "data.pak").open("rb") as file,
        mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped,
    ):
        assert mapped[0] == ord("d")

    assert [path.name for _size, path in unread_files.unread(files)] == [
        "used.so",
        "unused.so",
    ]


def test_a_failing_command_gives_no_listing(tmp_path, capsys):
    tree = _tree(tmp_path / "tree")

    status = unread_files.main(
        [str(tree), "--", sys.executable, "-c", "raise SystemExit(3)"]
    )

    assert status == 1
    assert "unread:" not in capsys.readouterr().out
