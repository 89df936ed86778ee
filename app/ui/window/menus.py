"""The window's menus and their shortcuts, made once and kept in step with the panes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

NEW_CONVERSATION_KEYS = QKeySequence.StandardKey.New
CONVERSATIONS_KEYS = "Ctrl+B"  # the side bar, as in VS Code
TREE_KEYS = "Ctrl+Shift+E"  # VS Code's Explorer
FOCUS_KEYS = "F11"
FILTER_KEYS = "Ctrl+K"


@dataclass(frozen=True)
class WindowCommands:
    """What the menus call; the window supplies each."""

    new_conversation: Callable[[], object]
    import_session: Callable[[], object]
    open_remote_workspace: Callable[[], object]
    rename_conversation: Callable[[], object]
    delete_conversation: Callable[[], object]
    filter_conversations: Callable[[], object]
    settings: Callable[[], object]
    quit: Callable[[], object]
    show_conversations: Callable[[bool], None]
    show_tree: Callable[[bool], None]
    focus_preview: Callable[[bool], None]
    focus_message: Callable[[], object]


@dataclass(frozen=True)
class WindowActions:
    """The actions whose checks or enabled state follow the window."""

    rename: QAction
    delete: QAction
    conversations: QAction
    tree: QAction
    focus: QAction


def _action(
    window: QMainWindow,
    text: str,
    slot: Callable[[], object],
    keys: str | QKeySequence.StandardKey | None = None,
) -> QAction:
    action = QAction(text, window)
    if keys is not None:
        action.setShortcut(QKeySequence(keys))
    action.triggered.connect(lambda _checked=False: slot())
    return action


def _toggle(
    window: QMainWindow, text: str, slot: Callable[[bool], None], keys: str
) -> QAction:
    action = QAction(text, window)
    action.setCheckable(True)
    action.setShortcut(QKeySequence(keys))
    action.triggered.connect(slot)
    return action


def build_menus(window: QMainWindow, commands: WindowCommands) -> WindowActions:
    """File, Conversation and View menus on ``window``'s menu bar."""
    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    file_menu.addAction(
        _action(
            window,
            "&New conversation…",
            commands.new_conversation,
            NEW_CONVERSATION_KEYS,
        )
    )
    file_menu.addAction(_action(window, "&Import session…", commands.import_session))
    file_menu.addAction(
        _action(window, "Open &remote workspace…", commands.open_remote_workspace)
    )
    file_menu.addSeparator()
    file_menu.addAction(_action(window, "&Settings…", commands.settings))
    file_menu.addSeparator()
    file_menu.addAction(
        _action(window, "&Quit", commands.quit, QKeySequence.StandardKey.Quit)
    )

    conversation_menu = bar.addMenu("&Conversation")
    rename = _action(window, "&Rename…", commands.rename_conversation)
    delete = _action(window, "&Delete…", commands.delete_conversation)
    conversation_menu.addAction(rename)
    conversation_menu.addAction(delete)
    conversation_menu.addSeparator()
    conversation_menu.addAction(
        _action(
            window,
            "&Find a conversation",
            commands.filter_conversations,
            FILTER_KEYS,
        )
    )
    conversation_menu.addAction(
        _action(window, "Focus the &message box", commands.focus_message, "Ctrl+L")
    )

    view_menu = bar.addMenu("&View")
    conversations = _toggle(
        window, "&Conversation list", commands.show_conversations, CONVERSATIONS_KEYS
    )
    tree = _toggle(window, "File &tree", commands.show_tree, TREE_KEYS)
    focus = _toggle(window, "&Focus the preview", commands.focus_preview, FOCUS_KEYS)
    for action in (conversations, tree):
        view_menu.addAction(action)
    view_menu.addSeparator()
    view_menu.addAction(focus)
    return WindowActions(rename, delete, conversations, tree, focus)
