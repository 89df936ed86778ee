"""The user's choices a window works with: the model, the permission mode, colours.

They are kept in the window's settings file, except the MCP server's rule for
new conversations, which the server reads from the store.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QApplication, QWidget

from app.core.store import STORE_FAILURES, Store
from app.core.store.client_conversations import (
    conversation_rule,
    set_conversation_rule,
)
from app.core.trust.policy import PermissionMode
from app.ui.window.application import COLOR_SCHEME_KEY, color_scheme, settings_for

MODEL_KEY = "model/spec"


class Preferences(QObject):
    """Reads the choices at start and asks for new ones with the Settings dialog.

    Signals:
        modelChanged(str): the model chosen in Settings.
        failed(str): the sentence for a choice that could not be kept.
    """

    modelChanged = Signal(str)
    failed = Signal(str)

    def __init__(
        self,
        store: Store,
        data_dir: Path,
        window: QWidget,
        *,
        model_spec: str | None = None,
        mode: PermissionMode = PermissionMode.WORKSPACE_ONLY,
    ) -> None:
        super().__init__(window)
        self._store = store
        self._window = window
        self.settings: QSettings = settings_for(data_dir)
        self.model_spec = model_spec or str(self.settings.value(MODEL_KEY, ""))
        self.mode = mode
        chosen = self.settings.value(COLOR_SCHEME_KEY)
        if chosen is not None:
            color_scheme(_application()).choose(str(chosen))

    def choose(self) -> None:
        """Settings…: the dialog; what is accepted applies at once."""
        from app.ui.window.settings_dialog import SettingsDialog

        scheme = color_scheme(_application())
        dialog = SettingsDialog(
            self.model_spec,
            self.mode,
            self._window,
            scheme=scheme.chosen(),
            rule=conversation_rule(self._store),
        )
        if not dialog.exec():
            return
        try:
            set_conversation_rule(self._store, dialog.conversation_rule())
        except STORE_FAILURES as error:
            self.failed.emit(f"The MCP conversation setting was not saved: {error}")
        # Applied at once: every widget repaints with the new palette.
        scheme.choose(dialog.color_scheme())
        self.settings.setValue(COLOR_SCHEME_KEY, scheme.chosen())
        self.model_spec = dialog.model_spec()
        self.mode = dialog.mode()
        self.settings.setValue(MODEL_KEY, self.model_spec)
        self.modelChanged.emit(self.model_spec)


def _application() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication)  # a window exists only inside one
    return app
