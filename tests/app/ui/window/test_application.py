"""Application set-up: the environment is scrubbed, the colour scheme is followed."""

from __future__ import annotations

import os

from PySide6.QtGui import QPalette

from app.ui.window.application import follow_color_scheme, scrub_environment


def test_scrub_environment_clears_sandbox_and_debugging_switches(monkeypatch):
    monkeypatch.setenv("QTWEBENGINE_DISABLE_SANDBOX", "1")
    monkeypatch.setenv("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
    monkeypatch.setenv("QTWEBENGINE_REMOTE_DEBUGGING", "9222")
    # Registered so the value is restored for the tests that follow.
    monkeypatch.setenv("QT_FFMPEG_PROTOCOL_WHITELIST", "file")
    scrub_environment()
    assert "QTWEBENGINE_DISABLE_SANDBOX" not in os.environ
    assert "QTWEBENGINE_CHROMIUM_FLAGS" not in os.environ
    assert "QTWEBENGINE_REMOTE_DEBUGGING" not in os.environ
    assert os.environ["QT_FFMPEG_PROTOCOL_WHITELIST"] == "none"


def test_dark_scheme_gives_a_dark_palette(qapp, monkeypatch):
    original = qapp.palette()
    try:
        monkeypatch.setenv("DELIVERABLES_COLOR_SCHEME", "dark")
        follow_color_scheme(qapp)
        window = qapp.palette().color(QPalette.ColorRole.Window)
        text = qapp.palette().color(QPalette.ColorRole.WindowText)
        assert window.lightness() < 60
        assert text.lightness() > 180
        monkeypatch.setenv("DELIVERABLES_COLOR_SCHEME", "light")
        follow_color_scheme(qapp)
        assert qapp.palette().color(QPalette.ColorRole.Window).lightness() > 180
    finally:
        qapp.setPalette(original)


def test_the_window_icon_is_the_apps_own_resource(qapp):
    from app.ui.window.application import app_icon

    icon = app_icon()

    assert not icon.isNull()
    assert not icon.pixmap(48, 48).isNull()
