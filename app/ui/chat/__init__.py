"""The chat: a virtualized list of turn blocks painted by one delegate."""

from app.ui.chat.model import ChatModel
from app.ui.chat.view import ChatView

__all__ = ["ChatModel", "ChatView"]
