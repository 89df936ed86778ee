"""The settings dialog edits the model, the permission mode and the colour scheme."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.core.trust.policy import PermissionMode
from app.ui.window.settings_dialog import SettingsDialog


def test_it_shows_the_current_settings_and_returns_the_edited_ones(
    qtbot: QtBot,
) -> None:
    dialog = SettingsDialog(" ollama:llama3.2 ", PermissionMode.WORKSPACE_ONLY)
    qtbot.addWidget(dialog)
    assert dialog.model_spec() == "ollama:llama3.2"
    assert dialog.mode() is PermissionMode.WORKSPACE_ONLY
    dialog._mode.setCurrentIndex(dialog._mode.findData("allow-external"))
    assert dialog.mode() is PermissionMode.ALLOW_EXTERNAL


def test_it_offers_the_system_light_and_dark_colour_schemes(qtbot: QtBot) -> None:
    dialog = SettingsDialog("", PermissionMode.WORKSPACE_ONLY, scheme="dark")
    qtbot.addWidget(dialog)
    assert dialog.color_scheme() == "dark"
    choices = [dialog._scheme.itemData(i) for i in range(dialog._scheme.count())]
    assert choices == ["system", "light", "dark"]
    dialog._scheme.setCurrentIndex(0)
    assert dialog.color_scheme() == "system"


def test_it_edits_when_an_mcp_client_starts_a_new_conversation(qtbot: QtBot) -> None:
    from datetime import timedelta

    from app.core.store.client_conversations import ConversationRule

    dialog = SettingsDialog("", PermissionMode.WORKSPACE_ONLY)
    qtbot.addWidget(dialog)
    assert dialog.conversation_rule() == ConversationRule()  # continue always
    dialog._per_session.setChecked(True)
    dialog._gap.setValue(8)
    assert dialog.conversation_rule() == ConversationRule(True, timedelta(hours=8))
