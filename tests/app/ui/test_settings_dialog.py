"""The settings dialog edits the model and the permission mode, nothing else."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.core.trust.policy import PermissionMode
from app.ui.settings_dialog import SettingsDialog


def test_it_shows_the_current_settings_and_returns_the_edited_ones(
    qtbot: QtBot,
) -> None:
    dialog = SettingsDialog(" ollama:llama3.2 ", PermissionMode.WORKSPACE_ONLY)
    qtbot.addWidget(dialog)
    assert dialog.model_spec() == "ollama:llama3.2"
    assert dialog.mode() is PermissionMode.WORKSPACE_ONLY
    dialog._mode.setCurrentIndex(dialog._mode.findData("allow-external"))
    assert dialog.mode() is PermissionMode.ALLOW_EXTERNAL
