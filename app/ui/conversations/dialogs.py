"""The questions behind New, Rename and Delete: a folder, a title, a confirmation."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QLineEdit,
    QMessageBox,
    QWidget,
)

from app.core.filetype.sizes import counted
from app.core.trust.display_names import display_name

TITLE_LIMIT = 200


def ask_folder(parent: QWidget, start: str) -> Path | None:
    """The workspace folder for a new conversation, or ``None`` if cancelled."""
    chosen = QFileDialog.getExistingDirectory(
        parent,
        "Choose the workspace folder for the new conversation",
        start,
        QFileDialog.Option.ShowDirsOnly,
    )
    return Path(chosen) if chosen else None


def ask_title(parent: QWidget, current: str) -> str | None:
    """A new title, or ``None`` if cancelled or left empty."""
    title, accepted = QInputDialog.getText(
        parent,
        "Rename conversation",
        "Title:",
        QLineEdit.EchoMode.Normal,
        current,
    )
    title = " ".join(title.split())[:TITLE_LIMIT]
    return title if accepted and title else None


def confirm_delete(parent: QWidget, title: str, forks: int) -> bool:
    """Ask before deleting; the title is shown as plain text, No is the default."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Delete conversation")
    box.setTextFormat(Qt.TextFormat.PlainText)
    text = (
        f"Delete “{display_name(title)}”?\n\nIts messages and the records of the "
        "files it presented are removed from this app. The files themselves "
        "stay where they are."
    )
    if forks:
        keep = "keeps its" if forks == 1 else "keep their"
        text += f"\n\nIts {counted(forks, 'fork')} {keep} whole history."
    box.setText(text)
    box.setStandardButtons(
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
    )
    box.setDefaultButton(QMessageBox.StandardButton.No)
    yes = box.button(QMessageBox.StandardButton.Yes)
    if yes is not None:
        yes.setText("Delete")
    return box.exec() == QMessageBox.StandardButton.Yes
