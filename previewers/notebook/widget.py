"""The notebook preview: its page in the sandboxed view, "Notebook | JSON" above it.

Two previews share the notebook, each reading its own duplicate of the
verified descriptor: the page (made on a worker, shown by the web family's
view) and, from the first click on "JSON", the JSON previewer's tree and
text. A page that cannot be shown (not a notebook, or no sandbox as root)
gives way to the JSON with the reason above it.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QApplication,
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.trust.safeio import VerifiedFile
from app.formats.diagram_page import DRAWN_SCRIPT, add_drawing
from previewers.context import STANDALONE, PreviewContext
from previewers.notebook import ShowJson, ShowPage
from previewers.notebook.render import notebook_renderer
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget
from previewers.widgets import ISOLATED_LABEL, notice_label

LABELS = ("Notebook", "JSON")


class NotebookPreviewWidget(PreviewWidget):
    """A notebook's page, and its JSON one click away.

    ``web`` is the page's preview; ``json_view`` the JSON's, made on first
    use. The outcome is the page's, or the JSON's once the page gave way.

    Signals:
        pageRequested(str): a link in the page to another local page was
            followed; its path, for the workspace to open with its checks.
        (and those of ``PreviewWidget``)
    """

    pageRequested = Signal(str)

    def __init__(
        self,
        source: PreviewSource,
        file: VerifiedFile,
        parent: QWidget | None = None,
        *,
        show_page: ShowPage,
        show_json: ShowJson,
        context: PreviewContext = STANDALONE,
    ) -> None:
        super().__init__(source, file, parent, context=context)
        self._show_json = show_json
        self._fell_back = False
        self.json_view: PreviewWidget | None = None

        container = QWidget(self)
        layout = QVBoxLayout(container)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.toolbar = QWidget(container)
        bar = QHBoxLayout(self.toolbar)
        bar.setContentsMargins(6, 3, 6, 3)
        self.notebook_button = self._toggle_button(LABELS[0])
        self.json_button = self._toggle_button(LABELS[1])
        self.notebook_button.setChecked(True)
        group = QButtonGroup(self.toolbar)
        group.addButton(self.notebook_button)
        group.addButton(self.json_button)
        group.setExclusive(True)
        self.notebook_button.toggled.connect(self._on_notebook_button_toggled)
        self.isolated_label = QLabel(ISOLATED_LABEL, self.toolbar)
        self.isolated_label.setTextFormat(Qt.TextFormat.PlainText)
        self.isolated_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        bar.addWidget(self.notebook_button)
        bar.addWidget(self.json_button)
        bar.addStretch(1)
        bar.addWidget(self.isolated_label)
        self.notice = notice_label(container, "Notebook notice")
        self.stack = QStackedWidget(container)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.notice)
        layout.addWidget(self.stack, 1)
        self.set_content(container)

        palette = parent.palette() if parent is not None else QApplication.palette()
        render = notebook_renderer(source.name, dark=context.is_dark(palette))
        self.web = show_page(
            source,
            self._duplicate(),
            self.stack,
            render=render,
            what="notebooks",
            context=context,
            finish=add_drawing,
            ready_script=DRAWN_SCRIPT,
        )
        self.stack.addWidget(self.web)
        self.web.loaded.connect(self._on_web_loaded)
        self.web.failed.connect(self._on_web_failed)
        self.web.refused.connect(self._on_web_refused)
        page_requested = getattr(self.web, "pageRequested", None)
        if page_requested is not None:
            page_requested.connect(self.pageRequested)
        if self.web.is_settled():  # refused at once (as root)
            self._give_way()

    def _toggle_button(self, text: str) -> QToolButton:
        button = QToolButton(self.toolbar)
        button.setText(text)
        button.setCheckable(True)
        button.setAutoRaise(True)
        button.setAccessibleName(f"Show the {text if text == 'JSON' else 'notebook'}")
        return button

    def _duplicate(self) -> VerifiedFile:
        """The verified file on a descriptor of its own, for one inner preview.

        A duplicate shares the open file, so it reads the version that was
        checked; each inner preview closes its own when released.
        """
        with self.borrow_file() as file:
            return VerifiedFile(os.dup(file.fd), file.identity, file.real_path)

    # -- what the workspace uses ------------------------------------------------

    def showing_json(self) -> bool:
        return (
            self.json_view is not None and self.stack.currentWidget() is self.json_view
        )

    def show_json(self) -> None:
        """Show the JSON (as the "JSON" button does)."""
        self.json_button.setChecked(True)

    def release(self) -> None:
        if self.is_released():
            return
        self.web.release()
        if self.json_view is not None:
            self.json_view.release()
        super().release()

    def _current(self) -> PreviewWidget:
        return self.json_view if self.showing_json() and self.json_view else self.web

    def find_next(self, text: str, backward: bool = False) -> bool:
        return self._current().find_next(text, backward)

    def focus_find(self) -> None:
        self._current().focus_find()

    def zoom_in(self) -> None:
        self._current().zoom_in()

    def zoom_out(self) -> None:
        self._current().zoom_out()

    def zoom_reset(self) -> None:
        self._current().zoom_reset()

    def reload(self) -> None:
        self._current().reload()

    # -- the two views -------------------------------------------------------------

    def _json(self) -> PreviewWidget:
        if self.json_view is None:
            view = self._show_json.create(
                self.source, self._duplicate(), self.stack, context=self.context
            )
            view.loaded.connect(self._on_json_view_loaded)
            view.failed.connect(self._on_json_view_failed)
            self.stack.addWidget(view)
            self.json_view = view
        return self.json_view

    @Slot(bool)
    def _on_notebook_button_toggled(self, checked: bool) -> None:
        self.stack.setCurrentWidget(self.web if checked else self._json())
        self.isolated_label.setVisible(checked)

    def _give_way(self) -> None:
        """Show the JSON instead of a page that cannot be shown, saying why."""
        if self._fell_back:
            return
        self._fell_back = True
        why = self.web.message_text().rstrip(".") or "The page cannot be shown"
        self.notice.setText(f"{why}. Showing its JSON instead.")
        self.notice.show()
        self.notebook_button.setEnabled(False)
        self.show_json()
        view = self.json_view
        if view is not None and view.is_settled():
            self._settle_as(view)

    def _settle_as(self, view: PreviewWidget) -> None:
        if view.is_loaded():
            self.mark_loaded()
        else:
            self.mark_failed(view.message_text() or "the JSON could not be shown")

    @Slot()
    def _on_web_loaded(self) -> None:
        self.mark_loaded()

    @Slot(str)
    def _on_web_failed(self, _reason: str) -> None:
        self._give_way()

    @Slot(str)
    def _on_web_refused(self, _reason: str) -> None:
        self._give_way()

    @Slot()
    def _on_json_view_loaded(self) -> None:
        if self._fell_back and self.json_view is not None:
            self._settle_as(self.json_view)

    @Slot(str)
    def _on_json_view_failed(self, reason: str) -> None:
        if self._fell_back and self.json_view is not None:
            self._settle_as(self.json_view)
