"""Qt widgets: main window, chat, cards, workspace."""
