"""Compress a .deb's files with the xz command, machine code through its x86 filter.

nfpm's compressors are Go libraries: its zstd's best level made a 179 MB
.deb where the zstd command's level 19 makes 163 MB and ``xz -6`` 157 MB.
So nfpm writes the .deb uncompressed and this module puts ``data.tar``
through the xz command, which every dpkg can read. Most of the bundle is
x86-64 machine code, which xz's x86 filter makes 3% smaller (relative call
targets become absolute ones, which repeat); xz decodes whatever filters
a file names, and so does dpkg. Preset 6 with the filter made 146 MB of
474 MB in 235 s of processor time; preset 9 made 142 MB in 430 s, too slow
for a build that runs on every CI run on two cores. A .deb is an ``ar``
archive of ``debian-binary``, ``control.tar.*`` and ``data.tar.*``, in that
order.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

MAGIC = b"!<arch>\n"
# The x86 filter, then LZMA2 at preset 6 (8 MiB dictionary), in 24 MiB
# blocks compressed on every core; crc64 as dpkg-deb writes.
XZ_OPTIONS = ("--x86", "--lzma2=preset=6", "--threads=0", "--check=crc64")
_HEADER = 60


def members(archive: bytes) -> list[tuple[str, bytes]]:
    """The ``(name, content)`` of each member of an ``ar`` archive, in order."""
    if not archive.startswith(MAGIC):
        raise ValueError("not an ar archive")
    found = []
    at = len(MAGIC)
    while at < len(archive):
        header = archive[at : at + _HEADER]
        if len(header) < _HEADER or header[58:60] != b"`\n":
            raise ValueError(f"bad ar member header at byte {at}")
        name = header[:16].decode("ascii").rstrip().rstrip("/")
        size = int(header[48:58].decode("ascii"))
        start = at + _HEADER
        found.append((name, archive[start : start + size]))
        at = start + size + (size % 2)  # members start on even offsets
    return found


def archive(entries: list[tuple[str, bytes]], mtime: int = 0) -> bytes:
    """An ``ar`` archive of ``entries``, as dpkg-deb writes one."""
    parts = [MAGIC]
    for name, content in entries:
        header = f"{name:<16}{mtime:<12}{0:<6}{0:<6}{'100644':<8}{len(content):<10}`\n"
        parts += [header.encode("ascii"), content, b"\n" if len(content) % 2 else b""]
    return b"".join(parts)


def xz_compress_data(deb: Path) -> None:
    """Replace the uncompressed ``data.tar`` of ``deb`` with ``data.tar.xz``."""
    entries = members(deb.read_bytes())
    names = [name for name, _content in entries]
    if names[0] != "debian-binary" or names[2:] != ["data.tar"]:
        raise ValueError(f"{deb} is no .deb with an uncompressed data.tar: {names}")
    compressed = subprocess.run(
        ["xz", *XZ_OPTIONS, "--stdout"],
        input=entries[2][1],
        capture_output=True,
        check=True,
    ).stdout
    deb.write_bytes(archive([*entries[:2], ("data.tar.xz", compressed)]))
