"""What the build reads from the bundle's ELF files, and how it strips them safely.

The symbol tables the wheels leave in their libraries are dead weight, but
binutils' ``strip`` can break a library it rewrites: on Debian 12 it left
FFmpeg's ``libavformat`` and ``libavutil`` with load segments whose file
offset no longer matched their address modulo the page size, which the
dynamic loader refuses ("ELF load command address/offset not
page-aligned"); Qt's media plugin then failed to load and no audio or
video played. So each library is stripped into a copy, the copy is kept
only if its load segments are still aligned, and the bundle check refuses
any misaligned library whatever made it.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

_PT_LOAD = 1


def is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(4) == b"\x7fELF"
    except OSError:
        return False


def elf_files(folder: Path) -> list[Path]:
    """Every regular ELF file under ``folder`` (symbolic links are not)."""
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink() and is_elf(path)
    )


def needed(path: Path) -> list[str]:
    """The sonames ``path`` links to (its ``NEEDED`` entries)."""
    result = subprocess.run(
        ["objdump", "-p", str(path)], capture_output=True, text=True, check=True
    )
    return re.findall(r"^\s+NEEDED\s+(\S+)$", result.stdout, flags=re.MULTILINE)


def glibc_versions(path: Path) -> set[str]:
    """The glibc symbol versions ``path`` asks for."""
    result = subprocess.run(
        ["objdump", "-T", str(path)], capture_output=True, text=True, check=True
    )
    return set(re.findall(r"\bGLIBC_(\d+\.\d+(?:\.\d+)?)\b", result.stdout))


def misaligned_segments(data: bytes) -> list[str]:
    """The load segments of a 64-bit little-endian ELF image that the loader
    would refuse: file offset and address disagree modulo the alignment."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []  # not the 64-bit little-endian files this bundle holds
    (table,) = struct.unpack_from("<Q", data, 0x20)
    entry_size, count = struct.unpack_from("<HH", data, 0x36)
    problems = []
    for index in range(count):
        kind, _flags, offset, address, _p, _f, _m, align = struct.unpack_from(
            "<IIQQQQQQ", data, table + index * entry_size
        )
        if kind == _PT_LOAD and align > 1 and offset % align != address % align:
            problems.append(f"offset {offset:#x} for address {address:#x}")
    return problems


def strip_safely(path: Path) -> bool:
    """Strip ``path`` in place unless stripping would break it; whether it did.

    A library that is already stripped, or that ``strip`` would leave with
    misaligned load segments, stays as it is.
    """
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / path.name
        shutil.copy2(path, copy)
        result = subprocess.run(["strip", str(copy)], capture_output=True, check=False)
        if result.returncode != 0:
            return False
        if copy.stat().st_size >= path.stat().st_size:
            return False
        if misaligned_segments(copy.read_bytes()):
            return False
        shutil.copyfile(copy, path)  # keeps the file's own mode
    return True
