"""What goes into the frozen bundle, and what the system must provide instead.

Shared by the PyInstaller spec (which filters with it) and ``build.py`` (which
checks the result and writes the packages' dependencies from it).
"""

from __future__ import annotations

import fnmatch
import os
import sys
import sysconfig
from collections.abc import Callable, Iterable
from pathlib import Path

# Python modules the app never imports; excluded so no hook drags them in.
EXCLUDED_MODULES: tuple[str, ...] = (
    "tkinter",
    "numpy",
    "onnxruntime",
    "networkx",
    "pymupdf4llm",
    "pymupdf.layout",
    "IPython",
    "pytest",
    "_pytest",
    "mypy",
    "ruff",
    "importlinter",
    "readline",
    # Terminal screens: the app draws none, and the module links ncurses.
    "curses",
    "_curses",
    "_curses_panel",
    # Font tools reach the bundle only through PyMuPDF's font subsetting,
    # which the app never asks for (it reads PDFs, never writes them); the
    # test-time generators install the package (matplotlib, fpdf2).
    "fontTools",
    # bzip2's library has another name on rpm systems (libbz2.so.1, not
    # .1.0); nothing the app reads is bzip2-compressed, and zipfile and
    # tarfile work without the module.
    "_bz2",
    "bz2",
    # AVIF is no format the app previews; its decoder is 5 MB.
    "PIL._avif",
    "PIL.AvifImagePlugin",
    # Colour-management and Tk bridges of Pillow: images are decoded and
    # shown, never converted between colour spaces or put on a Tk canvas.
    "PIL._imagingcms",
    "PIL.ImageCms",
    "PIL._imagingtk",
    "PIL.ImageTk",
    # Terminal pretty-printing and help texts, reached only from debugging
    # helpers of the dependencies.
    "rich",
    "pydoc_data",
    # zstandard's CFFI backend; CPython uses its C one.
    "zstandard.backend_cffi",
    "zstandard._cffi",
    # Qt modules the app never loads. QtWebEngineCore itself links Qt Quick,
    # QML, OpenGL, Positioning and WebChannel, so those libraries stay; the
    # Python module of Positioning goes (no binding imports it, and every
    # page's location request is refused).
    *(
        f"PySide6.{name}"
        for name in (
            "Qt3DAnimation",
            "Qt3DCore",
            "Qt3DExtras",
            "Qt3DInput",
            "Qt3DLogic",
            "Qt3DRender",
            "QtAxContainer",
            "QtBluetooth",
            "QtCanvasPainter",
            "QtCharts",
            "QtConcurrent",
            "QtDataVisualization",
            "QtDesigner",
            "QtGraphs",
            "QtGraphsWidgets",
            "QtHelp",
            "QtHttpServer",
            "QtLocation",
            "QtNetworkAuth",
            "QtMultimediaWidgets",
            "QtNfc",
            "QtOpenGL",
            "QtOpenGLWidgets",
            "QtPdf",
            "QtPdfWidgets",
            "QtPositioning",
            "QtQuick",
            "QtQuick3D",
            "QtQuickControls2",
            "QtQuickTest",
            "QtQuickWidgets",
            "QtRemoteObjects",
            "QtScxml",
            "QtSensors",
            "QtSerialBus",
            "QtSerialPort",
            "QtSpatialAudio",
            "QtSql",
            "QtStateMachine",
            "QtSvgWidgets",
            "QtTest",
            "QtTextToSpeech",
            "QtUiTools",
            "QtWebEngineQuick",
            "QtWebSockets",
            "QtWebView",
            "QtXml",
        )
    ),
)


def _interpreter_dirs() -> list[Path]:
    """Folders whose libraries belong to the interpreter or to installed wheels."""
    names = ("stdlib", "platstdlib", "purelib", "platlib")
    folders = {Path(sysconfig.get_path(name)).resolve() for name in names}
    folders.update(Path(p).resolve() for p in sys.path if p.endswith("-packages"))
    return sorted(folders)


def _python_library() -> str:
    return str(sysconfig.get_config_var("INSTSONAME") or "libpython")


def is_system_library(source: str, folders: Iterable[Path] | None = None) -> bool:
    """Whether ``source`` is a system library rather than the interpreter's or a
    wheel's (the interpreter's own ``libpython`` is never a system library)."""
    path = Path(source).resolve()
    if path.name.startswith(_python_library().split(".so")[0]):
        return False
    inside = folders if folders is not None else _interpreter_dirs()
    return not any(path.is_relative_to(folder) for folder in inside)


