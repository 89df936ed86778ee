"""Without the X11 libraries Qt needs, the app names every package to install."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from app.ui.window.display_check import XCB_LIBRARIES, display_problem, uses_xcb

MISSING = {"libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"}


def fake_loader(soname: str) -> bool:
    return soname not in MISSING


def test_every_missing_library_is_named_with_its_packages() -> None:
    problem = display_problem({"DISPLAY": ":0"}, load=fake_loader)
    assert problem is not None
    for soname in MISSING:
        assert soname in problem
    assert "sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in (
        problem
    )
    assert "sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms" in problem


def test_the_offscreen_and_wayland_platforms_are_never_blocked() -> None:
    def nothing(_soname: str) -> bool:
        return False

    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, load=nothing) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, load=nothing) is None
    assert uses_xcb({"QT_QPA_PLATFORM": "xcb"})


def test_no_display_is_explained() -> None:
    problem = display_problem({}, load=lambda _soname: True)
    assert problem is not None and "DISPLAY is not set" in problem


def _needed(path: Path) -> set[str]:
    """The DT_NEEDED entries of a 64-bit little-endian ELF file."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        for i in range(shnum)
    ]
    dynamic = next(s for s in sections if s[1] == 6)  # SHT_DYNAMIC
    strings = sections[dynamic[6]]  # its sh_link: the string table
    names = set()
    for offset in range(dynamic[4], dynamic[4] + dynamic[5], 16):
        tag, value = struct.unpack_from("<qQ", data, offset)
        if tag == 1:  # DT_NEEDED
            start = strings[4] + value
            names.add(data[start : data.index(b"\0", start)].decode())
    return names


def test_the_table_holds_every_library_the_xcb_plugin_links_to() -> None:
    import PySide6

    if not sys.platform.startswith("linux"):
        pytest.skip("the xcb platform is Linux's")
    qt = Path(PySide6.__file__).parent / "Qt"
    needed = _needed(qt / "plugins" / "platforms" / "libqxcb.so") | _needed(
        qt / "lib" / "libQt6XcbQpa.so.6"
    )
    system = {
        n
        for n in needed
        if not n.startswith(("libQt6", "libc.", "libm.", "libstdc++", "libgcc_s"))
        and not n.startswith(("libglib-", "libgthread-"))
    }
    assert system <= {library.soname for library in XCB_LIBRARIES}


def test_the_command_says_what_to_install_instead_of_aborting(tmp_path) -> None:
    code = (
        "import sys\n"
        "import app.ui.window.display_check as check\n"
        "check._loads = lambda soname: soname != 'libxcb-cursor.so.0'\n"
        "from app.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.pop("WAYLAND_DISPLAY", None)
    env["DISPLAY"] = ":99"
    result = subprocess.run(
        [sys.executable, "-c", code, "open", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "libxcb-cursor0" in result.stderr
    assert "xcb-util-cursor" in result.stderr
