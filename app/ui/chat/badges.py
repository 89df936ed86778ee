"""The chat's cards kept honest: badges re-checked, thumbnails made, off the GUI thread.

Both run off the GUI thread (``app.ui.cards.checks``, ``app.ui.chat.thumbnails``)
and only the newest request answers; a verdict for a conversation no longer
shown is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject

from app.core.store import Store
from app.core.trust.policy import PermissionMode, Policy
from app.ui.cards.checks import CardChecker
from app.ui.chat.thumbnails import ThumbnailMaker
from app.ui.chat.view import ChatView


class CardBadges(QObject):
    """Re-checks the shown cards' badges and makes their thumbnails."""

    def __init__(
        self,
        chat: ChatView,
        store: Store,
        policy_for: Callable[[str], Policy],
        mode: Callable[[], PermissionMode | None],
        shown: Callable[[], str | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._chat = chat
        self._shown = shown
        self.card_checker = CardChecker(store, policy_for, mode, self)
        self.thumbnails = ThumbnailMaker(store, policy_for, mode, self)
        self.card_checker.checked.connect(self._on_card_checker_checked)
        self.thumbnails.made.connect(chat.set_thumbnail)

    def recheck(self, conversation_id: str, root: Path | None) -> None:
        """Bring the badges and thumbnails of the cards shown up to date."""
        workspace = str(root) if root else ""
        refs = self._chat.deliverable_refs()
        self.card_checker.check(conversation_id, workspace, refs)
        self.thumbnails.request(workspace, refs)

    def cancel(self) -> None:
        """Forget every request made so far."""
        self.card_checker.cancel()
        self.thumbnails.cancel()

    def _on_card_checker_checked(self, conversation_id: str, verdicts: object) -> None:
        if conversation_id == self._shown() and isinstance(verdicts, dict):
            self._chat.set_verdicts(verdicts)
