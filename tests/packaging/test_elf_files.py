"""Stripping the bundle's libraries never leaves one the dynamic loader refuses."""

from __future__ import annotations

import ctypes
import shutil
import struct
from pathlib import Path

import PySide6
import pytest

from tests.packaging.loader import load

elf_files = load("elf_files")
QT_LIB = Path(PySide6.__file__).parent / "Qt" / "lib"
# FFmpeg's libraries as the PySide6 wheel ships them: binutils 2.40's strip
# rewrote these two with load segments the loader refuses.
FFMPEG = ("libavformat.so.61", "libavutil.so.59")

pytestmark = [
    pytest.mark.skipif(shutil.which("strip") is None, reason="binutils' strip"),
    # Loading FFmpeg loads the stubs through which Qt reaches optional system
    # libraries (VA-API, PipeWire); a headless machine has none of them.
    pytest.mark.qt_log_ignore(r"^Couldn't (load|resolve) (va\S*|pipewire-0\.3) "),
]


def _first_load_segment_moved(data: bytes) -> bytes:
    """``data`` with its first load segment's file offset moved by 16 bytes."""
    (table,) = struct.unpack_from("<Q", data, 0x20)
    entry_size, count = struct.unpack_from("<HH", data, 0x36)
    for index in range(count):
        at = table + index * entry_size
        if struct.unpack_from("<I", data, at)[0] == 1:
            (offset,) = struct.unpack_from("<Q", data, at + 8)
            changed = bytearray(data)
            struct.pack_into("<Q", changed, at + 8, offset + 16)
            return bytes(changed)
    raise AssertionError("no load segment")


def test_a_library_as_built_has_aligned_load_segments():
    for name in FFMPEG:
        assert elf_files.misaligned_segments((QT_LIB / name).read_bytes()) == []


def test_a_load_segment_out_of_alignment_is_found():
    data = (QT_LIB / FFMPEG[0]).read_bytes()
    assert elf_files.misaligned_segments(_first_load_segment_moved(data))


@pytest.mark.parametrize("name", FFMPEG)
def test_stripping_ffmpeg_leaves_a_library_the_loader_accepts(tmp_path, name):
    # The copy finds the libraries it links to beside it, as in the bundle.
    for library in QT_LIB.glob("lib*.so*"):
        (tmp_path / library.name).symlink_to(library)
    copy = tmp_path / name
    copy.unlink()
    shutil.copy2(QT_LIB / name, copy)
    elf_files.strip_safely(copy)
    assert elf_files.misaligned_segments(copy.read_bytes()) == []
    # FFmpeg takes OpenSSL's symbols from Qt's stubs, which the plugin loads first.
    for stub in ("libQt6FFmpegStub-crypto.so.3", "libQt6FFmpegStub-ssl.so.3"):
        ctypes.CDLL(str(tmp_path / stub), mode=ctypes.RTLD_GLOBAL)
    ctypes.CDLL(str(copy))  # raises OSError when the loader refuses it


def test_a_library_with_symbols_is_stripped(tmp_path):
    import PIL._imaging

    copy = tmp_path / "imaging.so"
    shutil.copy2(PIL._imaging.__file__, copy)
    before = copy.stat().st_size
    assert elf_files.strip_safely(copy) is True
    assert copy.stat().st_size < before
    assert elf_files.misaligned_segments(copy.read_bytes()) == []
    assert elf_files.strip_safely(copy) is False  # nothing left to strip
