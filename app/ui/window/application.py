"""Create the Qt application safely: scrubbed environment, theme, settings."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from PySide6.QtCore import QObject, QSettings, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from app.resources import resource_path

APP_NAME = "Deliverables"

# Variables that would turn Chromium's sandbox off or open a remote debugging port
# (QtWebEngine reads them when it starts); the app never honours them. The
# engine's switches are the app's own, set exactly when the first page is shown
# (previewers.web.sandbox.start_engine); none is taken from the user's
# environment or argv.
UNSAFE_ENVIRONMENT = (
    "QTWEBENGINE_DISABLE_SANDBOX",
    "QTWEBENGINE_CHROMIUM_FLAGS",
    "QTWEBENGINE_REMOTE_DEBUGGING",
)

# QtMultimedia's FFmpeg backend follows any protocol a container names (an HLS
# playlist pulls its segments through "file"). Media reach FFmpeg only as a
# device over the verified descriptor, which needs no protocol, so allow none:
# "none" names no protocol, and FFmpeg opens nothing by itself.
MEDIA_PROTOCOL_WHITELIST = "none"


# Chromium switches that would drop the renderer sandbox or open a debugging
# port, and the marker after which QtWebEngine reads switches from argv.
UNSAFE_ARGUMENTS = (
    "--no-sandbox",
    "--single-process",
    "--disable-seccomp-filter-sandbox",
    "--disable-setuid-sandbox",
    "--no-zygote",
    "--in-process-gpu",
    "--enable-features=NetworkServiceInProcess",
)
UNSAFE_ARGUMENT_PREFIXES = ("--remote-debugging", "--remote-allow-origins")


def _is_unsafe_argument(argument: str) -> bool:
    name = argument.split("=", 1)[0]
    return (
        argument in UNSAFE_ARGUMENTS
        or name in UNSAFE_ARGUMENTS
        or name.startswith(UNSAFE_ARGUMENT_PREFIXES)
    )


def scrub_environment(argv: Sequence[str] = ()) -> list[str]:
    """Run before the QApplication exists: Qt reads these at start-up.

    Returns ``argv`` without the Chromium switches that would turn the
    sandbox off or open remote debugging; pass that list to the application.
    """
    for name in UNSAFE_ENVIRONMENT:
        os.environ.pop(name, None)
    os.environ["QT_FFMPEG_PROTOCOL_WHITELIST"] = MEDIA_PROTOCOL_WHITELIST
    kept: list[str] = []
    for argument in argv:
        if argument == "--webEngineArgs":
            break  # everything after it would go to Chromium
        if not _is_unsafe_argument(argument):
            kept.append(argument)
    return kept


class DisplayUnavailableError(RuntimeError):
    """The window cannot open here; the message says what to install or set."""


def create_application(argv: Sequence[str] | None = None) -> QApplication:
    """The one QApplication, made after the environment is scrubbed.

    Raises ``DisplayUnavailableError`` before Qt would abort on a machine
    whose X11 libraries are missing.
    """
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    from app.ui.window.display_check import display_problem

    problem = display_problem()
    if problem is not None:
        raise DisplayUnavailableError(problem)
    arguments = scrub_environment(list(argv) if argv is not None else sys.argv[:1])
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    app = QApplication(arguments)
    from app.ui.window.garbage import collect_on_gui_thread
    from previewers.widget import keep_gui_thread_responsive

    keep_gui_thread_responsive()  # for every worker: chat, checks and previews
    collect_on_gui_thread(app)  # so no worker destroys the GUI thread's objects
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName("Deliverables")
    app.setDesktopFileName("deliverables")
    from app.ui.window.style import AppStyle

    app.setStyle(AppStyle())
    app.setWindowIcon(app_icon())
    follow_color_scheme(app)
    return app


def app_icon() -> QIcon:
    """The app's icon, from its resources."""
    # Our own file, not one from a workspace: safe to hand to Qt's SVG engine.
    return QIcon(str(resource_path("icons", "deliverables.svg")))


def dark_palette() -> QPalette:
    """Fusion's colours for a dark scheme, for platforms whose theme has none."""
    palette = QPalette()
    roles = QPalette.ColorRole
    for role, colour in (
        (roles.Window, "#202124"),
        (roles.WindowText, "#e8eaed"),
        (roles.Base, "#17181a"),
        (roles.AlternateBase, "#2a2b2e"),
        (roles.ToolTipBase, "#2a2b2e"),
        (roles.ToolTipText, "#e8eaed"),
        (roles.PlaceholderText, "#9aa0a6"),
        (roles.Text, "#e8eaed"),
        (roles.Button, "#2d2e31"),
        (roles.ButtonText, "#e8eaed"),
        (roles.BrightText, "#ff8a80"),
        (roles.Link, "#8ab4f8"),
        (roles.Highlight, "#3c6db5"),
        (roles.HighlightedText, "#ffffff"),
        (roles.Mid, "#3c4043"),
        (roles.Midlight, "#35363a"),
        (roles.Dark, "#101113"),
        (roles.Shadow, "#000000"),
        (roles.Light, "#44474b"),
    ):
        palette.setColor(role, QColor(colour))
    disabled = QPalette.ColorGroup.Disabled
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        palette.setColor(disabled, role, QColor("#6f7377"))
    return palette


COLOR_SCHEMES: Final = ("system", "light", "dark")
"""The colour schemes a user can choose in the settings."""

COLOR_SCHEME_KEY: Final = "appearance/color_scheme"


class ColorScheme(QObject):
    """The app's light or dark palette: the system's, or the one the user chose.

    ``DELIVERABLES_COLOR_SCHEME=dark|light`` overrides both, for documentation
    screenshots and for platforms that report no scheme.
    """

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self._app = app
        self._chosen = "system"
        hints = QGuiApplication.styleHints()
        hints.colorSchemeChanged.connect(self._on_hints_color_scheme_changed)

    def chosen(self) -> str:
        return self._chosen

    def choose(self, scheme: str) -> None:
        """Use ``scheme`` (one of ``COLOR_SCHEMES``) from now on, at once."""
        self._chosen = scheme if scheme in COLOR_SCHEMES else "system"
        self.apply()

    def is_dark(self) -> bool:
        forced = os.environ.get("DELIVERABLES_COLOR_SCHEME", "").strip().lower()
        scheme = forced if forced in ("light", "dark") else self._chosen
        if scheme == "system":
            return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark
        return scheme == "dark"

    def apply(self) -> None:
        app = self._app
        app.setPalette(
            dark_palette() if self.is_dark() else app.style().standardPalette()
        )

    def _on_hints_color_scheme_changed(self, _scheme: Qt.ColorScheme) -> None:
        self.apply()


def color_scheme(app: QApplication) -> ColorScheme:
    """The application's one ``ColorScheme``, made on first use."""
    found = app.findChild(ColorScheme)
    return found if isinstance(found, ColorScheme) else ColorScheme(app)


def follow_color_scheme(app: QApplication) -> None:
    """Use the chosen (at first the system's) scheme, now and when it changes."""
    color_scheme(app).apply()


def settings_for(data_dir: Path) -> QSettings:
    """Window settings kept beside the store, so ``--data-dir`` isolates them too."""
    return QSettings(str(data_dir / "settings.ini"), QSettings.Format.IniFormat)
