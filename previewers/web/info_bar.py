"""The bar above a page: the app's library copies it uses, what it cannot load.

One short summary line, and the full list behind a Details button. Every text
is plain: references, URLs and reasons come from the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.core.serve.manifest import LeftOut, LibraryCopy

MAX_LISTED_LINES = 60
"""Lines the details list shows; the rest is summed up in one line."""
MAX_NAMED_HOSTS = 3
"""Web hosts the summary names; the rest are counted."""
WEB_REASON = "remote"
"""The reason word of a reference to the web that the app has no copy of."""
# Libraries that draw only with WebGL, which previews turn off (GPU attack
# surface; see previewers.web.sandbox): their pages render no scene.
WEBGL_LIBRARIES = frozenset(["three.js"])


def _joined(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _count(number: int, noun: str) -> str:
    """ "1 resource left out", "2 resources left out"; the first word is counted."""
    if number == 1:
        return f"1 {noun}"
    first, space, rest = noun.partition(" ")
    return f"{number} {first}s{space}{rest}"


def _copy_name(copy: LibraryCopy) -> str:
    name = f"{copy.library} {copy.version}"
    return f"{name} in place of {copy.in_place_of}" if copy.in_place_of else name


def libraries_sentence(copies: Sequence[LibraryCopy]) -> str:
    """ "Using the app's copy of Chart.js 4.6.1 (page asks for cdn.jsdelivr.net).\""""
    names = list(dict.fromkeys(_copy_name(copy) for copy in copies))
    hosts = list(dict.fromkeys(copy.host for copy in copies if copy.host))
    if not names:
        return ""
    where = f" (page asks for {_joined(hosts)})" if hosts else ""
    if len(names) == 1:
        sentence = f"Using the app's copy of {names[0]}{where}."
    else:
        sentence = f"Using the app's copies of {_joined(names)}{where}."
    webgl = sorted({copy.library for copy in copies} & WEBGL_LIBRARIES)
    if webgl:
        sentence += (
            f" {_joined(webgl)} draws with WebGL, which previews turn off, so its"
            " 3D view stays empty."
        )
    return sentence


def web_host(reference: str) -> str:
    """The host a web reference names, or the reference itself if none."""
    url = "https:" + reference if reference.startswith("//") else reference
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        host = None
    return host or reference[:60]


def web_sentence(items: Sequence[LeftOut]) -> str:
    """ "This page loads 2 things from the web; previews are offline: …\""""
    things = list(
        dict.fromkeys(
            f"{web_host(item.reference)} ({item.what})"
            if item.what
            else web_host(item.reference)
            for item in items
        )
    )
    if not things:
        return ""
    named = ", ".join(things[:MAX_NAMED_HOSTS])
    if len(things) > MAX_NAMED_HOSTS:
        named += f" and {len(things) - MAX_NAMED_HOSTS} more"
    return (
        f"This page loads {_count(len(things), 'thing')} from the web; previews "
        f"are offline: {named}."
    )


def _left_out_line(item: LeftOut) -> str:
    if item.reason == WEB_REASON:
        what = f"{item.what} from the web" if item.what else "from the web"
        return f"Left out: {item.reference} — {what}: {item.detail or item.reason}"
    return f"Left out: {item.reference} — {item.detail or item.reason}"


def _copy_line(copy: LibraryCopy) -> str:
    return f"App's copy of {_copy_name(copy)}: for {copy.reference}"


class PageInfoBarWidget(QWidget):
    """What the preview does not show as the page asked: copies, left-outs, blocks.

    Hidden while there is nothing to say. One summary line, and the full list
    (plain text: references come from the page) behind a Details button.

    Signals: none.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Page information")
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self._copies: list[LibraryCopy] = []
        self._web: list[LeftOut] = []
        self._left_out: list[LeftOut] = []
        self._blocked: list[str] = []
        self._notices: list[str] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(2)
        row = QHBoxLayout()
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName("Page information summary")
        self.details_button = QToolButton(self)
        self.details_button.setText("Details")
        self.details_button.setCheckable(True)
        self.details_button.setAutoRaise(True)
        self.details_button.setAccessibleName("Show details")
        self.details_button.toggled.connect(self._on_details_button_toggled)
        row.addWidget(self.summary, 1)
        row.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignTop)
        self.details = QLabel(self)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self.details.setAccessibleName("Left-out and blocked resources")
        self.details.hide()
        layout.addLayout(row)
        layout.addWidget(self.details)
        self.hide()

    def set_left_out(self, left_out: Sequence[LeftOut]) -> None:
        self._web = [item for item in left_out if item.reason == WEB_REASON]
        self._left_out = [item for item in left_out if item.reason != WEB_REASON]
        self._refresh()

    def set_libraries(self, copies: Sequence[LibraryCopy]) -> None:
        self._copies = list(copies)
        self._refresh()

    def add_blocked(self, url: str) -> None:
        self._blocked.append(url)
        self._refresh()

    def add_notice(self, text: str) -> None:
        self._notices.append(text)
        self._refresh()

    def set_explanation(self, text: str) -> None:
        """A sentence that stands above everything else (why no preview)."""
        self._notices.insert(0, text)
        self._refresh()

    def lines(self) -> list[str]:
        """Every line the details list holds, in order."""
        return [
            *(_copy_line(copy) for copy in self._copies),
            *(_left_out_line(item) for item in [*self._web, *self._left_out]),
            *(f"Blocked: {url} — outside this preview" for url in self._blocked),
        ]

    def summary_text(self) -> str:
        return "" if self.isHidden() else self.summary.text()

    def _refresh(self) -> None:
        parts = list(self._notices)
        parts.append(libraries_sentence(self._copies))
        parts.append(web_sentence(self._web))
        counts = []
        if self._left_out:
            counts.append(_count(len(self._left_out), "resource left out"))
        if self._blocked:
            counts.append(_count(len(self._blocked), "request blocked"))
        if counts:
            parts.append(", ".join(counts).capitalize() + ".")
        parts = [part for part in parts if part]
        self.summary.setText(" ".join(parts))
        lines = self.lines()
        shown = lines[:MAX_LISTED_LINES]
        if len(lines) > len(shown):
            shown.append(f"… and {len(lines) - len(shown)} more")
        self.details.setText("\n".join(shown))
        self.details_button.setVisible(bool(lines))
        self.details.setVisible(bool(lines) and self.details_button.isChecked())
        self.setVisible(bool(parts))

    @Slot(bool)
    def _on_details_button_toggled(self, checked: bool) -> None:
        self.details.setVisible(checked and bool(self.lines()))
        self.details_button.setText("Hide details" if checked else "Details")
