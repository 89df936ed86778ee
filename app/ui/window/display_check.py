"""Before Qt starts: are the X11 libraries its xcb platform needs installed?

Qt aborts with a message that names only the first missing library (most
often ``libxcb-cursor0``); a fresh machine usually lacks several. This looks
for all of them first, the way the dynamic loader will, and says which
packages to install on Debian/Ubuntu and on Fedora. Other platforms
(offscreen, Wayland) are left alone.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping
from typing import Final, NamedTuple


class Library(NamedTuple):
    """A shared library the xcb platform loads, and the packages that hold it."""

    soname: str
    debian: str
    fedora: str


# What Qt's xcb platform plugin and its QPA library link to (objdump -p),
# beyond the C and C++ runtimes, with the GL, EGL and font libraries QtGui
# needs on any display.
XCB_LIBRARIES: Final = (
    Library("libxcb.so.1", "libxcb1", "libxcb"),
    Library("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    Library("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    Library("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    Library("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    Library("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    Library("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    Library("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    Library("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    Library("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    Library("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    Library("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    Library("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    Library("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
    Library("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    Library("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
    Library("libX11.so.6", "libx11-6", "libX11"),
    Library("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    Library("libGL.so.1", "libgl1", "libglvnd-glx"),
    Library("libEGL.so.1", "libegl1", "libglvnd-egl"),
    Library("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
    Library("libdbus-1.so.3", "libdbus-1-3", "dbus-libs"),
)


def _loads(soname: str) -> bool:
    # The loader's own search (LD_LIBRARY_PATH, ld.so.cache, the default
    # folders): exactly where Qt's plugin will look.
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def uses_xcb(environ: Mapping[str, str]) -> bool:
    """Whether Qt will try its X11 (xcb) platform first here."""
    if not sys.platform.startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return chosen.split(";")[0].split(":")[0] == "xcb"
    # Unset: Qt 6 prefers Wayland in a Wayland session, xcb everywhere else.
    return not environ.get("WAYLAND_DISPLAY")


def missing_libraries(load: Callable[[str], bool] | None = None) -> list[Library]:
    found = load or _loads
    return [library for library in XCB_LIBRARIES if not found(library.soname)]


def display_problem(
    environ: Mapping[str, str] | None = None,
    load: Callable[[str], bool] | None = None,
) -> str | None:
    """Why the window cannot open on this machine, with what to do; or ``None``."""
    environ = os.environ if environ is None else environ
    if not uses_xcb(environ):
        return None
    missing = missing_libraries(load)
    if missing:
        names = ", ".join(library.soname for library in missing)
        debian = " ".join(dict.fromkeys(library.debian for library in missing))
        fedora = " ".join(dict.fromkeys(library.fedora for library in missing))
        return (
            "the window cannot open: Qt's X11 (xcb) platform needs system "
            f"libraries that are not installed: {names}.\n"
            "Install them, then start again:\n"
            f"  Debian, Ubuntu:  sudo apt-get install {debian}\n"
            f"  Fedora:          sudo dnf install {fedora}\n"
            "Without a display, QT_QPA_PLATFORM=offscreen with --screenshot "
            "FILE.png saves what the window shows."
        )
    if not environ.get("DISPLAY"):
        return (
            "the window cannot open: there is no display (DISPLAY is not set). "
            "Start it from a desktop session, or without a display use "
            "QT_QPA_PLATFORM=offscreen with --screenshot FILE.png."
        )
    return None