def without(
    entries: Iterable[tuple[str, str, str]], dropped: Callable[[str], bool]
) -> list[tuple[str, str, str]]:
    """``entries`` less those whose destination ``dropped`` names, and less the
    symbolic links (``SYMLINK`` entries, whose source is their target inside
    the bundle) that would point to one of them."""
    kept = list(entries)
    gone = {dest for dest, _source, kind in kept if kind != "SYMLINK" and dropped(dest)}
    result = []
    for dest, source, kind in kept:
        if dest in gone:
            continue
        if kind == "SYMLINK":
            target = os.path.normpath(os.path.join(os.path.dirname(dest), source))
            if target in gone or dropped(target):
                continue
        result.append((dest, source, kind))
    return result


def split_system_libraries(
    binaries: Iterable[tuple[str, str, str]],
    folders: Iterable[Path] | None = None,
) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The bundle's binaries without the system's, and the system ones' names.

    Entries are PyInstaller's ``(destination, source, type)``; a ``SYMLINK``
    entry's source is its target inside the bundle, so a link to a library
    that was left out goes too.
    """
    entries = list(binaries)
    inside = list(folders) if folders is not None else _interpreter_dirs()
    dropped = {
        dest
        for dest, source, kind in entries
        if kind != "SYMLINK" and is_system_library(source, inside)
    }
    kept = without(entries, dropped.__contains__)
    return kept, sorted(os.path.basename(dest) for dest in dropped)


# Parts of Qt the wheels carry that the app never uses, as patterns of their
# place in the bundle (``*`` crosses folders). Leaving them out also leaves
# out what they link to.
UNUSED_IN_BUNDLE: tuple[str, ...] = (
    # Type descriptions and QML modules: the app has no QML, and QtWebEngine
    # needs no QML module.
    "PySide6/Qt/metatypes/*",
    "PySide6/Qt/qml/*",
    "PySide6/typesystems/*",
    # The app's interface is English and loads no Qt translation. Chromium's
    # locales (qtwebengine_locales/*.pak) are kept: the engine needs them.
    "PySide6/Qt/translations/*.qm",
    # Chromium's page strings (form controls, media labels) in each language.
    # Previews show documents under a sandbox that allows no forms, and the
    # engine falls back to US English for any other language; that one stays.
    "PySide6/Qt/translations/qtwebengine_locales/*.pak",
    # DevTools are never opened (the app scrubs the variables that would).
    "PySide6/Qt/resources/qtwebengine_devtools_resources.pak",
    # GTK's theme would pull GTK, Cairo and Pango; the app draws with Fusion
    # and follows the colour scheme through Qt's own desktop theme.
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
    # A desktop app shows on X11 or Wayland (or offscreen, for screenshots);
    # framebuffer, EGL-device and VNC platforms, the input devices they read
    # and Qt's on-screen keyboard (a QML one) have no use here.
    "PySide6/Qt/plugins/platforms/libqeglfs.so",
    "PySide6/Qt/plugins/platforms/libqlinuxfb.so",
    "PySide6/Qt/plugins/platforms/libqminimal.so",
    "PySide6/Qt/plugins/platforms/libqminimalegl.so",
    "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so",
    "PySide6/Qt/plugins/platforms/libqvnc.so",
    "PySide6/Qt/plugins/egldeviceintegrations/*",
    "PySide6/Qt/plugins/generic/*",
    "PySide6/Qt/plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so",
    "PySide6/Qt/lib/libQt6EglFSDeviceIntegration.so*",
    "PySide6/Qt/lib/libQt6EglFsKmsSupport.so*",
    "PySide6/Qt/lib/libQt6VirtualKeyboard*.so*",
    # Every page's location request is refused, so no position source is
    # ever asked (the NMEA one would pull in serial ports).
    "PySide6/Qt/plugins/position/*",
    "PySide6/Qt/lib/libQt6SerialPort.so*",
    # Nothing is printed; PDFs are rendered by MuPDF, not by Qt's PDF plugin.
    "PySide6/Qt/plugins/printsupport/*",
    "PySide6/Qt/plugins/imageformats/libqpdf.so",
    "PySide6/Qt/lib/libQt6Pdf.so*",
    # jsonschema's benchmark inputs, collected with its data; the benchmarks
    # are never run.
    "jsonschema/benchmarks/*",
    # NSS's self-check files, copied from the system beside libraries that
    # stay the system's (see split_system_libraries); the system's NSS reads
    # its own.
    "lib*.chk",
)


# Files kept although a pattern above matches them.
NEEDED_IN_BUNDLE: tuple[str, ...] = (
    "PySide6/Qt/translations/qtwebengine_locales/en-US.pak",
)


def is_used(destination: str) -> bool:
    """Whether a collected file, by its place in the bundle, is kept."""
    where = destination.replace(os.sep, "/")
    if where in NEEDED_IN_BUNDLE:
        return True
    return not any(fnmatch.fnmatchcase(where, pattern) for pattern in UNUSED_IN_BUNDLE)
