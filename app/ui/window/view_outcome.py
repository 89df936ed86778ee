"""Whether every file a ``view`` command asked for was shown, and why not.

The window opens each file in a preview that loads on its own time; a damaged
PDF is known to be damaged only when its worker says so. ``ViewOutcome``
follows the previews the command opened, hands each failure's sentence (the
one the preview shows) to ``report`` as it happens, and tells the command at
the end whether anything it asked for was not shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject

from previewers.widget import PreviewWidget


class ViewOutcome(QObject):
    """The previews of one ``view`` command and the files they did not show.

    ``refusals`` are the files refused before any preview (policy, missing);
    each is reported at once. ``report`` gets every sentence, refusals first.
    """

    def __init__(
        self,
        refusals: Sequence[str],
        report: Callable[[str], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._report = report
        self.not_shown: list[str] = []
        """Why each file that was not shown was not, in the order learned."""
        self._waiting: set[int] = set()
        for refusal in refusals:
            self._add(refusal)

    def watch(self, preview: PreviewWidget) -> None:
        """Follow ``preview`` until it shows its file or says why it cannot."""
        key = id(preview)
        if preview.is_settled():
            if not preview.is_loaded():
                self._add(preview.message_text())
            return
        self._waiting.add(key)

        def done() -> None:
            self._waiting.discard(key)

        def not_shown(reason: str) -> None:
            done()
            self._add(preview.message_text() or reason)

        preview.loaded.connect(done)
        preview.failed.connect(not_shown)
        preview.refused.connect(not_shown)
        # A tab closed (or evicted) before its preview settled asks no more.
        preview.destroyed.connect(done)

    def settled(self) -> bool:
        """Whether every watched preview has shown its file or failed to."""
        return not self._waiting

    def all_shown(self) -> bool:
        return not self.not_shown

    def _add(self, sentence: str) -> None:
        self.not_shown.append(sentence)
        self._report(sentence)
