"""Which files of an installed tree a command never reads, by their access times.

``python packaging/unread_files.py /opt/deliverables -- COMMAND...`` sets
every file's access time under the tree far into the past, runs the command
(the smoke test, say), and lists the files it left unread, largest first,
with their total. A file read or mapped while the command runs gets a fresh
access time, under ``relatime`` as under ``strictatime``, so an unread file
is one no process of the run opened for its content: a candidate to leave
out of the package, to be checked against the paths the command does not
take. It refuses to answer where the file system does not record access
times (``noatime``). Run it as root when the tree is root's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

# Far enough back that relatime's once-a-day rule updates it on any read.
_PAST = 946_684_800  # 2000-01-01


class AccessTimeError(RuntimeError):
    """The file system under the tree does not record when files are read."""


def _files(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*") if p.is_file() and not p.is_symlink())


def reset_access_times(tree: Path) -> list[Path]:
    """Set the access time of every file under ``tree`` to the past; the files.

    Fails unless reading a file afterwards brings its access time forward.
    """
    files = _files(tree)
    for path in files:
        os.utime(path, (_PAST, path.stat().st_mtime))
    if files:
        probe = files[0]
        with probe.open("rb") as file:
            file.read(1)
        if probe.stat().st_atime <= _PAST:
            raise AccessTimeError(
                f"reading {probe} left its access time as it was: the file system"
                " does not record access times (mounted noatime?)"
            )
        os.utime(probe, (_PAST, probe.stat().st_mtime))
    return files


def unread(files: Sequence[Path]) -> list[tuple[int, Path]]:
    """The files among ``files`` not read since their reset, largest first."""
    left = [
        (path.stat().st_size, path) for path in files if path.stat().st_atime <= _PAST
    ]
    return sorted(left, key=lambda entry: (-entry[0], entry[1]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        usage="%(prog)s TREE [--top N] -- COMMAND...",
    )
    parser.add_argument("tree", type=Path, help="the installed tree")
    parser.add_argument("--top", type=int, default=60, help="files to list")
    given = list(sys.argv[1:] if argv is None else argv)
    if "--" not in given or given.index("--") == len(given) - 1:
        parser.error("give the command to run after --")
    at = given.index("--")
    args = parser.parse_args(given[:at])
    command = given[at + 1 :]
    try:
        files = reset_access_times(args.tree)
    except AccessTimeError as error:
        print(f"unread_files.py: {error}", file=sys.stderr)
        return 2
    if (status := subprocess.run(command, check=False).returncode) != 0:
        print(f"unread_files.py: the command failed ({status})", file=sys.stderr)
        return 1
    left = unread(files)
    total = sum(path.stat().st_size for path in files)
    print(
        f"unread: {len(left)} of {len(files)} files,"
        f" {sum(size for size, _path in left) / 1e6:.1f} of {total / 1e6:.1f} MB"
    )
    for size, path in left[: args.top]:
        print(f"  {size / 1e6:7.2f} MB  {path.relative_to(args.tree)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
