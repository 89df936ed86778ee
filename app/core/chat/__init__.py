"""The chat's view of a conversation: the blocks it shows, and the host tools' names."""
