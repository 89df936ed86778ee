"""Create the Qt application safely: scrubbed environment, theme, settings."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

APP_NAME = "Deliverables"

# Variables that would turn Chromium's sandbox off or open a remote debugging port
# (QtWebEngine reads them when it starts); the app never honours them.
UNSAFE_ENVIRONMENT = (
    "QTWEBENGINE_DISABLE_SANDBOX",
    "QTWEBENGINE_CHROMIUM_FLAGS",
    "QTWEBENGINE_REMOTE_DEBUGGING",
)

# QtMultimedia's FFmpeg backend follows any protocol a container names unless
# told otherwise: allow plain files only, so media cannot pull other files or URLs.
MEDIA_PROTOCOL_WHITELIST = "file"


def scrub_environment() -> None:
    """Run before the QApplication exists: Qt reads these at start-up."""
    for name in UNSAFE_ENVIRONMENT:
        os.environ.pop(name, None)
    os.environ["QT_FFMPEG_PROTOCOL_WHITELIST"] = MEDIA_PROTOCOL_WHITELIST


def create_application(argv: Sequence[str] | None = None) -> QApplication:
    """The one QApplication, made after the environment is scrubbed."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    scrub_environment()
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    app = QApplication(list(argv) if argv is not None else sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName("Deliverables")
    app.setDesktopFileName("deliverables")
    # Fusion follows the system colour scheme (light or dark) on every platform.
    app.setStyle("Fusion")
    return app


def settings_for(data_dir: Path) -> QSettings:
    """Window settings kept beside the store, so ``--data-dir`` isolates them too."""
    return QSettings(str(data_dir / "settings.ini"), QSettings.Format.IniFormat)
