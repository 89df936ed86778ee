"""Settings: the model, the permission mode, the colour scheme and MCP conversations."""

from __future__ import annotations

from datetime import timedelta

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from app.agent.failures import install_command
from app.core.store.client_conversations import ConversationRule
from app.core.trust.policy import PermissionMode
from app.ui.window.application import COLOR_SCHEMES


class SettingsDialog(QDialog):
    """Edits the model spec (``provider:model``), the permission mode and the
    colour scheme (system, light or dark)."""

    def __init__(
        self,
        model_spec: str,
        mode: PermissionMode,
        parent: QWidget | None = None,
        *,
        scheme: str = "system",
        rule: ConversationRule | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self._model = QLineEdit(model_spec, self)
        self._model.setPlaceholderText("provider:model, e.g. ollama:llama3.2")
        self._model.setAccessibleName("Model")
        self._mode = QComboBox(self)
        self._mode.setAccessibleName("Permission mode")
        self._mode.addItem("Workspace files only", PermissionMode.WORKSPACE_ONLY.value)
        self._mode.addItem("Allow external files", PermissionMode.ALLOW_EXTERNAL.value)
        self._mode.setCurrentIndex(self._mode.findData(mode.value))
        self._scheme = QComboBox(self)
        self._scheme.setAccessibleName("Colour scheme")
        for value in COLOR_SCHEMES:
            label = "Same as the system" if value == "system" else value.capitalize()
            self._scheme.addItem(label, value)
        self._scheme.setCurrentIndex(max(0, self._scheme.findData(scheme)))
        rule = rule if rule is not None else ConversationRule()
        self._per_session = QCheckBox(
            "Start a new conversation when a client starts a new session", self
        )
        self._per_session.setChecked(rule.new_per_session)
        self._gap = QSpinBox(self)
        self._gap.setAccessibleName("New conversation after hours without calls")
        self._gap.setRange(0, 24 * 30)
        self._gap.setSuffix(" h")
        self._gap.setSpecialValueText("never")
        self._gap.setValue(0 if rule.gap is None else rule.gap // timedelta(hours=1))
        hint = QLabel(
            "Install the provider's extra first, from the checkout, for example "
            f"{install_command('ollama')}.",
            self,
        )
        hint.setTextFormat(Qt.TextFormat.PlainText)
        hint.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
            self,
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Model", self._model)
        form.addRow("", hint)
        form.addRow("Files the agent may present", self._mode)
        form.addRow("Colour scheme", self._scheme)
        form.addRow("MCP clients", self._per_session)
        form.addRow("New conversation after no calls for", self._gap)
        form.addRow(buttons)

    def model_spec(self) -> str:
        return self._model.text().strip()

    def mode(self) -> PermissionMode:
        return PermissionMode(self._mode.currentData())

    def color_scheme(self) -> str:
        return str(self._scheme.currentData())

    def conversation_rule(self) -> ConversationRule:
        """When an MCP client's calls in a folder start a new conversation."""
        hours = self._gap.value()
        return ConversationRule(
            self._per_session.isChecked(),
            timedelta(hours=hours) if hours else None,
        )
