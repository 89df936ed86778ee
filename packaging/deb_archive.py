"""Compress a .deb's files with xz at its strongest setting.

nfpm's compressors are Go libraries: its zstd's best level made a 179 MB
.deb where the zstd command's level 19 makes 161 MB and ``xz -9`` 145 MB.
So nfpm writes the .deb uncompressed and this module puts ``data.tar``
through the xz command, which every dpkg can read. A .deb is an ``ar``
archive of ``debian-binary``, ``control.tar.*`` and ``data.tar.*``, in that
order.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

MAGIC = b"!<arch>\n"
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
        ["xz", "-9", "--threads=0", "--stdout", "--check=crc64"],
        input=entries[2][1],
        capture_output=True,
        check=True,
    ).stdout
    deb.write_bytes(archive([*entries[:2], ("data.tar.xz", compressed)]))
